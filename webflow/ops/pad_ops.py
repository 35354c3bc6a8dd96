"""Padding: Pad (zeros), PadV2 (a constant), MirrorPad (REFLECT / SYMMETRIC: the tensor's own mirror image) and
MirrorPadGrad (folds a mirror-padded gradient back), all behind `tf.pad`. One stanza per op (shape rule, NumPy
kernel with the math in its docstring, gradient rule, TensorFlow-named wrapper).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import array_kernels, index_kernels
from webflow.framework import dtypes
from webflow.ops import array_ops
from webflow.ops.concat_ops import stack
from webflow.ops.convert import constant_value
from webflow.ops.manip_ops import _int_vector
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op


# --- Pad, PadV2, MirrorPad ------------------------------------------------------------------------
def _pad_shape(inputs: list, attrs: dict) -> tuple:
    x, paddings_t = inputs[0], inputs[1]
    paddings = constant_value(paddings_t)
    rows = paddings_t.shape.as_tuple()[0] if paddings_t.shape.rank == 2 else None
    if paddings_t.shape.rank is not None and paddings_t.shape.rank != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {paddings_t.shape.rank}")
    rank = x.shape.rank if x.shape.rank is not None else rows
    if rank is None:
        return output_spec(None, x.dtype.base_dtype)
    if rows is not None and rows != rank:
        raise ShapeError(f"The first dimension of paddings must be the rank of inputs[{rows},2] "
                         f"{x.shape.as_list() if x.shape.rank is not None else '?'}")
    dims = x.shape.as_tuple() if x.shape.rank is not None else (None,) * rank
    if paddings is None:
        return output_spec([None] * rank, x.dtype.base_dtype)
    flat = [int(v) for v in backend_values.flat_list(paddings)]
    paddings = list(zip(flat[0::2], flat[1::2]))
    mode = attrs.get("mode")
    for d, (before, after) in zip(dims, paddings):
        limit = None if d is None else d - 1 if mode == "REFLECT" else d
        if mode and limit is not None and (before > limit or after > limit):
            raise ShapeError(f"paddings must be no greater than the dimension size: {before}, {after} greater "
                             f"than {limit}")
    return output_spec([None if d is None else d + int(b) + int(a) for d, (b, a) in zip(dims, paddings)],
                       x.dtype.base_dtype)


def _pairs(paddings: Any) -> list:
    return [(int(b), int(a)) for b, a in np.asarray(paddings).reshape(-1, 2)]


@register_op("Pad", "Pad", inputs=("input", "paddings"), shape=_pad_shape, portable=array_kernels.pad)
def pad_kernel(x: Any, paddings: Any) -> Any:
    """y = x with paddings[i] = (before, after) zeros added on each side of axis i."""
    if x.dtype == object:  # strings pad with b"" (np.pad would write NumPy's own bytes_ scalars)
        out = np.full(tuple(d + b + a for d, (b, a) in zip(x.shape, _pairs(paddings))), b"", dtype=object)
        out[tuple(slice(b, b + d) for d, (b, _) in zip(x.shape, _pairs(paddings)))] = x
        return out
    return np.pad(x, _pairs(paddings))


@register_op("PadV2", "PadV2", inputs=("input", "paddings", "constant_values"), shape=_pad_shape, same_dtype=(0, 2),
             portable=array_kernels.pad_v2)
def pad_v2_kernel(x: Any, paddings: Any, value: Any) -> Any:
    """y = x with paddings[i] = (before, after) copies of constant_values added around axis i."""
    return np.pad(x, _pairs(paddings), constant_values=value)


def _pad_grad(op: Any, grad: Any) -> list:
    """dx = the middle of grad: slice(grad, begin=paddings[:, 0], size=shape(x))."""
    x, paddings = op.inputs[0], op.inputs[1]
    index_type = dtypes.int32 if paddings.dtype == dtypes.int32 else dtypes.int64
    # Slice ops as indexing_ops.slice makes them (that module's Slice gradient imports this one)
    begin = array_ops.reshape(
        apply_op("Slice", [paddings, backend_values.array([0, 0], index_type), _minus_one_one(paddings)]), [-1])
    grads = [apply_op("Slice", [grad, begin, array_ops.shape(x, out_type=paddings.dtype.base_dtype)]), None]
    if op.type == "PadV2":
        from webflow.ops.math_ops import subtract
        from webflow.ops.sum_mean_ops import reduce_sum

        grads.append(subtract(reduce_sum(grad), reduce_sum(grads[0])))  # d/dvalue = grad over the padding
    return grads


def _minus_one_one(paddings: Any) -> Any:
    return backend_values.vector([-1, 1], paddings.dtype.base_dtype)


register_gradient("Pad")(_pad_grad)
register_gradient("PadV2")(_pad_grad)


@register_op("MirrorPad", "MirrorPad", inputs=("input", "paddings"), shape=_pad_shape,
             portable=index_kernels.mirror_pad)
def mirror_pad_kernel(x: Any, paddings: Any, *, mode: str) -> Any:
    """y = x padded with its own mirror image (REFLECT excludes the edge element, SYMMETRIC repeats it)."""
    pairs = _pairs(paddings)
    for axis, (before, after) in enumerate(pairs):
        limit = np.shape(x)[axis] - (1 if mode == "REFLECT" else 0)
        if before > limit or after > limit:
            raise ValueError(f"paddings must be no greater than the dimension size: {before}, {after} greater "
                             f"than {limit}")
    return np.pad(x, pairs, mode=mode.lower())


def _mirror_pad_grad_shape(inputs: list, attrs: dict) -> tuple:
    grad, paddings_t = inputs
    paddings = constant_value(paddings_t)
    if grad.shape.rank is None or paddings is None:
        return output_spec(None if grad.shape.rank is None else [None] * grad.shape.rank, grad.dtype.base_dtype)
    return output_spec([None if d is None else d - sum(p) for d, p in zip(grad.shape.as_tuple(), _pairs(paddings))],
                       grad.dtype.base_dtype)


@register_op("MirrorPadGrad", "MirrorPadGrad", inputs=("input", "paddings"), shape=_mirror_pad_grad_shape,
             portable=index_kernels.mirror_pad_grad)
def mirror_pad_grad_kernel(grad: Any, paddings: Any, *, mode: str) -> Any:
    """dx[j] = sum of grad[k] over the output positions k that copied x[j] (folding the mirrors back)."""
    result = grad
    for axis, (before, after) in enumerate(_pairs(paddings)):
        size = result.shape[axis] - before - after
        source = np.pad(np.arange(size), (before, after), mode=mode.lower())  # which x[j] each position copies
        folded = np.zeros(result.shape[:axis] + (size,) + result.shape[axis + 1:], dtype=grad.dtype)
        np.add.at(np.moveaxis(folded, axis, 0), source, np.moveaxis(result, axis, 0))
        result = folded
    return result


@register_gradient("MirrorPad")
def _mirror_pad_grad(op: Any, grad: Any) -> list:
    """dx = MirrorPadGrad(grad): each padded position sends its gradient to the element it mirrored."""
    return [apply_op("MirrorPadGrad", [grad, op.inputs[1]], {"mode": op.get_attr("mode")}), None]


@register_gradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: Any, grad: Any) -> list:
    """d grad = MirrorPad(grad) (MirrorPadGrad is linear; its adjoint is the padding)."""
    return [apply_op("MirrorPad", [grad, op.inputs[1]], {"mode": op.get_attr("mode")}), None]


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None, constant_values: Any = 0) -> Any:
    mode = mode.upper()
    paddings = _int_vector(paddings) if not isinstance(paddings, (list, builtins.tuple)) else \
        backend_values.array(paddings, dtypes.int32) if not any(hasattr(p, "dtype") for row in paddings for p in row) \
        else stack([stack(list(row)) for row in paddings])
    if mode == "CONSTANT":
        if not hasattr(constant_values, "dtype") and constant_values == 0:
            return apply_op("Pad", [tensor, paddings], name=name)
        return apply_op("PadV2", [tensor, paddings, constant_values], name=name)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unknown padding mode: {mode}")
    return apply_op("MirrorPad", [tensor, paddings], {"mode": mode}, name=name)


# --- TF2 signature (argument order differs from TF1's) -----------------------------------------------
def pad_v2(tensor: Any, paddings: Any, mode: str = "CONSTANT", constant_values: Any = 0,
           name: str | None = None) -> Any:
    return pad(tensor, paddings, mode, name, constant_values)
