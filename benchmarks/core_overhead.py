"""Core overheads of webflow next to TensorFlow's, printed as JSON lines.

    python benchmarks/core_overhead.py [--tf-python PATH] [--quick]

Measures, for webflow in this process and for TensorFlow by re-running this file under TensorFlow's
interpreter (--tf-python, else the WEBFLOW_TF_PYTHON environment variable):
- session_run_10op:     Session.run of a 10-op graph (a fed scalar through 10 adds), microseconds per run;
- eager_add_scalar:     one eager scalar add, microseconds per op;
- eager_matmul_100:     one eager 100x100 float32 matmul, microseconds per op;
- gradients_build_200:  building tf.gradients of a 200-op graph (not running it), milliseconds.
Each figure is the best of several repeats (the least-disturbed measurement), so it reads as the
engine's own cost. One line per benchmark: {"benchmark", "unit", "webflow", "tensorflow", "ratio"}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from bench_timing import fastest_block

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load(framework: str) -> tuple:
    """(TF1-style module for graphs, TF2-style module for eager ops)."""
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf2
        import tensorflow.compat.v1 as tf1
    else:
        sys.path.insert(0, REPO)
        import webflow as tf2
        import webflow.compat.v1 as tf1
    return tf1, tf2


def session_run_10op(tf1, scale: int) -> float:
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf1.float32, [], name="x")
        y = x
        for _ in range(10):
            y = y + 1.0
        with tf1.Session(graph=graph) as sess:
            feed = {x: 1.0}
            sess.run(y, feed)  # warm-up: plan caches, first-call costs
            return fastest_block(lambda: sess.run(y, feed), 200 * scale, 5) * 1e6


def eager_add_scalar(tf2, scale: int) -> float:
    a, b = tf2.constant(1.0), tf2.constant(2.0)
    tf2.add(a, b)
    return fastest_block(lambda: tf2.add(a, b), 2000 * scale, 5) * 1e6


def eager_matmul_100(tf2, scale: int) -> float:
    import numpy as np

    rng = np.random.default_rng(0)
    a = tf2.constant(rng.standard_normal((100, 100)).astype(np.float32))
    b = tf2.constant(rng.standard_normal((100, 100)).astype(np.float32))
    tf2.matmul(a, b)
    return fastest_block(lambda: tf2.matmul(a, b), 500 * scale, 5) * 1e6


def gradients_build_200(tf1, scale: int) -> float:
    """A 200-op chain (alternating multiply and add, each with a constant operand) then tf.gradients."""

    def build() -> None:
        graph = tf1.Graph()
        with graph.as_default():
            x = tf1.placeholder(tf1.float32, [4], name="x")
            y = x
            for i in range(100):
                y = y * 1.01
                y = y + float(i)
            started = time.perf_counter()
            tf1.gradients(y, x)
            timings.append(time.perf_counter() - started)

    timings: list = []
    for _ in range(3 + 2 * scale):
        build()
    return min(timings) * 1e3


def measure(framework: str, scale: int) -> dict:
    tf1, tf2 = load(framework)
    with tf2.device("/cpu:0") if framework == "tensorflow" else _no_context():
        results = {
            "eager_add_scalar": eager_add_scalar(tf2, scale),
            "eager_matmul_100": eager_matmul_100(tf2, scale),
        }
    results["session_run_10op"] = session_run_10op(tf1, scale)
    results["gradients_build_200"] = gradients_build_200(tf1, scale)
    return results


class _no_context:  # noqa: N801 - used like a context-manager function
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


UNITS = {"session_run_10op": "us/run", "eager_add_scalar": "us/op", "eager_matmul_100": "us/op",
         "gradients_build_200": "ms"}


def main() -> None:
    parser = argparse.ArgumentParser(description="webflow core overheads next to TensorFlow's")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"),
                        help="TensorFlow's python interpreter (default: $WEBFLOW_TF_PYTHON)")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    parser.add_argument("--framework", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    scale = 1 if args.quick else 5
    if args.framework:  # the child run: print one JSON dict
        print(json.dumps(measure(args.framework, scale)))
        return
    theirs: dict = {}
    if args.tf_python:
        command = [args.tf_python, os.path.abspath(__file__), "--framework", "tensorflow"]
        command += ["--quick"] if args.quick else []
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            sys.exit(f"the TensorFlow run failed:\n{done.stderr[-3000:]}")
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
    else:
        print("# no TensorFlow interpreter (--tf-python or WEBFLOW_TF_PYTHON): webflow figures only", file=sys.stderr)
    mine = measure("webflow", scale)
    for name, unit in UNITS.items():
        line = {"benchmark": name, "unit": unit, "webflow": round(mine[name], 2)}
        if name in theirs:
            line["tensorflow"] = round(theirs[name], 2)
            line["ratio"] = round(mine[name] / theirs[name], 2)  # > 1: webflow is slower
        print(json.dumps(line))


if __name__ == "__main__":
    main()
