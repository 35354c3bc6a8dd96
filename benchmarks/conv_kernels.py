"""Milliseconds per call of the three convolution kernels at the Deep MNIST CNN's shapes, printed as JSON lines.

    PYTHONPATH=. python benchmarks/conv_kernels.py [--tf-python PATH] [--threads N] [--quick]

Layers (NHWC input, HWIO filter, stride 1, SAME): conv1 [b,28,28,1] * [5,5,1,32]; conv2 [b,14,14,32] * [5,5,32,64];
batch b = 50 and 128. For each: forward (Conv2D), backprop input (Conv2DBackpropInput), backprop filter
(Conv2DBackpropFilter). webflow's NumPy kernels (webflow/backends/numpy/conv.py) are timed directly, without op
dispatch; TensorFlow's by re-running this file under its interpreter (--tf-python, else $WEBFLOW_TF_PYTHON),
calling tf.raw_ops eagerly. --threads N sets TensorFlow's intra-op threads (webflow's BLAS threads come from
OPENBLAS_NUM_THREADS). Each figure is the best of several repeats; on a shared machine they still vary.
This prints numbers; it is not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable

from bench_timing import fastest_block

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = {"conv1": ((28, 28, 1), (5, 5, 1, 32)), "conv2": ((14, 14, 32), (5, 5, 32, 64))}
BATCHES = (50, 128)
KERNELS = ("forward", "backprop_input", "backprop_filter")


def best_ms(function: Callable[[], object], number: int, repeat: int) -> float:
    return fastest_block(function, number, repeat) * 1e3


def webflow_calls(x, w, dy) -> dict:  # noqa: ANN001 - NumPy arrays
    from webflow.backends.numpy import conv as ck

    same = ((0, 0), (0, 0))
    return {"forward": lambda: ck.conv2d(x, w, (1, 1), (1, 1), "SAME", same),
            "backprop_input": lambda: ck.conv2d_backprop_input(x.shape, w, dy, (1, 1), (1, 1), "SAME", same),
            "backprop_filter": lambda: ck.conv2d_backprop_filter(x, w.shape, dy, (1, 1), (1, 1), "SAME", same)}


def tensorflow_calls(x, w, dy) -> dict:  # noqa: ANN001 - NumPy arrays
    import tensorflow as tf

    x, w, dy = tf.constant(x), tf.constant(w), tf.constant(dy)
    x_shape, w_shape = tf.constant(x.shape.as_list()), tf.constant(w.shape.as_list())
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    # .numpy() waits for the result, as webflow's kernels return a finished array
    return {"forward": lambda: tf.raw_ops.Conv2D(input=x, filter=w, **attrs).numpy(),
            "backprop_input": lambda: tf.raw_ops.Conv2DBackpropInput(
                input_sizes=x_shape, filter=w, out_backprop=dy, **attrs).numpy(),
            "backprop_filter": lambda: tf.raw_ops.Conv2DBackpropFilter(
                input=x, filter_sizes=w_shape, out_backprop=dy, **attrs).numpy()}


def measure(framework: str, quick: bool) -> dict:
    import numpy as np

    rng = np.random.default_rng(0)
    results = {}
    for layer, (image, filter_shape) in LAYERS.items():
        for batch in BATCHES:
            x = rng.standard_normal((batch, *image)).astype(np.float32)
            w = rng.standard_normal(filter_shape).astype(np.float32)
            dy = rng.standard_normal((batch, image[0], image[1], filter_shape[3])).astype(np.float32)
            calls = (webflow_calls if framework == "webflow" else tensorflow_calls)(x, w, dy)
            for kernel in KERNELS:
                calls[kernel]()                                     # warm up (allocations, TF's first-call costs)
                ms = best_ms(calls[kernel], 2 if quick else 5, 3 if quick else 7)
                results[f"{layer}_b{batch}_{kernel}"] = ms
    return results


def tensorflow_results(tf_python: str | None, threads: int | None, quick: bool) -> dict:
    if not tf_python:
        return {}
    command = [tf_python, os.path.abspath(__file__), "--as-tensorflow"] + (["--quick"] if quick else [])
    command += ["--threads", str(threads)] if threads else []
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": REPO}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1200)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    if done.returncode != 0 or not lines:
        print(f"TensorFlow run failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(lines[-1][len("RESULT:"):])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--threads", type=int, default=None, help="TensorFlow intra-op threads")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--as-tensorflow", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.as_tensorflow:
        if args.threads:
            import tensorflow as tf

            tf.config.threading.set_intra_op_parallelism_threads(args.threads)
            tf.config.threading.set_inter_op_parallelism_threads(args.threads)
        print("RESULT:" + json.dumps(measure("tensorflow", args.quick)))
        return
    ours = measure("webflow", args.quick)
    theirs = tensorflow_results(args.tf_python, args.threads, args.quick)
    for name, ms in ours.items():
        line = {"benchmark": name, "unit": "ms/call", "webflow": round(ms, 3)}
        if name in theirs:
            line.update(tensorflow=round(theirs[name], 3), ratio=round(ms / theirs[name], 2))
        print(json.dumps(line))


if __name__ == "__main__":
    main()
