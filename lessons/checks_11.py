"""The checkers of lesson 11 (performance). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from checks import Hint, exercise, hint_unless

from webflow.runtime.config import NodeExecStats, RunMetadata


def half(x: float) -> float:
    """x rounded to the nearest float16 (IEEE 754 binary16, Python's struct format 'e'); too large: OverflowError."""
    return struct.unpack("e", struct.pack("e", x))[0]


FLOAT16_MAX = 65504.0


# --- 11.1: time per op type -------------------------------------------------------------------------------------------
# A traced step as the executor records it: (node, op type, start µs, duration µs, backend). Two MatMuls, a MatMul run
# twice (in a loop), and ops whose start times are large — a sum of starts is not a time spent.
STATS = [("dense/MatMul", "MatMul", 0.0, 120.0, "numpy"), ("dense/BiasAdd", "BiasAdd", 125.0, 10.0, "numpy"),
         ("relu", "Relu", 140.0, 6.0, "native"), ("logits/MatMul", "MatMul", 150.0, 40.0, "numpy"),
         ("loop/MatMul", "MatMul", 200.0, 25.0, "native"), ("loop/MatMul", "MatMul", 230.0, 25.0, "native"),
         ("loss", "SparseSoftmaxCrossEntropyWithLogits", 300.0, 30.0, "native"), ("mean", "Mean", 340.0, 4.0, "numpy")]


def traced_step() -> RunMetadata:
    """STATS as a RunMetadata, the object a traced `sess.run` fills."""
    metadata = RunMetadata()
    for node, op_type, start, duration, backend in STATS:
        metadata.step_stats.dev_stats.append(NodeExecStats(node, op_type, start, duration, [], "", backend))
    return metadata


def _by_type() -> dict:
    totals: dict = {}
    for _, op_type, _, duration, _ in STATS:
        totals[op_type] = totals.get(op_type, 0.0) + duration
    return totals


@exercise("11.1")
def exercise_1(time_by_op_type: Callable) -> None:
    """time_by_op_type(run_metadata) -> {op type: total microseconds of its runs in the step}."""
    got = time_by_op_type(traced_step())
    hint_unless(got is not None, "time_by_op_type returned None: return a dict {op type: microseconds}.")
    hint_unless(isinstance(got, dict), f"time_by_op_type returned {type(got).__name__}: return a dict.")
    want = _by_type()
    nodes = {node for node, *_ in STATS}
    hint_unless(not set(got) & (nodes - set(want)), f"your keys are node names ({sorted(got)[:3]} ...): group by "
                "`stat.op_type`, so that every MatMul of the step adds to one entry.")
    hint_unless(set(got) != {"numpy", "native"}, "your keys are backends: group by the op's type instead.")
    hint_unless(set(got) == set(want), f"your keys are {sorted(got)}: there should be one per op type that ran "
                f"({len(want)} of them).")
    hint_unless(float(got["Mean"]) != 340.0,
                "your times are start times: the time an op took is `stat.all_end_rel_micros` (its duration, "
                "relative to its start), not `all_start_micros`.")
    hint_unless(abs(float(got["MatMul"]) - want["MatMul"]) < 1e-6, f"MatMul got {got['MatMul']} µs: add up *every* "
                "run of every MatMul node — a node that runs twice counts twice — rather than keeping the last one.")
    for op_type, micros in want.items():
        hint_unless(abs(float(got[op_type]) - micros) < 1e-6, f"{op_type} got {got[op_type]} µs: sum the durations "
                    "(`all_end_rel_micros`) of the stats whose `op_type` it is.")


# --- 11.2: the work a convolution does --------------------------------------------------------------------------------
CONVS = [(16, 28, 28, 1, 32, 5, "SAME"), (16, 14, 14, 32, 64, 5, "SAME"), (8, 28, 28, 3, 8, 5, "VALID"),
         (1, 10, 12, 4, 6, 3, "VALID")]


def _out(size: int, kernel: int, padding: str) -> int:
    return size if padding == "SAME" else size - kernel + 1


def _flops(batch: int, height: int, width: int, cin: int, cout: int, k: int, padding: str, *, per: int = 2,
           out_size: Callable = _out, with_cin: bool = True) -> int:
    return per * batch * out_size(height, k, padding) * out_size(width, k, padding) * cout * k * k * (
        cin if with_cin else 1)


@exercise("11.2")
def exercise_2(conv2d_flops: Callable) -> None:
    """conv2d_flops(batch, height, width, in_channels, out_channels, kernel_size, padding) -> floating-point operations
    of a stride-1 conv2d (a multiply and an add per filter tap)."""
    first = conv2d_flops(*CONVS[0])
    hint_unless(first is not None, "conv2d_flops returned None: return the number of operations.")
    hint_unless(isinstance(first, (int, float)), f"conv2d_flops returned {type(first).__name__}: return a number.")
    for case in CONVS:
        got, want = conv2d_flops(*case), _flops(*case)
        if got == want:
            continue
        hint_unless(got != _flops(*case, per=1), "you counted one operation per filter tap: each tap is a multiply "
                    "*and* an add (multiply-accumulate), two floating-point operations.")
        hint_unless(got != _flops(*case, with_cin=False), "each output value sums over the whole window in *every* "
                    "input channel: the filter has kernel_size × kernel_size × in_channels taps.")
        hint_unless(got != _flops(*case, out_size=lambda n, k, p: n), f"with padding {case[-1]!r} the output is "
                    "smaller than the input: a k-wide window fits (size − k + 1) times without padding.")
        hint_unless(got != _flops(*case, out_size=lambda n, k, p: n - k + 1), "with padding 'SAME' the output keeps "
                    "the input's height and width (the input is padded with zeros around).")
        raise Hint(f"for (batch, height, width, in, out, kernel, padding) = {case} you gave {got}: count output "
                   "positions × output channels × taps per output × operations per tap.")


# --- 11.3: a loss scale -----------------------------------------------------------------------------------------------
GRADIENT_SETS = [[3e-8, -1e-6, 2.5e-4, 0.0], [1.7, -0.02, 4e-9], [-120.0, 1e-7], [5e-10, 2e-9, -3e-9], [0.0, 0.0]]
LARGEST_SCALE = 2 ** 24


def _best_scale(gradients: list) -> int:
    largest = max(abs(g) for g in gradients)
    scale = LARGEST_SCALE
    while scale > 1 and largest * scale > FLOAT16_MAX:
        scale //= 2
    return scale


@exercise("11.3")
def exercise_3(loss_scale_for: Callable) -> None:
    """loss_scale_for(gradients) -> the largest power of two S, at most 2**24, with max|g| · S ≤ 65504 (float16's
    largest value); 1 if even S = 1 overflows."""
    for gradients in GRADIENT_SETS:
        scale = loss_scale_for(list(gradients))
        hint_unless(scale is not None, "loss_scale_for returned None: return the scale, a number.")
        hint_unless(isinstance(scale, (int, float)) and scale >= 1, f"for {gradients} you gave {scale!r}: a loss "
                    "scale multiplies the loss, so it is a number ≥ 1.")
        scale = float(scale)
        hint_unless(scale == 2.0 ** round(math.log2(scale)), f"{scale} is not a power of two: "
                    "multiplying by a power of two only changes the exponent, so scaling and unscaling lose nothing.")
        hint_unless(scale <= LARGEST_SCALE, f"{scale:g} is more than 2**24: stop there, as the exercise says.")
        largest = max(abs(g) for g in gradients)
        hint_unless(largest * scale <= FLOAT16_MAX, f"with S = {scale:g} the gradient {largest:g} becomes "
                    f"{largest * scale:g}: more than float16's largest value (65504), an inf — the step is lost.")
        hint_unless(scale == _best_scale(gradients), f"for {gradients} S = {scale:g} is safe but not the largest "
                    "safe power of two: the larger S, the more small gradients survive. Double it while the largest "
                    "gradient still fits.")
