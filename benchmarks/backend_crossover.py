"""Where the C kernels start beating NumPy: us per call of each op's two kernels, by size.

    OPENBLAS_NUM_THREADS=1 python benchmarks/backend_crossover.py [--quick]

Calls the registered kernels directly (OpDef.kernels["numpy"] and ["native"]), so the figures are the
kernels' own cost plus the ctypes call, not eager dispatch. The automatic policy's `min_size` numbers in
webflow/backends/c_kernels_*.py come from this table (noisy on a shared VM: read as rough).
"""

from __future__ import annotations

import argparse
import os
import sys

from bench_timing import fastest_block

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import webflow  # noqa: E402, F401  (registers the ops)
from webflow.backends import selection  # noqa: E402
from webflow.backends.c import library as c_library
from webflow.ops.registry import OPS  # noqa: E402


def best_us(function, number: int = 20, repeat: int = 5) -> float:
    return fastest_block(function, number, repeat) * 1e6


def cases(sizes: list) -> list:
    """(op type, label, args, attrs) for each op and size n (about n elements in the deciding input)."""
    rng = np.random.default_rng(0)
    f32 = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    out = []
    for n in sizes:
        rows = max(n // 100, 1)
        side = max(int(round((n / 32) ** 0.5)) // 2 * 2, 2)
        x = f32(n)
        out += [("AddV2", n, (x, x), {}), ("Mul", n, (x, x), {}), ("Exp", n, (x,), {}), ("Tanh", n, (x,), {}),
                ("Sigmoid", n, (x,), {}), ("Relu", n, (x,), {}), ("ReluGrad", n, (x, x), {}),
                ("Sum", n, (x, np.array([0], np.int32)), {"keep_dims": False}),
                ("Softmax", n, (f32(rows, 100),), {}),
                ("SparseSoftmaxCrossEntropyWithLogits", n, (f32(rows, 100), np.zeros(rows, np.int64)), {}),
                ("MaxPool", n, (f32(1, side, side, 32),),
                 {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "data_format": "NHWC"}),
                ("AvgPool", n, (f32(1, side, side, 32),),
                 {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID", "data_format": "NHWC"})]
        m = max(int(n ** 0.5), 1)
        out.append(("MatMul", n, (f32(m, m), f32(m, m)), {"transpose_a": False, "transpose_b": False}))
    return out


def adam_case(n: int) -> tuple:
    from webflow.backends.c.optimizers import adam
    from webflow.ops import training_ops

    s = [np.full(n, 0.5, np.float32) for _ in range(4)]
    scalars = [np.float32(v) for v in (0.9, 0.999, 0.001, 0.9, 0.999, 1e-7)]
    numpy_update = training_ops.adam_update

    return (lambda: numpy_update(*s[:3], *scalars, s[3]), lambda: adam(*s[:3], *scalars, s[3]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    if not c_library.available():
        print(f"no C kernels here: {c_library.unavailable_reason()}")
        return
    sizes = [64, 1024, 16384] if quick else [64, 256, 1024, 4096, 16384, 100000]
    print(f"{'op':40s} {'n':>7s} {'numpy us':>9s} {'C us':>9s}")
    for op_type, n, args, attrs in cases(sizes):
        kernels = OPS[op_type].kernels
        numpy_kernel, c_kernel = kernels["numpy"], kernels[selection.C_BACKEND]
        t_numpy = best_us(lambda k=numpy_kernel, a=args, kw=attrs: k(*a, **kw))
        t_c = best_us(lambda k=c_kernel, a=args, kw=attrs: k(*a, **kw))
        print(f"{op_type:40s} {n:7d} {t_numpy:9.1f} {t_c:9.1f}{'  C' if t_c < t_numpy else ''}")
    for n in sizes:
        numpy_run, c_run = adam_case(n)
        t_numpy, t_c = best_us(numpy_run), best_us(c_run)
        print(f"{'Adam update':40s} {n:7d} {t_numpy:9.1f} {t_c:9.1f}{'  C' if t_c < t_numpy else ''}")


if __name__ == "__main__":
    main()
