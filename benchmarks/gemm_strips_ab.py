"""Two or more builds of the native C library, gemm_strips.c's products interleaved in one process (before / after).

    PYTHONPATH=. python benchmarks/gemm_strips_ab.py before=/tmp/old.so,after=webflow/wasm/_build/lib...so
        [--shapes 1024x1024x1024,400x200x10000xtb] [--rounds 9] [--threads 1,2]

A shape is MxNxK (C[m, n] = op(A)[m, k] op(B)[k, n]), with `ta` / `tb` after it for a transposed A / B. Every
library gets the same 64-byte aligned operands (as the MatMul adapter's arrays are); for each shape and thread
count the libraries take turns, round after round, each with one untimed call and then ~30 ms of calls, so a
neighbour's load on the shared machine hits them alike. Printed: median (min) microseconds per call, GFLOP/s,
and `same`: whether every library returned the same bits. Label the figures with the load average printed.
A library for a blocking under test: cc ... -DSTRIPS_K_BLOCK=512 (webflow/wasm/build.py's flags, all sources).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import time

import numpy as np

from webflow.backends.arrays.numpy_arrays import aligned_empty

SIZE = ctypes.c_ssize_t
SECONDS_PER_BLOCK = 0.03


def load(path: str) -> ctypes.CDLL:
    library = ctypes.CDLL(os.path.abspath(path))
    library.wf_gemm_strips_f32.argtypes = [SIZE, SIZE, SIZE, ctypes.c_void_p, SIZE, ctypes.c_int, ctypes.c_void_p,
                                           SIZE, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, SIZE]
    library.wf_gemm_strips_workspace.restype, library.wf_gemm_strips_workspace.argtypes = SIZE, [SIZE]
    return library


def random_aligned(shape: tuple, rng: np.random.Generator) -> np.ndarray:
    array = aligned_empty(shape, np.float32)
    array[...] = rng.standard_normal(shape)
    return array


def product_call(library: ctypes.CDLL, a: np.ndarray, b: np.ndarray, m: int, n: int, k: int,
                 transpose_a: bool, transpose_b: bool, threads: int) -> tuple:
    """(call, out): `call()` runs the product into `out` on `threads` threads."""
    work = aligned_empty((threads * library.wf_gemm_strips_workspace(m),), np.float32)
    out = aligned_empty((m, n), np.float32)

    def call() -> None:
        library.wf_gemm_strips_f32(m, n, k, a.ctypes.data, a.shape[1], int(transpose_a), b.ctypes.data, b.shape[1],
                                   int(transpose_b), None, out.ctypes.data, work.ctypes.data, threads)
    return call, out


def compare(libraries: dict, shape: str, threads: int, rounds: int, rng: np.random.Generator) -> str:
    parts = shape.split("x")
    m, n, k = (int(value) for value in parts[:3])
    transpose_a, transpose_b = "ta" in parts[3:], "tb" in parts[3:]
    a = random_aligned((k, m) if transpose_a else (m, k), rng)
    b = random_aligned((n, k) if transpose_b else (k, n), rng)
    calls = {name: product_call(library, a, b, m, n, k, transpose_a, transpose_b, threads)
             for name, library in libraries.items()}
    for call, _ in calls.values():
        call()
    outs = [out for _, out in calls.values()]
    same = all(np.array_equal(outs[0], out) for out in outs[1:])
    flops = 2.0 * m * n * k
    repeats = max(1, int(SECONDS_PER_BLOCK / (flops / 50e9)))
    seconds: dict = {name: [] for name in calls}
    for _ in range(rounds):
        for name, (call, _) in calls.items():
            call()
            start = time.perf_counter()
            for _ in range(repeats):
                call()
            seconds[name].append((time.perf_counter() - start) / repeats)
    figures = [f"{name} {statistics.median(times) * 1e6:,.0f} us (min {min(times) * 1e6:,.0f}) "
               f"{flops / statistics.median(times) / 1e9:.0f} GFLOP/s" for name, times in seconds.items()]
    return f"{shape} threads={threads} same={same}: " + ", ".join(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("libraries", help="NAME=PATH,NAME=PATH,...")
    parser.add_argument("--shapes", default="512x512x512,768x768x768,1024x1024x1024,2048x2048x2048,"
                        "400x10000x200,400x200x10000xtb,200x10000x400xta")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    libraries = {name: load(path) for name, path in (item.split("=", 1) for item in args.libraries.split(","))}
    rng = np.random.default_rng(0)
    print("load average:", " ".join(f"{value:.2f}" for value in os.getloadavg()), flush=True)
    for shape in args.shapes.split(","):
        for threads in (int(value) for value in args.threads.split(",")):
            print(compare(libraries, shape, threads, args.rounds, rng), flush=True)
    print("load average:", " ".join(f"{value:.2f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
