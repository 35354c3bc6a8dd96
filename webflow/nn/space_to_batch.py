"""`tf.nn.with_space_to_batch` and `tf.required_space_to_batch_paddings`: a dilated (atrous) operation run as the
plain one on a space-to-batch'ed input. With dilation rate r, the input's positions i, i+r, i+2r, ... land in one
batch entry, where they are neighbours; the plain op (a VALID convolution) then sees the dilated filter's taps
side by side, and BatchToSpaceND puts the results back. TensorFlow's depthwise and separable convolutions take
their `rate` this way, with the same constants (`dilation_rate`, `required_space_to_batch_paddings/paddings`,
...) in the graph when the shapes are known at build time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.framework import dtypes
from webflow.ops import array_ops
from webflow.ops.concat_ops import stack
from webflow.ops.constants import constant
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.registry import op_scope
from webflow.ops.space_batch_ops import batch_to_space_nd, known_ints, space_to_batch_nd


def _pairs_constant(pairs: list, name: str) -> Any:
    return constant(pairs, dtype=dtypes.int32, name=name)


def required_space_to_batch_paddings(input_shape: Any, block_shape: Any, base_paddings: Any = None,
                                     name: str | None = None) -> tuple:
    """(paddings, crops) making input_shape + base_paddings divisible by block_shape: the end padding grows by
    (B - (size + pad) % B) % B, and the crops take that extra back off after BatchToSpaceND."""
    with op_scope(name or "required_space_to_batch_paddings"):
        input_shape = convert_to_tensor(input_shape, dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtypes.int32, name="block_shape")
        count = block_shape.shape.as_tuple()[0]
        if count is None:
            raise ValueError(f"Shape {block_shape.shape} is not fully defined")
        if base_paddings is None:
            base_paddings = array_ops.zeros([count, 2], dtypes.int32)
        base_paddings = convert_to_tensor(base_paddings, dtypes.int32, name="base_paddings")
        sizes, blocks, base = known_ints(input_shape), known_ints(block_shape), known_ints(base_paddings)
        if sizes is not None and blocks is not None and base is not None:
            extra = [(b - (s + base[2 * i] + base[2 * i + 1]) % b) % b for i, (s, b) in enumerate(zip(sizes, blocks))]
            return (_pairs_constant([[base[2 * i], base[2 * i + 1] + extra[i]] for i in range(count)], "paddings"),
                    _pairs_constant([[0, e] for e in extra], "crops"))
        start, end = base_paddings[:, 0], base_paddings[:, 1]
        extra = (block_shape - (input_shape + start + end) % block_shape) % block_shape
        end = end + extra
        zero = constant(0, dtypes.int32)
        return (stack([stack([start[i], end[i]]) for i in range(count)], name="paddings"),
                stack([stack([zero, extra[i]]) for i in range(count)], name="crops"))


def _base_paddings(filter_shape: Any, count: int, rate: Any) -> Any:
    """SAME padding of the dilated filter: (k - 1) * r total per axis, the smaller half first."""
    known = known_ints(filter_shape)
    if known is not None and not hasattr(rate, "op"):
        dilated = [known[i] + (known[i] - 1) * (rate[i] - 1) - 1 for i in range(count)]
        return _pairs_constant([[d // 2, d - d // 2] for d in dilated], "stack")
    filter_shape = convert_to_tensor(filter_shape, dtypes.int32)
    sizes = filter_shape[:count]
    extra = sizes + (sizes - 1) * (convert_to_tensor(rate, dtypes.int32) - 1) - 1
    start = extra // 2
    return stack([stack([start[i], extra[i] - start[i]]) for i in range(count)])


def with_space_to_batch(input: Any, dilation_rate: Any, padding: str, op: Callable,  # noqa: A002
                        filter_shape: Any = None, spatial_dims: Any = None, data_format: str | None = None) -> Any:
    """op(SpaceToBatchND(input), num_spatial_dims, "VALID"), then BatchToSpaceND: `op` with its filter dilated by
    `dilation_rate` (or op(input, num_spatial_dims, padding) itself when every rate is 1)."""
    input = convert_to_tensor(input, name="input")  # noqa: A001
    dilation_rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
    if dilation_rate.shape.rank != 1:
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={dilation_rate} of rank "
                         f"{dilation_rate.shape.rank}")
    if dilation_rate.shape.as_tuple()[0] is None:
        raise ValueError(f"`dilation_rate.shape[0]` must be known. Received: dilation_rate={dilation_rate}")
    count = dilation_rate.shape.as_tuple()[0]
    first = 2 if data_format is not None and data_format.startswith("NC") else 1
    if list(spatial_dims or range(first, first + count)) != list(range(1, 1 + count)):
        raise NotImplementedError("webflow's with_space_to_batch supports the spatial dimensions right after the "
                                  "batch dimension (channels-last data) only")
    rate = known_ints(dilation_rate)
    if rate is not None and all(r == 1 for r in rate):
        return op(input, count, padding)
    if rate is not None and any(r < 1 for r in rate):
        raise ValueError("dilation_rate must be positive")
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        base = _base_paddings(convert_to_tensor(filter_shape, name="filter_shape"), count,
                              rate if rate is not None else dilation_rate)
    elif padding == "VALID":
        base = [[0, 0]] * count
    else:
        raise ValueError(f"Invalid padding method {padding!r}")
    dims = input.shape.as_tuple()[1:1 + count] if input.shape.rank is not None else [None]
    if None in dims:
        whole = array_ops.shape(input)
        dims = stack([whole[i] for i in range(1, 1 + count)])
    paddings, crops = required_space_to_batch_paddings(dims, dilation_rate, base)
    block = _known_or_tensor(dilation_rate)
    converted = space_to_batch_nd(input, block, _known_or_tensor(paddings))
    return batch_to_space_nd(op(converted, count, "VALID"), block, _known_or_tensor(crops))


def _known_or_tensor(tensor: Any) -> Any:
    """A value known at build time as a fresh constant (TensorFlow passes NumPy values there), else the tensor."""
    known = constant_value(tensor)
    return tensor if known is None else known
