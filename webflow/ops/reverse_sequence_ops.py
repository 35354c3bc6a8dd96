"""ReverseSequence (`tf.reverse_sequence`): reverses the first seq_lengths[b] entries of each batch entry b along
seq_axis, leaving the rest in place (what bidirectional_dynamic_rnn feeds its backward cell).

Both kernels (NumPy, and portable for Pyodide) read through one index map, `source_positions`.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.registry import apply_op, register_gradient, register_op
from webflow.ops.shapes import same_as_input


def source_positions(shape: tuple, lengths: list, seq_dim: int, batch_dim: int) -> list:
    """For each flat output position (row-major), the flat input position it copies."""
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * shape[axis + 1]
    total = 1
    for size in shape:
        total *= size
    positions = []
    for flat in range(total):
        b = (flat // strides[batch_dim]) % shape[batch_dim]
        t = (flat // strides[seq_dim]) % shape[seq_dim]
        length = lengths[b]
        positions.append(flat + (length - 1 - 2 * t) * strides[seq_dim] if t < length else flat)
    return positions


def _check(shape: tuple, lengths: list, seq_dim: int, batch_dim: int) -> None:
    if len(lengths) != shape[batch_dim]:
        raise InvalidArgumentError(None, None, f"Length of seq_lengths != input.dims({batch_dim}), "
                                               f"({len(lengths)} vs. {shape[batch_dim]})")
    for b, length in enumerate(lengths):
        if length < 0:
            raise InvalidArgumentError(None, None, f"seq_lengths({b}) < 0")
        if length > shape[seq_dim]:
            raise InvalidArgumentError(None, None, f"seq_lengths({b}) > input.dims({seq_dim})")


def _portable_reverse_sequence(x: Any, seq_lengths: Any, *, seq_dim: int, batch_dim: int = 0) -> Any:
    """The same map on a CArray (no NumPy)."""
    from webflow.backends.arrays.carray import CArray
    from webflow.backends.arrays.object_buffer import new_buffer
    from webflow.backends.c.adapters import flat_ints

    shape, lengths = tuple(x.shape), flat_ints(seq_lengths)
    _check(shape, lengths, seq_dim, batch_dim)
    picked = [x.data[p] for p in source_positions(shape, lengths, seq_dim, batch_dim)]
    return CArray(new_buffer(x.data.typecode, picked), shape, x.dtype)


@register_op("ReverseSequence", "ReverseSequence", inputs=("input", "seq_lengths"), shape=same_as_input,
             portable=_portable_reverse_sequence)
def reverse_sequence_kernel(x: Any, seq_lengths: Any, *, seq_dim: int, batch_dim: int = 0) -> Any:
    """y[b, t] = x[b, seq_lengths[b] - 1 - t] for t < seq_lengths[b], else x[b, t] (axes seq_dim, batch_dim)."""
    x = np.asarray(x)
    lengths = [int(n) for n in np.asarray(seq_lengths).reshape(-1)]
    _check(x.shape, lengths, seq_dim, batch_dim)
    positions = np.array(source_positions(x.shape, lengths, seq_dim, batch_dim), np.int64)
    return x.reshape(-1)[positions].reshape(x.shape) if x.size else x.copy()


@register_gradient("ReverseSequence")
def _reverse_sequence_grad(op: Any, grad: Any) -> list:
    """dx = reverse_sequence(grad, seq_lengths): the map is its own inverse."""
    attrs = {"seq_dim": op.get_attr("seq_dim"), "batch_dim": op.get_attr("batch_dim")}
    return [apply_op("ReverseSequence", [grad, op.inputs[1]], attrs), None]


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None, batch_axis: int | None = None,  # noqa: A002
                     name: str | None = None, seq_dim: int | None = None, batch_dim: int | None = None) -> Any:
    """TensorFlow's tf.reverse_sequence (TF1 also accepts seq_dim / batch_dim)."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else (batch_dim if batch_dim is not None else 0)
    from webflow.ops.convert import convert_to_tensor

    lengths = convert_to_tensor(seq_lengths, dtype=dtypes.int64) if not hasattr(seq_lengths, "dtype") \
        else seq_lengths
    return apply_op("ReverseSequence", [input, lengths], {"seq_dim": seq_axis, "batch_dim": batch_axis},
                    name=name)
