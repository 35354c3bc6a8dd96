"""`tf.nn.dropout`: zero each element with probability `rate`, scale the survivors by 1 / (1 - rate).

Built from ops exactly as TensorFlow 2.x builds it, so a seeded program gives TensorFlow's numbers and
node names (under a `dropout` scope):

    Mul(x, Const 1/keep_prob)          (a tensor rate: RealDiv(x, Sub(Const 1, rate)))
    Shape(x) -> random_uniform/RandomUniform -> GreaterEqual(uniform, rate)   the keep mask
    SelectV2(mask, scaled x, Const 0)

The uniform numbers come from the RandomUniform op (bit-exact with TF for the same seeds; the seeds
come from framework/random_seed.py as for any random op). `rate == 0` given as a Python number returns
`x` itself, but still takes an op seed, so later random ops draw what they would have drawn anyway.
"""

from __future__ import annotations

import numbers
from typing import Any

from webflow.framework import context, random_seed
from webflow.framework.tensor import TensorBase
from webflow.framework.tensor_shape import TensorShape, as_shape
from webflow.ops import array_ops, logic_ops, math_ops, random_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import op_scope


def _noise_shape(x: Any, noise_shape: Any) -> Any:
    """The mask's shape: shape(x), or `noise_shape` with its unknown dims filled from x's static shape."""
    if noise_shape is None:
        return array_ops.shape(x)
    if isinstance(noise_shape, TensorBase):
        return noise_shape
    try:
        requested = as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.rank is not None and requested.rank == x.shape.rank:
        dims = [given if given is not None else known
                for known, given in zip(x.shape.as_tuple(), requested.as_tuple())]
        requested = TensorShape(dims)
    if not requested.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {requested} to a Tensor.")
    return requested.as_list()


def dropout_v2(x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None, name: str | None = None) -> Any:
    """TF2 `tf.nn.dropout`: keep each element with probability 1 - rate, scaled by 1 / (1 - rate)."""
    with op_scope(name or "dropout"):
        is_number = isinstance(rate, numbers.Real)
        if is_number and (rate < 0 or rate >= 1):
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"`x.dtype` must be a floating point tensor as `x` will be scaled. "
                             f"Received: x_dtype={x.dtype}")
        if is_number and rate == 0:
            random_seed.get_seed(seed)   # take an op seed anyway, so later random ops are not shifted
            return x
        if not isinstance(rate, TensorBase):
            if not is_number:
                raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: rate={rate}")
            scale = convert_to_tensor(1 / (1 - rate), dtype=x.dtype)
            kept = math_ops.multiply(x, scale)
        else:
            rate.shape.assert_has_rank(0)
            if rate.dtype.base_dtype != x.dtype.base_dtype:
                raise ValueError(f"`x.dtype` must be compatible with `rate.dtype`. Received: x.dtype={x.dtype} "
                                 f"and rate.dtype={rate.dtype}")
            one = convert_to_tensor(1, dtype=x.dtype)
            kept = math_ops.real_div(x, math_ops.subtract(one, rate))
        uniform = random_ops.random_uniform(_noise_shape(x, noise_shape), dtype=x.dtype, seed=seed)
        keep_mask = logic_ops.greater_equal(uniform, rate)
        result = logic_ops.select_v2(keep_mask, kept, convert_to_tensor(0, dtype=x.dtype))
        if not context.executing_eagerly():
            result.set_shape(x.shape)
        return result


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None, rate: Any = None) -> Any:
    """TF1 `tf.nn.dropout`: as TF2's, with the deprecated `keep_prob` (= 1 - rate) also accepted."""
    try:
        rate_from_keep_prob = 1.0 - keep_prob if keep_prob is not None else None
    except TypeError:
        raise ValueError(f"`keep_prob` must be a floating point number or Tensor. Received: keep_prob={keep_prob}") \
            from None
    if rate is not None and rate_from_keep_prob is not None:
        raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
    rate = rate if rate is not None else rate_from_keep_prob
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


__all__ = ["dropout", "dropout_v2"]
