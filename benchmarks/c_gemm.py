"""GEMM throughput: webflow's C kernel (webflow/wasm/gemm.c, native build) next to NumPy/OpenBLAS.

    PYTHONPATH=. python benchmarks/c_gemm.py [--sizes 64,128,256,512,1024] [--dtype float32]

One JSON line per (n, transposes): GFLOP/s (2 n^3 flops per product, best of several repeats, one
thread: OPENBLAS_NUM_THREADS=1 is set before NumPy is imported). `ratio` is webflow / NumPy.
NumPy's transposed products use `a.T @ b` views (BLAS handles the transpose flag, no copy).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads OpenBLAS

import numpy as np  # noqa: E402

# noqa: E402,F401  (declares the signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: E402,F401  (declares the signatures)
from webflow.backends.c import library as c  # noqa: E402


def best_seconds(function, seconds: float = 0.3, repeat: int = 5) -> float:
    """Seconds per call: calls are batched to about `seconds / repeat` each, best batch wins."""
    function()
    started, calls = time.perf_counter(), 0
    while time.perf_counter() - started < seconds / repeat:
        function()
        calls += 1
    number = max(1, calls)
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - started) / number)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512,1024")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    options = parser.parse_args()
    if not c.available():
        print(json.dumps({"benchmark": "gemm", "error": c.unavailable_reason()}))
        return
    dtype = np.dtype(options.dtype)
    gemm = c.function("wf_gemm_f32" if dtype == np.float32 else "wf_gemm_f64")
    rng = np.random.default_rng(0)
    for n in (int(size) for size in options.sizes.split(",")):
        a = rng.standard_normal((n, n)).astype(dtype)
        b = rng.standard_normal((n, n)).astype(dtype)
        out = np.empty((n, n), dtype)
        pa, pb, pc = c.address(a), c.address(b), c.address(out)
        for trans_a, trans_b in ((0, 0), (0, 1), (1, 0), (1, 1)):
            op_a, op_b = (a.T if trans_a else a), (b.T if trans_b else b)
            ours = best_seconds(functools.partial(gemm, trans_a, trans_b, n, n, n, 1.0, pa, n, pb, n, 0.0, pc, n))
            np.testing.assert_allclose(out, op_a @ op_b, rtol=1e-3, atol=1e-2 * np.sqrt(n))
            theirs = best_seconds(functools.partial(np.matmul, op_a, op_b, out=out))
            flops = 2.0 * n**3
            print(json.dumps({
                "benchmark": "gemm", "dtype": dtype.name, "n": n,
                "op": f"{'AT' if trans_a else 'A'}.{'BT' if trans_b else 'B'}",
                "unit": "GFLOP/s", "webflow_c": round(flops / ours / 1e9, 1),
                "numpy_openblas": round(flops / theirs / 1e9, 1), "ratio": round(theirs / ours, 2),
                "backend": c.backend_name(),
            }))


if __name__ == "__main__":
    main()
