"""Stateless random ops (TF2's `tf.random.stateless_*`): the numbers are a pure function of a seed pair.

    StatelessRandomGetKeyCounter(seed [2]) -> key [1], counter [2] (uint64): TensorFlow's GenerateKey scramble -
        Philox(key = (0x3ec8f720, 0x02461e29), counter = (seed0 lo, seed0 hi, seed1 lo, seed1 hi)) = m0..m3;
        key = m0 | m1 << 32, counter = (0, m2 | m3 << 32).
    StatelessRandomUniformV2 / StatelessRandomNormalV2 / StatelessTruncatedNormalV2(shape, key, counter, alg):
        the same distributions as the stateful ops (random_distributions.h), on a Philox stream starting at
        (key, counter) - nothing is remembered between runs.
tf_keras's seeded initializers draw from these (seed = [initializer seed, 0]), so webflow gives their exact
values. Only Philox (alg 1) is supported, as on TensorFlow's CPU. Not differentiable (constants to autodiff).
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import stateless_philox as c_stateless
from webflow.backends.numpy import random_distributions as distributions
from webflow.backends.portable import stateless_random_kernels as portable
from webflow.backends.portable.stateless_random_kernels import generator_at, key_and_counter
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.philox import PhiloxGenerator
from webflow.ops.convert import constant_value_as_shape, convert_to_tensor
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op
from webflow.ops.shapes import require_rank

FLOAT_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
PHILOX = 1   # TensorFlow's RNG_ALG_PHILOX


def _generator(key: Any, counter: Any) -> PhiloxGenerator:
    low, high = (int(c) for c in np.asarray(counter).reshape(-1)[:2])
    return generator_at(int(np.asarray(key).reshape(-1)[0]), (low, high))


# --- shape rules -----------------------------------------------------------------------------------
def _key_counter_shape(inputs: list, attrs: dict) -> list:
    require_rank(inputs[0], 1, "seed")
    return [output_spec([1], dtypes.uint64), output_spec([2], dtypes.uint64)]


def _sampled_shape(inputs: list, attrs: dict) -> tuple:
    require_rank(inputs[0], 1, "shape")
    dtype = dtypes.as_dtype(attrs["dtype"]).base_dtype
    if dtype not in FLOAT_TYPES:
        raise TypeError(f"Value for attr 'dtype' of {dtype.name} is not in the list of allowed values: "
                        "half, float, double")
    return output_spec(constant_value_as_shape(inputs[0]), dtype)


# --- kernels ---------------------------------------------------------------------------------------
@register_op("StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounter", inputs=("seed",),
             shape=_key_counter_shape, portable=portable.get_key_counter)
def get_key_counter_kernel(seed: Any, *, Tseed: Any = None) -> list:  # noqa: N803 - TensorFlow's attr name
    """key, counter = GenerateKey(seed): one Philox block of the seed pair under a fixed key."""
    values = np.asarray(seed).reshape(-1)
    if values.size != 2:
        raise InvalidArgumentError(f"seed must have shape [2], not [{values.size}]")
    key, counter = key_and_counter(int(values[0]), int(values[1]))
    return [np.array([key], np.uint64), np.array(counter, np.uint64)]


def _draw(shape: Any, key: Any, counter: Any, alg: Any, dtype: Any, op: str, distribution: Any) -> Any:
    if int(np.asarray(alg)) != PHILOX:
        raise InvalidArgumentError(f"Unsupported algorithm id: {int(np.asarray(alg))}")
    dims = backend_values.output_dims(shape, op)
    count = int(math.prod(dims))
    return distribution(_generator(key, counter), count, dtypes.as_dtype(dtype).as_numpy_dtype).reshape(dims)


@register_op("StatelessRandomUniformV2", "StatelessRandomUniformV2", inputs=("shape", "key", "counter", "alg"),
             shape=_sampled_shape, portable=portable.stateless_uniform, c=c_stateless.stateless_uniform)
def stateless_uniform_kernel(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any,
                             Tshape: Any = None) -> Any:  # noqa: N803
    """x ~ U[0, 1): 23 random mantissa bits under exponent 0, minus 1 (from the Philox stream at key, counter)."""
    return _draw(shape, key, counter, alg, dtype, "StatelessRandomUniformV2", distributions.uniform)


@register_op("StatelessRandomNormalV2", "StatelessRandomNormalV2", inputs=("shape", "key", "counter", "alg"),
             shape=_sampled_shape, portable=portable.stateless_normal, c=c_stateless.stateless_normal)
def stateless_normal_kernel(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any,
                            Tshape: Any = None) -> Any:  # noqa: N803
    """x ~ N(0, 1): Box-Muller on consecutive Philox words."""
    return _draw(shape, key, counter, alg, dtype, "StatelessRandomNormalV2", distributions.normal)


@register_op("StatelessTruncatedNormalV2", "StatelessTruncatedNormalV2",
             inputs=("shape", "key", "counter", "alg"), shape=_sampled_shape,
             portable=portable.stateless_truncated_normal, c=c_stateless.stateless_truncated_normal)
def stateless_truncated_normal_kernel(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any,
                                      Tshape: Any = None) -> Any:  # noqa: N803
    """x ~ N(0, 1) conditioned on |x| < 2: Box-Muller pairs, rejecting |x| >= 2, group by group."""
    return _draw(shape, key, counter, alg, dtype, "StatelessTruncatedNormalV2", distributions.truncated_normal)


for _op_type in ("StatelessRandomGetKeyCounter", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
                 "StatelessTruncatedNormalV2"):
    NotDifferentiable(_op_type)


# --- the Python API (tf.random.stateless_*) -------------------------------------------------------------
def _key_counter(seed: Any) -> tuple:
    seed = convert_to_tensor(seed, dtype_hint=dtypes.int64)
    key, counter = apply_op("StatelessRandomGetKeyCounter", [seed], {"Tseed": seed.dtype})
    return key, counter


def _stateless(op_type: str, shape: Any, seed: Any, dtype: Any, name: str | None) -> Any:
    dtype = dtypes.as_dtype(dtype)
    shape = convert_to_tensor(shape, dtype_hint=dtypes.int32)
    key, counter = _key_counter(seed)
    alg = convert_to_tensor(PHILOX, dtype=dtypes.int32)
    return apply_op(op_type, [shape, key, counter, alg], {"dtype": dtype, "Tshape": shape.dtype}, name=name)


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                             name: str | None = None, alg: str = "auto_select") -> Any:
    """Floats in [minval, maxval): U[0, 1) * (maxval - minval) + minval (floats only here)."""
    maxval = 1 if maxval is None else maxval
    value = _stateless("StatelessRandomUniformV2", shape, seed, dtype, name)
    minval = convert_to_tensor(minval, dtype=dtype)
    return value * (convert_to_tensor(maxval, dtype=dtype) - minval) + minval


def stateless_random_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                            name: str | None = None, alg: str = "auto_select") -> Any:
    value = _stateless("StatelessRandomNormalV2", shape, seed, dtype, name)
    return value * convert_to_tensor(stddev, dtype=dtype) + convert_to_tensor(mean, dtype=dtype)


def stateless_truncated_normal(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
                               dtype: Any = dtypes.float32, name: str | None = None,
                               alg: str = "auto_select") -> Any:
    value = _stateless("StatelessTruncatedNormalV2", shape, seed, dtype, name)
    return value * convert_to_tensor(stddev, dtype=dtype) + convert_to_tensor(mean, dtype=dtype)
