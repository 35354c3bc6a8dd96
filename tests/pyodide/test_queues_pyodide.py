"""A TF1 queue pipeline inside Pyodide (Node, no threads, no NumPy), against CPython.

string_input_producer -> TFRecordReader / TextLineReader -> shuffle_batch / batch, with a Coordinator and
start_queue_runners, as the book writes it. Pyodide cannot start threads, so start_queue_runners starts none and
the runners' enqueue ops run on demand inside the dequeues that wait for them (ops/queue_state.py). The oracle is
the same program in CPython with threads: the same multiset of records, the same batch sizes, the same FIFO
batches where one thread feeds a FIFO queue. Needs node + `npm ci` in tests/pyodide; skips without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable  # noqa: E402

PROGRAM = textwrap.dedent("""
    import os, sys, tempfile, threading
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    directory = tempfile.mkdtemp()
    records, lines = [], []
    for f in range(3):
        records.append(os.path.join(directory, "part%d.tfrecord" % f))
        with tf.python_io.TFRecordWriter(records[-1]) as writer:
            for i in range(6):
                writer.write(b"record-%d-%d" % (f, i))
        lines.append(os.path.join(directory, "part%d.csv" % f))
        with open(lines[-1], "w") as handle:
            handle.write("header\\n" + "".join("%d,%d\\n" % (f, i) for i in range(4)))

    def run(fetch):
        out = []
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            try:
                while not coord.should_stop():
                    out.append([v.decode() if isinstance(v, bytes) else int(v) for v in sess.run(fetch)])
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
            coord.join(threads)
        return out, len(threads)

    files = tf.train.string_input_producer(records, num_epochs=2, shuffle=True, seed=4)
    key, value = tf.TFRecordReader().read(files)
    shuffled, started = run(tf.train.shuffle_batch([value], batch_size=5, capacity=20, min_after_dequeue=6,
                                                   num_threads=2, seed=9, allow_smaller_final_batch=True))
    tf.reset_default_graph()
    files = tf.train.string_input_producer(lines, num_epochs=1, shuffle=False)
    key, line = tf.TextLineReader(skip_header_lines=1).read(files)
    in_order, _ = run(tf.train.batch([line], batch_size=5, allow_smaller_final_batch=True))
    {"shuffled": sorted(v for b in shuffled for v in b), "sizes": sorted(len(b) for b in shuffled),
     "in_order": in_order, "threads_started": started, "numpy": sys.modules.get("numpy") is not None}
""")


def _cpython() -> dict:
    code = (f"import ast, json\ntree = ast.parse({PROGRAM!r})\nlast = tree.body.pop()\n"
            "exec(compile(tree, 'p', 'exec'))\n"
            "print('RESULT:' + json.dumps(eval(compile(ast.Expression(last.value), 'p', 'eval'))))")
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])


def _pyodide() -> dict:
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        pytest.skip("node or tests/pyodide/node_modules (npm ci) missing: cannot run Pyodide")
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"))
    except PyodideUnavailable as error:
        pytest.skip(str(error))
    try:
        return session.evaluate(textwrap.dedent("""
            import sys
            for name in [n for n in sys.modules if n == "webflow" or n.startswith("webflow.")]:
                del sys.modules[name]   # the runner's bare package: import the real one
        """) + PROGRAM)
    finally:
        session.close()


def test_queue_pipeline_runs_in_pyodide_without_threads() -> None:
    got, expected = _pyodide(), _cpython()
    assert (got["numpy"], expected["numpy"]) == (False, True)
    assert got["threads_started"] == 0 and expected["threads_started"] == 1 + 1 + 2 + 1  # loops + close_on_stop threads
    want = sorted(f"record-{f}-{i}" for f in range(3) for i in range(6)) * 2
    assert got["shuffled"] == expected["shuffled"] == sorted(want)
    assert got["sizes"] == expected["sizes"] == [1] + [5] * 7
    assert got["in_order"] == expected["in_order"] == [["0,0", "0,1", "0,2", "0,3", "1,0"],
                                                       ["1,1", "1,2", "1,3", "2,0", "2,1"], ["2,2", "2,3"]]
