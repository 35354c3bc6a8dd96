"""NumPy matmul GFLOP/s and per-call cost, for whichever NumPy runs this (meant for one built without BLAS).

    /path/to/noblas-venv/bin/python benchmarks/numpy_noblas_gemm.py [--sizes 64,128,256,512,1024] [--quick]

Pyodide's NumPy has no BLAS, so in the browser this is the speed `a @ b` has. Build such a NumPy with
    python -m venv .venv-numpy-noblas
    .venv-numpy-noblas/bin/pip install numpy --no-binary numpy -Csetup-args=-Dblas=none -Csetup-args=-Dlapack=none
(`make bench-wasm` does it). One JSON line per (n, transposes) with GFLOP/s (2 n^3 flops, best of several
repeats), one for a 4x4 matmul's per-call cost in microseconds, and first a line naming the BLAS NumPy was
built with (`"blas": "none"` for the intended build). Transposed operands are `a.T` views, as in c_gemm.py.
Needs only NumPy: it does not import webflow.
"""

from __future__ import annotations

import argparse
import json
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread, should this NumPy have BLAS after all

import numpy as np  # noqa: E402
from bench_timing import seconds_per_call  # noqa: E402


def blas_name() -> str:
    """The BLAS NumPy was built against ("none" without one), from its build configuration."""
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return str(blas.get("name", "none")) if blas.get("found", True) else "none"
    except (TypeError, KeyError, AttributeError):  # NumPy < 1.26 has no mode="dicts"
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,128,256,512,1024")
    parser.add_argument("--quick", action="store_true", help="shorter timing budget")
    options = parser.parse_args()
    budget, repeat = (0.1, 3) if options.quick else (0.4, 5)
    print(json.dumps({"benchmark": "numpy_build", "numpy": np.__version__, "blas": blas_name()}), flush=True)
    rng = np.random.default_rng(0)
    for n in (int(size) for size in options.sizes.split(",")):
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        out = np.empty((n, n), np.float32)
        for trans_a, trans_b in ((0, 0), (0, 1), (1, 0), (1, 1)):
            op_a, op_b = (a.T if trans_a else a), (b.T if trans_b else b)
            seconds = seconds_per_call(lambda: np.matmul(op_a, op_b, out=out), budget, repeat)  # noqa: B023
            print(json.dumps({
                "benchmark": "gemm", "n": n, "op": f"{'AT' if trans_a else 'A'}.{'BT' if trans_b else 'B'}",
                "unit": "GFLOP/s", "numpy": round(2.0 * n**3 / seconds / 1e9, 2),
            }), flush=True)
    a, b = np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)
    out = np.empty((4, 4), np.float32)
    seconds = seconds_per_call(lambda: np.matmul(a, b, out=out), budget, repeat)
    print(json.dumps({"benchmark": "per_call", "op": "matmul 4x4", "unit": "us/call",
                      "numpy": round(seconds * 1e6, 3)}))


if __name__ == "__main__":
    main()
