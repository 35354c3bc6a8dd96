"""CPU time per training step of the character LM (char_lm.py's worker), for a loaded machine.

    PYTHONPATH=. WEBFLOW_DATA=../shared/data python benchmarks/char_lm_cpu.py --engine webflow --threads 1
    PYTHONPATH=. WEBFLOW_DATA=../shared/data .venv-tf/bin/python benchmarks/char_lm_cpu.py --engine tensorflow
    ... --engine webflow --without-loop-fixes   # the engine as before the While-gradient and small-GEMM fixes

Wall time swings 2-3x between runs when other jobs share the cores; the CPU seconds a process spends on a step
(time.process_time: all its threads) swing far less. Prints char_lm.py's RESULT line, with ms_per_step in CPU ms.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def switch_off_loop_fixes() -> None:
    """The WhileGrad replays its loop, thin GEMMs from 2^22 multiply-adds, MatMul's C adapter from 2^14 elements of
    A, OpenBLAS keeps its threads for small products (benchmarks/FIGURES.md, "Character LSTM LM after ...")."""
    from webflow.backends.c import gemm, parallel
    from webflow.ops import functional_ops

    functional_ops._new_history = lambda *args: None
    gemm.THIN_MIN_MULTIPLY_ADDS = 1 << 22
    gemm.matmul.min_size = 1 << 14
    parallel.ONE_BLAS_THREAD = (0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["webflow", "tensorflow", "torch"], default="webflow")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--without-loop-fixes", action="store_true")
    args = parser.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # before NumPy loads
    if args.without_loop_fixes:
        switch_off_loop_fixes()
    sys.path.insert(0, HERE)
    import char_lm

    time.perf_counter = time.process_time  # char_lm times its steps with perf_counter
    char_lm.worker(args.engine, args.threads, args.steps)


if __name__ == "__main__":
    main()
