"""The cores' peak float32 FLOP/s, measured: a loop of independent FMAs in C, on 1 and on N threads.

    python benchmarks/peak_flops.py [--threads 2] [--seconds 0.5]

The C source below is compiled at run time by the compiler the native library uses (webflow/wasm/build.py's
`native_compiler`, i.e. $CC or cc), with the widest vectors this CPU has (AVX-512, else AVX2+FMA, else the
compiler's default). Each thread keeps ACCUMULATORS independent vector FMA chains, enough to hide the FMA
latency on both FMA pipes, so the loop runs at the issue rate: this is the figure a GEMM can approach, not
exceed. Prints one JSON line: {"benchmark": "peak_flops", "gflops_1_thread", "gflops_all_threads", ...}.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = r"""
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define ACCUMULATORS 12
typedef float vec __attribute__((vector_size(WIDTH * 4)));
static long iterations;
static void *spin(void *out) {
    vec acc[ACCUMULATORS], x, y;
    for (int i = 0; i < WIDTH; i++) { x[i] = 0.999999f; y[i] = 1e-7f; }
    for (int j = 0; j < ACCUMULATORS; j++) acc[j] = y * (float)(j + 1);
    for (long n = 0; n < iterations; n++)
        for (int j = 0; j < ACCUMULATORS; j++) acc[j] = acc[j] * x + y;  /* one FMA per lane */
    float s = 0;
    for (int j = 0; j < ACCUMULATORS; j++) for (int i = 0; i < WIDTH; i++) s += acc[j][i];
    *(float *)out = s;  /* keeps the loop from being optimized away */
    return 0;
}
int main(int argc, char **argv) {
    int threads = atoi(argv[1]); iterations = atol(argv[2]);
    pthread_t ids[64]; float sums[64]; struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int t = 0; t < threads; t++) pthread_create(&ids[t], 0, spin, &sums[t]);
    for (int t = 0; t < threads; t++) pthread_join(ids[t], 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    printf("%.9f %g\n", seconds, (double)sums[0]);
    return 0;
}
"""


def compile_probe(directory: str) -> tuple[str, int, str]:
    """(executable, floats per vector, flags) built with webflow's native compiler."""
    sys.path.insert(0, REPO)
    from webflow.wasm import build

    compiler = build.native_compiler()
    if compiler is None:
        raise SystemExit("no C compiler ($CC, cc, gcc or clang)")
    flags = set(build._cpu_flags())
    if {"avx512f", "avx2", "fma"} <= flags:
        width, arch = 16, ["-mavx512f", "-mfma"]
    elif {"avx2", "fma"} <= flags:
        width, arch = 8, ["-mavx2", "-mfma"]
    else:
        width, arch = 4, []
    source = os.path.join(directory, "peak.c")
    with open(source, "w") as file:
        file.write(SOURCE)
    executable = os.path.join(directory, "peak")
    command = [*compiler, "-O3", "-funroll-loops", f"-DWIDTH={width}", *arch, source, "-o", executable, "-lpthread"]
    subprocess.run(command, check=True)
    return executable, width, " ".join(arch) or "default"


def gflops(executable: str, width: int, threads: int, seconds: float) -> float:
    """The best of 7 runs: FLOP/s counted as 2 per FMA lane."""
    iterations = 1 << 20
    elapsed = float(subprocess.run([executable, "1", str(iterations)], capture_output=True, text=True,
                                   check=True).stdout.split()[0])
    iterations = max(iterations, int(iterations * seconds / max(elapsed, 1e-6)))
    best = float("inf")
    for _ in range(7):
        out = subprocess.run([executable, str(threads), str(iterations)], capture_output=True, text=True, check=True)
        best = min(best, float(out.stdout.split()[0]))
    return 2 * 12 * width * iterations * threads / best / 1e9


def measure(threads: int, seconds: float) -> dict:
    with tempfile.TemporaryDirectory() as directory:
        executable, width, flags = compile_probe(directory)
        return {"benchmark": "peak_flops", "unit": "GFLOP/s", "vector_floats": width, "flags": flags,
                "gflops_1_thread": round(gflops(executable, width, 1, seconds), 1),
                "threads": threads, "gflops_all_threads": round(gflops(executable, width, threads, seconds), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description="peak float32 FLOP/s of the cores (an FMA loop in C)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one timed run")
    args = parser.parse_args()
    print(json.dumps(measure(args.threads, args.seconds)))


if __name__ == "__main__":
    main()
