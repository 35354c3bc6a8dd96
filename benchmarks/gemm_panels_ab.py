"""gemm_strips.c with a transposed A read in place or copied into panels first, interleaved in one process.

    PYTHONPATH=. python benchmarks/gemm_panels_ab.py [--before OLD.so] [--after NEW.so | NAME=NEW.so,NAME=...]
        [--shapes 1024x1024x1024xta,1024x1024x1024] [--rounds 15] [--threads 1,2]

A shape is MxNxK (C[m, n] = op(A)[m, k] op(B)[k, n]), `ta` / `tb` after it for a transposed A / B. Variants, all
on the same 64-byte aligned operands, taking turns round after round (one untimed call, then ~30 ms of calls):
  before    wf_gemm_strips_f32 of --before (a library without panels, e.g. a build of `git archive HEAD`)
  in_place  wf_gemm_strips_panels_f32 of (the first) --after with panels NULL (A read in place)
  panels    the same with panels allocated per call, as the MatMul adapter does (gemm_strips.packs_a); with
            several --after libraries, one such variant per library, by its NAME
Printed per variant: median and min microseconds per call and, on one thread, the median CPU time of the calling
thread (the kernel runs there: less sensitive to a loaded machine's preemptions); `same`: identical bits.
Label the figures with the load average printed.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import time

import numpy as np

from webflow.backends.arrays.numpy_arrays import aligned_empty
from webflow.wasm import build

SIZE, POINTER = ctypes.c_ssize_t, ctypes.c_void_p
SECONDS_PER_BLOCK = 0.03


def load(path: str) -> ctypes.CDLL:
    library = ctypes.CDLL(os.path.abspath(path))
    library.wf_gemm_strips_f32.argtypes = [SIZE, SIZE, SIZE, POINTER, SIZE, ctypes.c_int, POINTER, SIZE,
                                           ctypes.c_int, POINTER, POINTER, POINTER, SIZE]
    library.wf_gemm_strips_workspace.restype, library.wf_gemm_strips_workspace.argtypes = SIZE, [SIZE]
    if hasattr(library, "wf_gemm_strips_panels_f32"):
        library.wf_gemm_strips_panels_f32.argtypes = [SIZE, SIZE, SIZE, POINTER, SIZE, ctypes.c_int, POINTER, SIZE,
                                                      ctypes.c_int, POINTER, POINTER, POINTER, POINTER, SIZE]
        library.wf_gemm_strips_panels_size.restype, library.wf_gemm_strips_panels_size.argtypes = SIZE, [SIZE, SIZE]
    return library


def variants(before: ctypes.CDLL | None, after: dict, shape: tuple, a: np.ndarray, b: np.ndarray,
             threads: int) -> dict:
    """name -> (call, out) for the variants of the module docstring."""
    m, n, k, transpose_a, transpose_b = shape

    def make(library: ctypes.CDLL, panels: str) -> tuple:
        work = aligned_empty((threads * library.wf_gemm_strips_workspace(m),), np.float32)
        out = aligned_empty((m, n), np.float32)

        def call() -> None:  # (reads the arrays' addresses here: the closure keeps `work` alive)
            head = (m, n, k, a.ctypes.data, a.shape[1], int(transpose_a), b.ctypes.data, b.shape[1],
                    int(transpose_b), None, out.ctypes.data, work.ctypes.data)
            if panels == "old":
                library.wf_gemm_strips_f32(*head, threads)
            elif panels == "none":
                library.wf_gemm_strips_panels_f32(*head, None, threads)
            else:
                packed = aligned_empty((library.wf_gemm_strips_panels_size(m, k),), np.float32)
                library.wf_gemm_strips_panels_f32(*head, packed.ctypes.data, threads)
        return call, out

    chosen = {"before": make(before, "old")} if before is not None else {}
    chosen["in_place"] = make(next(iter(after.values())), "none")
    for name, library in after.items():
        chosen[name] = make(library, "panels")
    return chosen


def compare(before: ctypes.CDLL | None, after: dict, text: str, threads: int, rounds: int,
            rng: np.random.Generator) -> str:
    parts = text.split("x")
    m, n, k = (int(value) for value in parts[:3])
    transpose_a, transpose_b = "ta" in parts[3:], "tb" in parts[3:]
    a = aligned_empty((k, m) if transpose_a else (m, k), np.float32)
    a[...] = rng.standard_normal(a.shape)
    b = aligned_empty((n, k) if transpose_b else (k, n), np.float32)
    b[...] = rng.standard_normal(b.shape)
    calls = variants(before, after, (m, n, k, transpose_a, transpose_b), a, b, threads)
    for call, _ in calls.values():
        call()
    outs = [out for _, out in calls.values()]
    same = all(np.array_equal(outs[0], out) for out in outs[1:])
    repeats = max(1, int(SECONDS_PER_BLOCK / (2.0 * m * n * k / 100e9)))
    wall: dict = {name: [] for name in calls}
    cpu: dict = {name: [] for name in calls}
    for _ in range(rounds):
        for name, (call, _) in calls.items():
            call()
            start, start_cpu = time.perf_counter(), time.thread_time()
            for _ in range(repeats):
                call()
            wall[name].append((time.perf_counter() - start) / repeats)
            cpu[name].append((time.thread_time() - start_cpu) / repeats)
    figures = []
    for name in calls:
        figure = f"{name} {statistics.median(wall[name]) * 1e6:,.0f} us (min {min(wall[name]) * 1e6:,.0f}"
        figure += f", cpu {statistics.median(cpu[name]) * 1e6:,.0f})" if threads == 1 else ")"
        figures.append(figure)
    return f"{text} threads={threads} same={same}: " + ", ".join(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a library without wf_gemm_strips_panels_f32 (optional)")
    parser.add_argument("--after", default=None, help="default: this checkout's native library")
    parser.add_argument("--shapes", default="1024x1024x1024xta,1024x1024x1024,2048x2048x2048xta,"
                        "1024x1024x1024xtaxtb,200x10000x400xta,1024x64x1024xta")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    before = load(args.before) if args.before else None
    named = (item.split("=", 1) for item in (args.after or build.build_native()).split(","))
    after = {pair[0] if len(pair) == 2 else "panels": load(pair[-1]) for pair in named}
    rng = np.random.default_rng(0)
    print("load average:", " ".join(f"{value:.2f}" for value in os.getloadavg()), flush=True)
    for shape in args.shapes.split(","):
        for threads in (int(value) for value in args.threads.split(",")):
            print(compare(before, after, shape, threads, args.rounds, rng), flush=True)
    print("load average:", " ".join(f"{value:.2f}" for value in os.getloadavg()))


if __name__ == "__main__":
    main()
