"""The per-run fast paths of the engine keep Session.run's results, errors and RunMetadata unchanged.

- CArray output buffers are recycled only when nothing refers to them (backends/c_array.uninitialized);
- VariableV2 and `v/read` are not run in untraced runs (their consumers read the variable anyway);
- ops that only control edges reach are pruned, as TensorFlow's grappler does (checked against real
  TensorFlow when WEBFLOW_TF_PYTHON is set);
- the resolved fetches of a flat list of tensors are reused between runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow.compat.v1 as tf
from webflow.backends.arrays import carray as c_array
from webflow.framework import dtypes
from webflow.framework.errors import FailedPreconditionError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG = c_array.POOL_MIN_ITEMS * 2


# --- the buffer pool ------------------------------------------------------------------------------------
def test_a_dropped_output_buffer_is_reused() -> None:
    first = c_array.uninitialized((BIG,), dtypes.float32)
    buffer_id = id(first.data)
    del first
    assert id(c_array.uninitialized((BIG,), dtypes.float32).data) == buffer_id


def _holder(array: c_array.CArray, kind: str) -> object:
    if kind == "carray":
        return array
    if kind == "view":
        return array.reshape(2, BIG // 2)
    if kind == "data":
        return array.data
    if kind == "memoryview":
        return memoryview(array.data)
    return np.asarray(array)  # a NumPy view of the buffer


@pytest.mark.parametrize("kind", ["carray", "view", "data", "memoryview", "numpy"])
def test_a_buffer_still_referenced_is_never_handed_out(kind: str) -> None:
    first = c_array.uninitialized((BIG,), dtypes.float32)
    kept = _holder(first, kind)
    buffer_id = id(first.data)
    del first
    fresh = [c_array.uninitialized((BIG,), dtypes.float32) for _ in range(3)]
    assert all(id(f.data) != buffer_id for f in fresh)
    assert kept is not None


def test_empty_is_still_zero_filled_after_recycling() -> None:
    dirty = c_array.uninitialized((BIG,), dtypes.float32)
    dirty.data[:] = c_array.full((BIG,), 5.0, dtypes.float32).data
    del dirty
    assert set(c_array.empty((BIG,), dtypes.float32).data) == {0.0}
    assert c_array.empty((2, 3), dtypes.int32).tolist() == [[0, 0, 0], [0, 0, 0]]


NO_NUMPY_TRAINING = """
import sys
sys.modules["numpy"] = None
import json
from webflow.backends.c import library as c_library
if not c_library.available():
    print(json.dumps({"skip": c_library.unavailable_reason()}))
    raise SystemExit(0)
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 3])
w = tf.Variable([[0.5] * 40, [-0.25] * 40, [1.0] * 40])
hidden = tf.nn.relu(tf.matmul(x, w))
loss = tf.reduce_mean(tf.square(hidden))
grad = tf.gradients(loss, w)[0]
train = tf.train.AdamOptimizer(0.1).minimize(loss)
sess = tf.Session()
sess.run(tf.global_variables_initializer())
feed = {x: [[1.0, 2.0, 3.0]] * 64}
kept = sess.run([w, grad, hidden], feed)          # arrays the user holds on to
before = [k.tolist() for k in kept]
for _ in range(5):
    sess.run([loss, train], feed)
after = [k.tolist() for k in kept]
print(json.dumps({"unchanged": before == after, "w_moved": sess.run(w).tolist() != before[0]}))
"""


def test_fetched_values_stay_as_fetched_while_training_continues_without_numpy() -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests")]))
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", NO_NUMPY_TRAINING], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in result:
        pytest.skip(f"C kernels unavailable: {result['skip']}")
    assert result == {"unchanged": True, "w_moved": True}


# --- ops that only control edges reach --------------------------------------------------------------------
CONTROL_ONLY = textwrap.dedent("""
    a = tf.placeholder(tf.float32, [None, None])
    b = tf.placeholder(tf.float32, [None, None])
    mismatched = tf.matmul(a, b)                      # [2, 3] x [2, 3] fails when it runs
    c = tf.placeholder(tf.float32, [])
    with tf.control_dependencies([mismatched]):
        out = tf.identity(c * 2.0)
    sess = tf.Session()
    ones = [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    result = {"out": float(sess.run(out, {a: ones, b: ones, c: 3.0}))}
    try:
        sess.run(mismatched, {a: ones, b: ones})
        result["fetched"] = "no error"
    except tf.errors.InvalidArgumentError:
        result["fetched"] = "InvalidArgumentError"
""")


def test_an_op_reached_only_by_a_control_edge_is_not_run() -> None:
    assert run_webflow(CONTROL_ONLY) == {"out": 6.0, "fetched": "InvalidArgumentError"}


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_control_only_pruning_matches_tensorflow() -> None:
    assert run_webflow(CONTROL_ONLY) == run_tensorflow({"p": CONTROL_ONLY})["p"]


def test_traced_and_untraced_runs_agree_and_the_trace_lists_the_variables() -> None:
    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        loss = tf.reduce_sum(tf.matmul(x, w))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        init = tf.global_variables_initializer()
    with tf.Session(graph=graph) as sess:
        sess.run(init)
        plain = sess.run([loss, train], {x: [[1.0, 1.0]]})[0]
        metadata = tf.RunMetadata()
        traced = sess.run([loss, train], {x: [[1.0, 1.0]]}, options=tf.RunOptions(trace_level=3),
                          run_metadata=metadata)[0]
        names = {stat.node_name for stat in metadata.step_stats.dev_stats}
        final = sess.run(w)
    assert float(plain) == 3.0 and float(traced) == 3.0 - 0.5 * 2  # w -= 0.5 * [1, 1] after the first run
    assert {"w", "w/read", "MatMul"} <= names
    np.testing.assert_array_equal(np.asarray(final), [[0.0], [1.0]])


def test_uninitialized_variable_error_is_unchanged_by_skipping_reads() -> None:
    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable([[1.0]], name="w")
        y = tf.matmul(w, w)
    with tf.Session(graph=graph) as sess:
        messages = []
        for options in (None, tf.RunOptions(trace_level=3)):
            with pytest.raises(FailedPreconditionError) as caught:
                sess.run(y, options=options, run_metadata=tf.RunMetadata())
            messages.append(caught.value.message)
    assert messages[0] == messages[1]
    assert "Attempting to use uninitialized value w" in messages[0] and "w/read" in messages[0]


# --- cached fetch structures ------------------------------------------------------------------------------
def test_reused_fetch_lists_give_fresh_containers_and_follow_their_contents() -> None:
    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        double, triple = x * 2.0, x * 3.0
    with tf.Session(graph=graph) as sess:
        fetches = [double, triple]
        first = sess.run(fetches, {x: 1.0})
        second = sess.run(fetches, {x: 2.0})
        fetches.append(x + 1.0)  # the same list object, now with three tensors
        third = sess.run(fetches, {x: 2.0})
        as_tuple = sess.run((double, triple), {x: 1.0})
    assert first is not second and [float(v) for v in first] == [2.0, 3.0]
    assert [float(v) for v in second] == [4.0, 6.0]
    assert [float(v) for v in third] == [4.0, 6.0, 3.0]
    assert isinstance(as_tuple, tuple) and [float(v) for v in as_tuple] == [2.0, 3.0]
