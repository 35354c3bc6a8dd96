"""Checkpoint and event-file I/O of webflow next to TensorFlow's, printed as JSON lines.

    python benchmarks/checkpoint_io.py [--tf-python PATH] [--quick] [--rounds N] [--tmpdir DIR]

Measures webflow and TensorFlow (tf.compat.v1), each in a fresh process re-running this file (TensorFlow's under
its interpreter: --tf-python, else the WEBFLOW_TF_PYTHON environment variable), alternating for --rounds rounds
and printing the median over the rounds of each figure:
- save_restore_100mb:  a TF1 graph with 25 float32 variables of 1024x1024 (100 MiB), initialized;
                       `saver.save(sess, prefix, write_meta_graph=False)` and `saver.restore(sess, prefix)`,
                       each the best of 5 (2 with --quick), in milliseconds and MiB/s. The checkpoint goes to
                       a fresh temporary directory (under --tmpdir, default the system's), the same for both
                       engines. webflow syncs the checkpoint files it writes (fdatasync, then the directory
                       after the renames), TensorFlow does not, so webflow's save includes reaching the disk
                       and TensorFlow's only the page cache; restore reads from the page cache in both.
- add_summary_scalar:  one `FileWriter.add_summary(bytes of a one-scalar Summary, step)`, microseconds per
                       call: the best of several blocks of 1000 calls, each block ending with
                       `writer.flush()` (included in the time, in both engines: TensorFlow's writer hands
                       events to a background thread, so only a flushed block has really written them).
In each process a figure is the best of several repeats (the least-disturbed measurement). One line per figure:
{"benchmark", "phase"?, "unit", "webflow", "tensorflow", "ratio", "rounds"?} with ratio = webflow / TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

VARIABLES, ROWS, COLUMNS = 25, 1024, 1024
MIB = VARIABLES * ROWS * COLUMNS * 4 / 2**20  # float32 bytes, in MiB
SUMMARY_CALLS = 1000  # add_summary calls per timed block


def load(framework: str):
    """The TF1-style module (tensorflow.compat.v1 or webflow.compat.v1)."""
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf1
    else:
        sys.path.insert(0, REPO)
        import webflow.compat.v1 as tf1
    return tf1


def save_restore_100mb(tf1, directory: str, repeat: int) -> dict:
    """Best seconds of Saver.save and of Saver.restore of 100 MiB of float32 variables."""
    import numpy as np

    graph = tf1.Graph()
    with graph.as_default():
        variables = [tf1.Variable(tf1.random_uniform([ROWS, COLUMNS], seed=i), name=f"w{i}")
                     for i in range(VARIABLES)]
        clear = tf1.assign(variables[0], tf1.zeros([ROWS, COLUMNS]))
        saver = tf1.train.Saver(variables)
        prefix = os.path.join(directory, "model.ckpt")
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            # a correctness check, untimed: save, clobber w0, restore, compare
            before = sess.run(variables[0])
            saver.save(sess, prefix, write_meta_graph=False)
            sess.run(clear)
            saver.restore(sess, prefix)
            if not np.array_equal(sess.run(variables[0]), before):
                raise AssertionError("restore did not bring back the saved values")
            save = restore = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                saver.save(sess, prefix, write_meta_graph=False)
                save = min(save, time.perf_counter() - started)
            for _ in range(repeat):
                started = time.perf_counter()
                saver.restore(sess, prefix)
                restore = min(restore, time.perf_counter() - started)
    return {"save": save, "restore": restore}


def add_summary_scalar(tf1, directory: str, repeat: int) -> float:
    """Best seconds per add_summary call of a one-scalar Summary (flush at the end of each block included)."""
    graph = tf1.Graph()
    with graph.as_default():
        value = tf1.placeholder(tf1.float32, [], name="loss_value")
        summary = tf1.summary.scalar("loss", value)
        with tf1.Session(graph=graph) as sess:
            summary_bytes = sess.run(summary, {value: 0.5})
        writer = tf1.summary.FileWriter(directory)  # TF's defaults: max_queue=10, flush_secs=120
        try:
            step = 0
            for _ in range(100):  # warm-up: the tag's first value (with its metadata), first-call costs
                writer.add_summary(summary_bytes, step)
                step += 1
            writer.flush()
            best = float("inf")
            for _ in range(repeat):
                started = time.perf_counter()
                for _ in range(SUMMARY_CALLS):
                    writer.add_summary(summary_bytes, step)
                    step += 1
                writer.flush()
                best = min(best, (time.perf_counter() - started) / SUMMARY_CALLS)
        finally:
            writer.close()
    return best


def measure(framework: str, quick: bool, tmpdir: str | None) -> dict:
    tf1 = load(framework)
    with tempfile.TemporaryDirectory(prefix=f"checkpoint_io-{framework}-", dir=tmpdir) as directory:
        times = save_restore_100mb(tf1, directory, 2 if quick else 5)
        per_call = add_summary_scalar(tf1, os.path.join(directory, "events"), 3 if quick else 10)
    return {"save_ms": times["save"] * 1e3, "restore_ms": times["restore"] * 1e3,
            "add_summary_us": per_call * 1e6}


def _line(benchmark: str, unit: str, mine: float, theirs: float | None, **extra) -> dict:
    line = {"benchmark": benchmark, **extra, "unit": unit, "webflow": round(mine, 2)}
    if theirs is not None:
        line["tensorflow"] = round(theirs, 2)
        line["ratio"] = round(mine / theirs, 2)  # > 1: webflow is slower
    return line


def _child(python: str, framework: str, args: argparse.Namespace) -> dict:
    """One engine's figures, measured in a fresh process: {"save_ms", "restore_ms", "add_summary_us"}."""
    command = [python, os.path.abspath(__file__), "--framework", framework]
    command += ["--quick"] if args.quick else []
    command += ["--tmpdir", args.tmpdir] if args.tmpdir else []
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"the {framework} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description="webflow checkpoint and event-file I/O next to TensorFlow's")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"),
                        help="TensorFlow's python interpreter (default: $WEBFLOW_TF_PYTHON)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="rounds of (TensorFlow process, webflow process), alternating; the figures printed "
                             "are the medians over the rounds (a loaded machine drifts: interleave)")
    parser.add_argument("--tmpdir", default=None,
                        help="where the temporary checkpoint directories go (default: the system's temp dir)")
    parser.add_argument("--framework", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.framework:  # the child run: print one JSON dict
        print(json.dumps(measure(args.framework, args.quick, args.tmpdir)))
        return
    if not args.tf_python:
        print("# no TensorFlow interpreter (--tf-python or WEBFLOW_TF_PYTHON): webflow figures only", file=sys.stderr)
    rounds: dict[str, list[dict]] = {"tensorflow": [], "webflow": []}
    for _ in range(max(1, args.rounds)):
        if args.tf_python:
            rounds["tensorflow"].append(_child(args.tf_python, "tensorflow", args))
        rounds["webflow"].append(_child(sys.executable, "webflow", args))
    mine = {key: _median([r[key] for r in rounds["webflow"]]) for key in rounds["webflow"][0]}
    theirs = {key: _median([r[key] for r in rounds["tensorflow"]]) for key in mine} if args.tf_python else {}
    extra = {"rounds": len(rounds["webflow"])} if len(rounds["webflow"]) > 1 else {}
    for phase in ("save", "restore"):
        key = f"{phase}_ms"
        line = _line("save_restore_100mb", "ms", mine[key], theirs.get(key), phase=phase, mib=round(MIB, 1), **extra)
        line["webflow_mib_s"] = round(MIB / (mine[key] / 1e3), 1)
        if key in theirs:
            line["tensorflow_mib_s"] = round(MIB / (theirs[key] / 1e3), 1)
        print(json.dumps(line))
    print(json.dumps(_line("add_summary_scalar", "us/call", mine["add_summary_us"], theirs.get("add_summary_us"),
                           flush="included", **extra)))


if __name__ == "__main__":
    main()
