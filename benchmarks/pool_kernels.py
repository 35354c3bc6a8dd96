"""Pooling kernel timings on the Deep MNIST CNN's shapes, webflow next to TensorFlow, as JSON lines.

    PYTHONPATH=. python benchmarks/pool_kernels.py [--tf-python PATH] [--quick]

For batch 50 and 128 and the two pooling layers of the Deep MNIST CNN (28x28x32 and 14x14x64 inputs,
2x2 windows, stride 2, SAME), times MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad as eager ops
(webflow: dispatch + NumPy kernel; TensorFlow: the raw op inside a tf.function, so no Python per op).
TensorFlow runs by re-running this file under its interpreter (--tf-python, else WEBFLOW_TF_PYTHON), with
its default threading; NumPy's kernels here run on one thread. Each figure is the best of several repeats
in milliseconds. One line per case: {"benchmark", "shape", "unit", "webflow", "tensorflow", "ratio"}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [(50, 28, 28, 32), (50, 14, 14, 64), (128, 28, 28, 32), (128, 14, 14, 64)]
POOL = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}


def best_ms(function: Callable[[], None], repeat: int) -> float:
    function()
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - started)
    return best * 1e3


def webflow_cases(x, y, g) -> dict:
    from webflow.ops.registry import apply_op

    nhwc = dict(POOL, data_format="NHWC")
    return {
        "max_pool": lambda: apply_op("MaxPool", [x], dict(nhwc, explicit_paddings=[])).numpy(),
        "max_pool_grad": lambda: apply_op("MaxPoolGrad", [x, y, g], dict(nhwc, explicit_paddings=[])).numpy(),
        "avg_pool": lambda: apply_op("AvgPool", [x], nhwc).numpy(),
        "avg_pool_grad": lambda: apply_op("AvgPoolGrad", [list(x.shape), g], nhwc).numpy(),
    }


def tensorflow_cases(x, y, g) -> dict:
    import tensorflow as tf

    shape = list(x.shape)
    max_pool = tf.function(lambda x: tf.raw_ops.MaxPool(input=x, **POOL))
    max_grad = tf.function(lambda x, y, g: tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=y, grad=g, **POOL))
    avg_pool = tf.function(lambda x: tf.raw_ops.AvgPool(value=x, **POOL))
    avg_grad = tf.function(lambda g: tf.raw_ops.AvgPoolGrad(orig_input_shape=shape, grad=g, **POOL))
    return {"max_pool": lambda: max_pool(x).numpy(), "max_pool_grad": lambda: max_grad(x, y, g).numpy(),
            "avg_pool": lambda: avg_pool(x).numpy(), "avg_pool_grad": lambda: avg_grad(g).numpy()}


def measure(framework: str, repeat: int) -> dict:
    """{"benchmark shape": milliseconds} for one framework, in this process."""
    import numpy as np

    rng = np.random.default_rng(0)
    figures = {}
    for shape in SHAPES:
        x_np = rng.standard_normal(shape).astype(np.float32)
        y_np = x_np.reshape(shape[0], shape[1] // 2, 2, shape[2] // 2, 2, shape[3]).max(axis=(2, 4))
        g_np = rng.standard_normal(y_np.shape).astype(np.float32)
        if framework == "tensorflow":
            import tensorflow as tf

            x, y, g = tf.constant(x_np), tf.constant(y_np), tf.constant(g_np)
            cases = tensorflow_cases(x, y, g)
        else:
            import webflow as wf

            x, y, g = wf.constant(x_np), wf.constant(y_np), wf.constant(g_np)
            cases = webflow_cases(x, y, g)
        for name, function in cases.items():
            figures[f"{name} {'x'.join(map(str, shape))}"] = best_ms(function, repeat)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--only", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    repeat = 5 if args.quick else 20
    if args.only:
        print("FIGURES:" + json.dumps(measure(args.only, repeat)))
        return
    ours = measure("webflow", repeat)
    theirs = {}
    if args.tf_python:
        command = [args.tf_python, os.path.abspath(__file__), "--only", "tensorflow"] + (["--quick"] * args.quick)
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
        out = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=900)
        lines = [line for line in out.stdout.splitlines() if line.startswith("FIGURES:")]
        if not lines:
            sys.exit(f"TensorFlow run failed:\n{out.stderr[-2000:]}")
        theirs = json.loads(lines[-1][len("FIGURES:"):])
    for key, ms in ours.items():
        name, shape = key.split()
        tf_ms = theirs.get(key)
        print(json.dumps({"benchmark": name, "shape": shape, "unit": "ms", "webflow": round(ms, 3),
                          "tensorflow": None if tf_ms is None else round(tf_ms, 3),
                          "ratio": None if tf_ms is None else round(ms / tf_ms, 2)}))


if __name__ == "__main__":
    main()
