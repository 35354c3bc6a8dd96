"""Interleaved A/B of the row softmax kernels of two native library builds, in one process.

    PYTHONPATH=. python benchmarks/softmax_rows_ab.py --old /tmp/old.so --new webflow/wasm/_build/libwebflow_kernels*.so

Loads both libraries with ctypes and calls, alternating old / new block by block (so a neighbour's load on the
shared machine hits both alike): wf_softmax_rows_f32 on [1024, 1024] (the size sweep's softmax point) and
wf_sparse_softmax_xent_rows_f32_i32 on [400, 10000] (a word LM's logits), each on 1 and 2 threads (the kernels'
`threads` argument), and softmax.c's one-thread wf_log_softmax_f32 on [1024, 1024]. Prints min and median
microseconds per call over all blocks, and the load average before and after.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import time

import numpy as np

P, S = ctypes.c_void_p, ctypes.c_ssize_t


def kernels(lib: ctypes.CDLL) -> dict:
    """name -> a function of (threads) running one call on this module's fixed arrays."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((1024, 1024)) * 4).astype(np.float32)
    y = np.empty_like(x)
    logits = (rng.standard_normal((400, 10000)) * 4).astype(np.float32)
    labels = rng.integers(0, 10000, 400).astype(np.int32)
    loss, backprop = np.empty(400, np.float32), np.empty_like(logits)
    softmax, xent, log_softmax = (lib.wf_softmax_rows_f32, lib.wf_sparse_softmax_xent_rows_f32_i32,
                                  lib.wf_log_softmax_f32)
    for fn in (softmax, xent, log_softmax):
        fn.restype = S
    ptr = [P(a.ctypes.data) for a in (x, y, logits, labels, loss, backprop)]
    return {
        "Softmax [1024, 1024]": lambda t: softmax(ptr[0], ptr[1], S(1024), S(1024), S(t)),
        "SparseSoftmaxXent [400, 10000]": lambda t: xent(ptr[2], ptr[3], ptr[4], ptr[5], S(400), S(10000), S(t)),
        "LogSoftmax [1024, 1024] (softmax.c)": lambda t: log_softmax(ptr[0], ptr[1], S(1024), S(1024)),
        "_keep": (x, y, logits, labels, loss, backprop),
    }


def block(run, threads: int, calls: int) -> list:
    run(threads)  # untimed: caches and the pool's workers warm
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        run(threads)
        times.append((time.perf_counter() - start) * 1e6)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--calls", type=int, default=30)
    options = parser.parse_args()
    builds = {name: kernels(ctypes.CDLL(os.path.abspath(path))) for name, path in (("old", options.old),
                                                                                   ("new", options.new))}
    print(f"load average {os.getloadavg()[0]:.2f}")
    for label in [k for k in builds["old"] if not k.startswith("_")]:
        for threads in (1,) if "LogSoftmax" in label else (1, 2):
            got = {"old": [], "new": []}
            for b in range(options.blocks):
                for name in ("old", "new") if b % 2 == 0 else ("new", "old"):
                    got[name] += block(builds[name][label], threads, options.calls)
            line = ", ".join(f"{name} {min(t):7.1f} / {statistics.median(t):7.1f}" for name, t in got.items())
            print(f"{label:38s} {threads} thread{'s' if threads > 1 else ' '}: us min / median: {line}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
