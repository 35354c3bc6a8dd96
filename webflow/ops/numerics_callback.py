"""`tf.debugging.enable_check_numerics()` / `disable_check_numerics()`: once enabled, every op whose floating-point
output holds a NaN or an infinity fails with InvalidArgumentError, in TensorFlow's words:

    !!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!

Eagerly the outputs are checked as the op returns (apply_op's `output_check`, ops/registry.py); in a `wf.function`
each floating output gets a CheckNumerics op (kept for its effect, so it runs on every call), as TensorFlow's op
callback instruments the function graph. TF1 graphs are not instrumented here (TensorFlow rewires their consumers to
the checked tensors). TensorFlow's graph message ends with the op's creation stack trace, left out here.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.func_graph import FuncGraph
from webflow.ops import registry
from webflow.ops.numerics_ops import check_numerics

# Ops TensorFlow's callback never checks: control flow and function calls (op_callbacks_common.py), ops that only
# move values, which cannot make a NaN their input did not hold (SAFE_OPS), and the check itself
SKIPPED = frozenset({
    "Enter", "Exit", "Identity", "If", "LoopCond", "Merge", "NextIteration", "StatelessIf", "StatefulPartitionedCall",
    "PartitionedCall", "Switch", "While", "RemoteCall", "DestroyResourceOp",
    "Concat", "ConcatV2", "ExpandDims", "Fill", "Gather", "Maximum", "Minimum", "Reshape", "Slice", "Squeeze", "Stack",
    "StridedSlice", "StridedSliceGrad", "TensorListConcatV2", "TensorListGather", "TensorListGetItem",
    "TensorListPopBack", "TensorListStack", "Transpose", "Unpack",
    "CheckNumerics", "CheckNumericsV2",
})
# outputs that are NaN by design (batch statistics of an empty batch), as TensorFlow's IGNORE_OP_OUTPUTS
IGNORED_SLOTS = {"FusedBatchNorm": (1, 2, 3, 4), "FusedBatchNormV2": (1, 2, 3, 4), "FusedBatchNormV3": (1, 2, 3, 4, 5)}


def enable_check_numerics(stack_height_limit: int = 30, path_length_limit: int = 50) -> None:
    """From now on, an op whose floating output holds NaN or +-Inf raises InvalidArgumentError naming the op.
    (The limits shape TensorFlow's stack trace of the op's creation, which webflow's message leaves out.)"""
    registry.set_output_check(_check_outputs)


def disable_check_numerics() -> None:
    """Stops checking (ops traced into a wf.function meanwhile keep their checks, as in TensorFlow)."""
    registry.set_output_check(None)


def _checked_slots(opdef: Any, outputs: list) -> list:
    if opdef.type in SKIPPED:
        return []
    ignored = IGNORED_SLOTS.get(opdef.type, ())
    return [slot for slot, out in enumerate(outputs) if out.dtype.is_floating and slot not in ignored]


def _check_outputs(opdef: Any, inputs: list, outputs: list, op: Any) -> None:
    """apply_op's output_check: raises now (eagerly) or adds the checks to a wf.function's graph."""
    if op is not None and not isinstance(op.graph, FuncGraph):
        return
    for slot in _checked_slots(opdef, outputs):
        if op is not None:
            with op.graph.name_scope(op.name + "/"):  # TensorFlow's node: "Log/CheckNumericsV2"
                checked = check_numerics(outputs[slot], _message(slot, opdef.type, outputs, inputs, op.graph.name))
            op.graph.stateful_ops.append(checked.op)  # nothing reads it: run on every call, as a stateful op is
            continue
        counts = _anomalies(outputs[slot]._value)
        if counts is not None:
            text = _message(slot, opdef.type, outputs, inputs, None, counts)
            raise InvalidArgumentError(None, None, f"{text} : Tensor had {_found(counts)} values [Op:CheckNumericsV2]")


def _anomalies(value: Any) -> tuple | None:
    """(number of -Inf, of +Inf, of NaN) in `value`, or None when every element is finite."""
    if HAVE_NUMPY and isinstance(value, np.ndarray):
        if np.isfinite(value).all():  # the common case, without leaving NumPy
            return None
        flat = value.reshape(-1).astype(float).tolist()
    else:
        flat = [float(v) for v in backend_values.flat_list(value)]
    counts = (sum(1 for v in flat if v == -math.inf), sum(1 for v in flat if v == math.inf),
              sum(1 for v in flat if math.isnan(v)))
    return counts if any(counts) else None


def _found(counts: tuple) -> str:
    """CheckNumericsV2's words: "-Inf", "+Inf and NaN", "-Inf, +Inf, and NaN"."""
    words = [word for word, count in zip(("-Inf", "+Inf", "NaN"), counts) if count]
    if len(words) == 3:
        return f"{words[0]}, {words[1]}, and {words[2]}"
    return " and ".join(words)


def _message(slot: int, op_type: str, outputs: list, inputs: list, graph_name: str | None,
             counts: tuple | None = None) -> str:
    """TensorFlow's get_check_numerics_error_message, without the stack trace of the op's creation."""
    tensor = outputs[slot]
    where = "graph" if graph_name is not None else "eagerly-executing"
    lines = ["", "", f'!!! Detected Infinity or NaN in output {slot} of {where} op "{op_type}" '
                     f"(# of outputs: {len(outputs)}) !!!",
             f"  dtype: <dtype: '{tensor.dtype.name}'>", f"  shape: {tensor.shape}"]
    for word, count in zip(("-Inf", "+Inf", "+NaN"), counts or ()):
        if count:
            lines.append(f"  # of {word} elements: {count}")
    if len(inputs) > 1:
        lines += ["", f"  Input tensors ({len(inputs)}):"] + [f"         {k}: {t!s}" for k, t in enumerate(inputs)]
    elif inputs:
        lines += ["", f"  Input tensor: {inputs[0]!s}"]
    if graph_name:
        lines.append(f'  Graph name: "{graph_name}"')
    return "\n".join(lines) + "\n\n"


__all__ = ["disable_check_numerics", "enable_check_numerics"]
