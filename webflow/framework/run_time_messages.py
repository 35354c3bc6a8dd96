"""TensorFlow's run-time error messages for common ops, from the values a failed kernel was given.

A kernel that meets bad shapes fails in its own words: NumPy's ("Input operand 1 has a mismatch in its core
dimension 0, with gufunc signature ..."), or a C adapter's. The executor (runtime/executor.py) and eager
dispatch (ops/registry.py) ask `tensorflow_message` what TensorFlow's CPU kernel says for the same inputs, so a
learner reads TensorFlow's words on every backend. Asked only after a kernel failed: it costs nothing on the
normal path. The messages are TensorFlow 2.x's (checked against TF 2.21 by tests/test_run_time_messages.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def dims_text(shape: Any) -> str:
    """A shape as TensorFlow's kernels print it: [2,3]."""
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def shape_of(value: Any) -> tuple:
    """The shape of a kernel input: an ndarray, a CArray, a portable array, or a Python scalar (shape ())."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return tuple(int(d) for d in shape)
    if isinstance(value, (list, tuple)):
        return (len(value),) + (shape_of(value[0]) if value else ())
    return ()


def ints_of(value: Any) -> list:
    """An axis, a perm or a shape vector as a flat list of ints."""
    listed = value.tolist() if hasattr(value, "tolist") else value
    if not isinstance(listed, (list, tuple)):
        return [int(listed)]
    flat: list = []
    for item in listed:
        flat.extend(ints_of(item))
    return flat


def broadcast_message(x: tuple, y: tuple) -> str | None:
    """BinaryOp: `Incompatible shapes: [2,3] vs. [4]` when x and y do not broadcast."""
    for a, b in zip(reversed(x), reversed(y)):
        if a != b and a != 1 and b != 1:
            return f"Incompatible shapes: {dims_text(x)} vs. {dims_text(y)}"
    return None


def matmul_message(x: tuple, y: tuple, transpose_x: bool, transpose_y: bool) -> str | None:
    """MatMul / BatchMatMulV2: the inner dimensions must agree, the batch dimensions broadcast."""
    if len(x) < 2 or len(y) < 2:
        return f"In[0] and In[1] has different ndims: {dims_text(x)} vs. {dims_text(y)}"
    if broadcast_message(x[:-2], y[:-2]) is not None:
        return f"In[0] and In[1] must have compatible batch dimensions: {dims_text(x)} vs. {dims_text(y)}"
    inner_x = x[-2] if transpose_x else x[-1]
    inner_y = y[-1] if transpose_y else y[-2]
    if inner_x != inner_y:
        return f"Matrix size-incompatible: In[0]: {dims_text(x)}, In[1]: {dims_text(y)}"
    return None


def reshape_message(x: tuple, requested: list) -> str | None:
    size = 1
    for d in x:
        size *= d
    known = 1
    for d in requested:
        known *= d if d != -1 else 1
    if -1 in requested:
        if known and size % known == 0:
            return None
        return (f"Input to reshape is a tensor with {size} values, but the requested shape requires a multiple "
                f"of {known}")
    if known != size:
        return f"Input to reshape is a tensor with {size} values, but the requested shape has {known}"
    return None


def concat_message(shapes: list, axis: int) -> str | None:
    first = shapes[0]
    axis = axis + len(first) if axis < 0 else axis
    for i, shape in enumerate(shapes[1:], 1):
        if len(shape) != len(first):
            return (f"ConcatOp : Ranks of all input tensors should match: shape[0] = {dims_text(first)} vs. "
                    f"shape[{i}] = {dims_text(shape)}")
        for dim, (a, b) in enumerate(zip(first, shape)):
            if dim != axis and a != b:
                return (f"ConcatOp : Dimension {dim} in both shapes must be equal: shape[0] = {dims_text(first)} "
                        f"vs. shape[{i}] = {dims_text(shape)}")
    return None


def pack_message(shapes: list) -> str | None:
    for i, shape in enumerate(shapes[1:], 1):
        if shape != shapes[0]:
            return (f"Shapes of all inputs must match: values[0].shape = {dims_text(shapes[0])} != "
                    f"values[{i}].shape = {dims_text(shape)}")
    return None


def reduction_message(x: tuple, axes: list) -> str | None:
    for axis in axes:
        if not -len(x) <= axis < len(x):
            return f"Invalid reduction dimension ({axis} for input with {len(x)} dimension(s)"  # TF's ( unclosed
    return None


def transpose_message(x: tuple, perm: list) -> str | None:
    if len(perm) != len(x):
        return f"transpose expects a vector of size {len(x)}. But input(1) is a vector of size {len(perm)}"
    return None


def expand_dims_message(x: tuple, axis: int) -> str | None:
    if not -1 - len(x) <= axis <= len(x):
        return f"Tried to expand dim index {axis} for tensor with {len(x)} dimensions."
    return None


def arg_reduce_message(x: tuple, axis: int) -> str | None:
    if not -len(x) <= axis < len(x):
        return f"Expected dimension in the range [{-len(x)}, {len(x)}), but got {axis}"
    return None


def fill_message(dims: list) -> str | None:
    for d in dims:
        if d < 0:
            return f"Dimension {d} must be >= 0"
    return None


def softmax_xent_message(logits: tuple, labels: tuple) -> str | None:
    if broadcast_message(logits, labels) is not None:
        return (f"logits and labels must be broadcastable: logits_size={dims_text(logits)} "
                f"labels_size={dims_text(labels)}")
    return None


def bias_count_message(bias: Any, value: Any) -> str:
    """BiasAdd: the bias needs one entry per channel (TF 2.x says "last dimension" in every data format)."""
    return (f"Must provide as many biases as the last dimension of the input tensor: {dims_text(bias)} vs. "
            f"{dims_text(value)}")


def _reduction(values: list, attrs: dict) -> str | None:
    return reduction_message(shape_of(values[0]), ints_of(values[1]))


def _range(values: list, attrs: dict) -> str | None:
    delta = values[2].tolist() if hasattr(values[2], "tolist") else values[2]
    return f"Requires delta != 0: {delta:g}" if delta == 0 else None


_BROADCASTING_RULES = ("broadcast_binary", "broadcast_comparison")

# op type -> (input values, attrs) -> TensorFlow's message, or None when the inputs look fine to TensorFlow
_BY_OP_TYPE: dict[str, Callable[[list, dict], str | None]] = {
    "MatMul": lambda v, a: matmul_message(shape_of(v[0]), shape_of(v[1]), a["transpose_a"], a["transpose_b"]),
    "BatchMatMulV2": lambda v, a: matmul_message(shape_of(v[0]), shape_of(v[1]), a["adj_x"], a["adj_y"]),
    "Reshape": lambda v, a: reshape_message(shape_of(v[0]), ints_of(v[1])),
    "ConcatV2": lambda v, a: concat_message([shape_of(x) for x in v[:-1]], ints_of(v[-1])[0]),
    "Pack": lambda v, a: pack_message([shape_of(x) for x in v]),
    "Sum": _reduction, "Mean": _reduction, "Max": _reduction, "Min": _reduction, "Prod": _reduction,
    "All": _reduction, "Any": _reduction,
    "Transpose": lambda v, a: transpose_message(shape_of(v[0]), ints_of(v[1])),
    "ExpandDims": lambda v, a: expand_dims_message(shape_of(v[0]), ints_of(v[1])[0]),
    "ArgMax": lambda v, a: arg_reduce_message(shape_of(v[0]), ints_of(v[1])[0]),
    "ArgMin": lambda v, a: arg_reduce_message(shape_of(v[0]), ints_of(v[1])[0]),
    "Range": _range,
    "Fill": lambda v, a: fill_message(ints_of(v[0])),
    "SoftmaxCrossEntropyWithLogits": lambda v, a: softmax_xent_message(shape_of(v[0]), shape_of(v[1])),
}


def tensorflow_message(op_type: str, shape_rule: Callable, values: list, attrs: dict) -> str | None:
    """What TensorFlow's kernel says for these inputs, or None when this table does not know the op (or the
    inputs look fine to it: the kernel failed for another reason, whose own message then stands)."""
    rule = _BY_OP_TYPE.get(op_type)
    try:
        if rule is not None:
            return rule(values, attrs)
        # every binary op sharing AddV2's (or Less's) broadcasting shape rule (ops/shapes.py) fails at run time as
        # TensorFlow's BinaryOp does
        if getattr(shape_rule, "__name__", "") in _BROADCASTING_RULES and len(values) == 2:
            return broadcast_message(shape_of(values[0]), shape_of(values[1]))
    except (TypeError, ValueError, IndexError, KeyError, AttributeError):
        return None  # inputs this table cannot read: the kernel's own message stands
    return None


__all__ = ["tensorflow_message", "bias_count_message", "dims_text", "shape_of", "broadcast_message", "matmul_message"]
