"""DynamicStitch (`tf.dynamic_stitch`): the rows of several tensors interleaved into one by lists of indices.
TensorFlow's reductions use it in their gradients (sum_mean_ops.reduced_shape: a shape with the reduced axes set to
1, when the shape or the axes are known only at run time), so tf.gradients builds it as TensorFlow does.
One stanza (shape rule, NumPy kernel with the math in its docstring, gradient rule, TensorFlow-named wrapper).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import stitch_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.convert import convert_to_tensor, folded_int_values
from webflow.ops.math_ops import cast
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op


def _stitch_shape(inputs: list, attrs: dict) -> tuple:
    """[max index + 1 (when every index list is a constant), *data[0].shape[indices[0].rank:]]."""
    count = attrs["N"]
    indices, data = inputs[:count], inputs[count:]
    if len(data) != count:
        raise ShapeError(f"DynamicStitch takes {count} index lists and {count} data tensors, got {len(data)} data")
    tail = None
    for index, value in zip(indices, data):
        if index.shape.rank is not None and value.shape.rank is not None:
            if value.shape.rank < index.shape.rank:
                raise ShapeError(f"data has rank {value.shape.rank}, below its indices' rank {index.shape.rank}")
            tail = list(value.shape.as_tuple()[index.shape.rank:])
            break
    known = [folded_int_values(index) for index in indices]
    rows = None
    if all(value is not None for value in known):
        flat = [i for value in known for i in value]
        rows = max(flat) + 1 if flat else 0
    return output_spec(None if tail is None else [rows] + tail, data[0].dtype.base_dtype)


@register_op("DynamicStitch", "DynamicStitch", inputs=("*indices",), shape=_stitch_shape,
             portable=stitch_kernels.dynamic_stitch)
def dynamic_stitch_kernel(*args: Any, N: int) -> Any:  # noqa: N803 - TensorFlow's attr name
    """merged[indices[m][i, ..., j], ...] = data[m][i, ..., j, ...]; where indices repeat, the later m (and,
    within one list, the later position) wins."""
    indices, data = args[:N], args[N:]
    flat = [np.asarray(index).reshape(-1) for index in indices]
    tail = np.shape(data[0])[np.ndim(indices[0]):]
    rows = max((int(index.max()) + 1 for index in flat if index.size), default=0)
    if any(index.size and int(index.min()) < 0 for index in flat):
        raise InvalidArgumentError(None, None, "DynamicStitch: indices must be non-negative")
    merged = np.zeros((rows,) + tuple(tail), dtype=np.asarray(data[0]).dtype)
    for index, value in zip(flat, data):
        rows_of_value = np.asarray(value).reshape((index.size,) + tuple(tail))
        for position, row in enumerate(index.tolist()):  # in order: a repeated index keeps the last row
            merged[row] = rows_of_value[position]
    return merged


@register_gradient("DynamicStitch")
def _dynamic_stitch_grad(op: Any, grad: Any) -> list:
    """d merged / d data[m] = the rows of grad that data[m] went to (gathered by its indices); none for indices."""
    count = len(op.inputs) // 2
    indices = [op.inputs[i] if op.inputs[i].dtype.base_dtype is dtypes.int32 else cast(op.inputs[i], dtypes.int32)
               for i in range(count)]
    return [None] * count + [apply_op("GatherV2", [grad, index, backend_values.array(0, dtypes.int32)],
                                      {"batch_dims": 0}) for index in indices]  # (gather_ops.gather)


def dynamic_stitch(indices: list, data: list, name: str | None = None) -> Any:
    """`tf.dynamic_stitch`: node "DynamicStitch" (Python lists become Consts "indices_<i>" and "data_<i>")."""
    if len(indices) != len(data):
        raise ValueError(f"List argument 'data' to 'DynamicStitch' Op with length {len(data)} must match length "
                         f"{len(indices)} of argument 'indices'.")
    with op_scope(name or "DynamicStitch") as scope:
        index_tensors = [convert_to_tensor(value, dtype=dtypes.int32, name=f"indices_{i}")
                         for i, value in enumerate(indices)]
        data_tensors = [convert_to_tensor(value, name=f"data_{i}") for i, value in enumerate(data)]
        return apply_op("DynamicStitch", index_tensors + data_tensors, {"N": len(indices)}, name=scope or None)
