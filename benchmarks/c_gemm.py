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

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before NumPy loads OpenBLAS

import numpy as np  # noqa: E402
from bench_timing import seconds_per_call  # noqa: E402

# noqa: E402,F401  (declares the signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: E402,F401  (declares the signatures)
from webflow.backends.c import library as c  # noqa: E402

TIMING = (0.3, 5)  # seconds of calls per figure, spread over this many batches (the best one counts)


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
            call = functools.partial(gemm, trans_a, trans_b, n, n, n, 1.0, pa, n, pb, n, 0.0, pc, n)
            ours = seconds_per_call(call, *TIMING)
            np.testing.assert_allclose(out, op_a @ op_b, rtol=1e-3, atol=1e-2 * np.sqrt(n))
            theirs = seconds_per_call(functools.partial(np.matmul, op_a, op_b, out=out), *TIMING)
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
