"""How the C library's worker (wasm/parallel.c) wakes after an idle spell, and what it costs a block of calls.

    PYTHONPATH=. python benchmarks/pool_wake.py                      # both parts, the library webflow builds
    PYTHONPATH=. python benchmarks/pool_wake.py --blocks before=/tmp/old.so,after=webflow/wasm/_build/lib...so

1. Placement (a small C program, compiled with `cc` into a temporary folder): a thread sleeps on a futex; the
   main thread idles 1 / 10 / 100 ms, wakes it and spins 400 us (a job); printed: how often the woken thread
   started within the job, how late, and how often on the main thread's own CPU (where it cannot help), with the
   woken thread free to run anywhere and kept off the main thread's CPU (parallel.c's steer_workers).
2. Blocks (--blocks NAME=LIBRARY,...): the size sweep's pattern on the kernels themselves: --gap seconds idle, one
   untimed call, then ~4 ms of calls of gemm_strips (A.B, --size^2) and softmax_rows ([1024, 1024]) on 2
   threads, the libraries' blocks interleaved in one process (each library has its own pool); median / min
   microseconds per call, and the pool's counters (wf_parallel_counts: jobs posted to the worker, taken back
   unstarted, crowded decisions) for a library that has them.
Label the figures with the load average printed first: on a shared machine the neighbours decide a lot.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import tempfile
import time

PROBE_C = r"""
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
static long long ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
static int flag, seen_cpu; static long long seen;
static void *sleeper(void *unused) {
    (void)unused;
    for (;;) {
        while (!__atomic_load_n(&flag, __ATOMIC_SEQ_CST)) syscall(SYS_futex, &flag, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0);
        seen_cpu = sched_getcpu();
        __atomic_store_n(&seen, ns(), __ATOMIC_SEQ_CST);
        __atomic_store_n(&flag, 0, __ATOMIC_SEQ_CST);
    }
    return NULL;
}
int main(int argc, char **argv) {
    int idle_us = atoi(argv[1]), job_us = atoi(argv[2]), calls = atoi(argv[3]), steer = atoi(argv[4]);
    pthread_t thread;
    pthread_create(&thread, NULL, sleeper, NULL);
    cpu_set_t all;
    sched_getaffinity(0, sizeof all, &all);
    int started = 0, same = 0;
    long long late = 0;
    for (int i = 0; i < calls; ++i) {
        struct timespec idle = {idle_us / 1000000, (idle_us % 1000000) * 1000L};
        nanosleep(&idle, NULL);
        int cpu = sched_getcpu();
        cpu_set_t others = all;
        if (steer) CPU_CLR(cpu, &others);
        if (CPU_COUNT(&others) > 0) pthread_setaffinity_np(thread, sizeof others, &others);
        seen = 0;
        long long posted = ns();
        __atomic_store_n(&flag, 1, __ATOMIC_SEQ_CST);
        syscall(SYS_futex, &flag, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
        while (ns() - posted < job_us * 1000LL) {}
        long long at = __atomic_load_n(&seen, __ATOMIC_SEQ_CST);
        if (at) { ++started; late += at - posted; same += seen_cpu == sched_getcpu(); }
        while (__atomic_load_n(&flag, __ATOMIC_SEQ_CST)) {}
    }
    printf("%d %d %lld\n", started, same, started ? late / started / 1000 : -1);
    return 0;
}
"""


def placement(calls: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source, program = os.path.join(folder, "probe.c"), os.path.join(folder, "probe")
        with open(source, "w") as file:
            file.write(PROBE_C)
        subprocess.run(["cc", "-O2", "-pthread", source, "-o", program], check=True)
        for idle_us in (1000, 10000, 100000):
            for steer in (0, 1):
                out = subprocess.run([program, str(idle_us), "400", str(calls), str(steer)], check=True,
                                     capture_output=True, text=True).stdout.split()
                started, same, late = map(int, out)
                print(f"idle {idle_us // 1000:>3} ms, {'kept off the waker' if steer else 'free':>18}: started within "
                      f"the 400 us job {started}/{calls}, {late} us after the wake on average, on the waker's CPU "
                      f"{same}/{max(started, 1)}")


def kernel_calls(library: ctypes.CDLL, size: int) -> dict:
    import numpy as np

    ptr, size_t = ctypes.c_void_p, ctypes.c_ssize_t
    a, b = (np.random.default_rng(seed).standard_normal((size, size)).astype(np.float32) for seed in (0, 1))
    x = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32)  # the sweep's softmax 1024x1024
    out = np.empty((1024, 1024), np.float32)
    gemm = library.wf_gemm_strips_f32
    gemm.restype, gemm.argtypes = None, [size_t] * 3 + [ptr, size_t, ctypes.c_int, ptr, size_t, ctypes.c_int,
                                                         ptr, ptr, ptr, size_t]
    library.wf_gemm_strips_workspace.restype, library.wf_gemm_strips_workspace.argtypes = size_t, [size_t]
    work = np.empty(2 * library.wf_gemm_strips_workspace(size), np.float32)
    softmax = library.wf_softmax_rows_f32
    softmax.restype, softmax.argtypes = None, [ptr, ptr, size_t, size_t, size_t]
    return {
        "gemm_strips": lambda: gemm(size, size, size, a.ctypes.data, size, 0, b.ctypes.data, size, 0, None,
                                    out.ctypes.data, work.ctypes.data, 2),
        "softmax_rows": lambda: softmax(x.ctypes.data, out.ctypes.data, 1024, 1024, 2),
        "keep": (a, b, x, out, work),
    }


def counts(library: ctypes.CDLL) -> list | None:
    if not hasattr(library, "wf_parallel_counts"):
        return None
    values = (ctypes.c_ssize_t * 3)()
    library.wf_parallel_counts(values)
    return list(values)


def blocks(libraries: dict, size: int, gap: float, rounds: int) -> None:
    loaded = {name: ctypes.CDLL(path) for name, path in libraries.items()}
    calls = {name: kernel_calls(library, size) for name, library in loaded.items()}
    for kernel in ("gemm_strips", "softmax_rows"):
        for name in loaded:
            for _ in range(5):
                calls[name][kernel]()
        once = []
        for _ in range(5):
            started = time.perf_counter()
            calls[next(iter(loaded))][kernel]()
            once.append(time.perf_counter() - started)
        number = max(1, int(0.004 / min(once)))
        samples: dict = {name: [] for name in loaded}
        before = {name: counts(library) for name, library in loaded.items()}
        names = list(loaded)
        for index in range(rounds):
            for name in names[index % len(names):] + names[:index % len(names)]:
                time.sleep(gap)
                calls[name][kernel]()  # untimed, as in the sweep
                started = time.perf_counter()
                for _ in range(number):
                    calls[name][kernel]()
                samples[name].append((time.perf_counter() - started) / number * 1e6)
        for name, library in loaded.items():
            after = counts(library)
            pool = "" if after is None else "  posted {} taken back {} crowded {}".format(
                *(a - b for a, b in zip(after, before[name])))
            shape = f"{size}^2" if kernel == "gemm_strips" else "1024x1024"
            print(f"{kernel} {shape}, {rounds} blocks of {number} after {gap * 1000:.0f} ms idle, {name}: median "
                  f"{statistics.median(samples[name]):.0f} us, min {min(samples[name]):.0f}{pool}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", help="NAME=LIBRARY,... native libraries to compare (default: webflow's)")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--gap", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=20, help="wakes per placement case")
    parser.add_argument("--no-placement", action="store_true")
    args = parser.parse_args()
    print("#", subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip())
    if not args.no_placement:
        placement(args.calls)
    if args.blocks:
        libraries = dict(item.split("=", 1) for item in args.blocks.split(","))
    else:
        from webflow.backends.c import library

        library.library()
        libraries = {"webflow": library.library_path()}
    blocks(libraries, args.size, args.gap, args.rounds)


if __name__ == "__main__":
    main()
