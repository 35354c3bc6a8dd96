"""Stateful random ops: RandomStandardNormal, TruncatedNormal, RandomUniform, RandomUniformInt,
RandomShuffle, Multinomial — with TensorFlow's seeds, generator and numbers.

Each op instance owns a Philox generator keyed by its `seed`/`seed2` attrs (framework/random_seed.py
says where those come from). Every run hands the kernel a copy of the generator and moves the
op's own counter past all the blocks that run may use, so each `Session.run` (or each eager call)
draws new numbers, and a fresh session replays the same sequence, as TensorFlow's kernels do.
The state lives in the session's resources under the op's name; eagerly, in a cache keyed by the
op type and attrs (TensorFlow's eager kernel cache), which `set_seed` clears.

Random ops have no gradient (their outputs are constants as far as autodiff is concerned).
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import philox as c_philox
from webflow.backends.numpy import random_distributions as distributions
from webflow.backends.portable import random_kernels
from webflow.framework import context, dtypes, random_seed
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.random_generators import (
    RESERVE_MULTIPLIER,
    cpu_threads,
    generator_for,
)
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import TensorBase
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import math_ops
from webflow.ops.convert import constant_value, constant_value_as_shape, convert_to_tensor
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import require_rank

FLOAT_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
SHAPE_TYPES = (dtypes.int32, dtypes.int64)


# --- shape rules -----------------------------------------------------------------------------------
def _check_dtype(dtype: Any, allowed: tuple, attr: str) -> Any:
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"Value for attr '{attr}' of {dtype.name} is not in the list of allowed values: {names}")
    return dtype


def _sampled_shape(inputs: list, attrs: dict) -> tuple:
    """Output shape = the value of the 1-D `shape` input (dims unknown where it is not constant)."""
    require_rank(inputs[0], 1, "shape")
    return output_spec(constant_value_as_shape(inputs[0]), _check_dtype(attrs["dtype"], FLOAT_TYPES, "dtype"))


def _uniform_int_shape(inputs: list, attrs: dict) -> tuple:
    shape, minval, maxval = inputs
    require_rank(shape, 1, "shape")
    require_rank(minval, 0, "minval")
    require_rank(maxval, 0, "maxval")
    _check_dtype(minval.dtype, SHAPE_TYPES, "Tout")
    return output_spec(constant_value_as_shape(shape), minval.dtype.base_dtype)


def _shuffle_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[0].shape, inputs[0].dtype.base_dtype)


def _multinomial_shape(inputs: list, attrs: dict) -> tuple:
    logits, num_samples = inputs
    require_rank(logits, 2, "logits")
    require_rank(num_samples, 0, "num_samples")
    batch = logits.shape.as_tuple()[0] if logits.shape.rank is not None else None
    samples = constant_value(num_samples)
    if samples is not None and int(samples) < 0:
        raise ShapeError(f"Dimension size, given by scalar input 1, must be non-negative but is {int(samples)}")
    return output_spec([batch, None if samples is None else int(samples)],
                       _check_dtype(attrs["output_dtype"], SHAPE_TYPES, "output_dtype"))


# --- kernels ---------------------------------------------------------------------------------------
@register_op("RandomStandardNormal", "RandomStandardNormal", inputs=("shape",), shape=_sampled_shape,
             allowed=SHAPE_TYPES, needs_context=True, stateful=True,
             c=c_philox.random_standard_normal, portable=random_kernels.random_standard_normal)
def random_standard_normal_kernel(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                                  T: Any = None) -> Any:  # noqa: N803 - TensorFlow's attr name
    """x ~ N(0, 1): Box-Muller on Philox words, four float32 values per 128-bit block."""
    dims = backend_values.output_dims(shape, "RandomStandardNormal")
    count = int(math.prod(dims))
    local = generator_for(context_).reserve_outputs(count, RESERVE_MULTIPLIER)
    numpy_dtype = dtypes.as_dtype(dtype).as_numpy_dtype
    return distributions.normal(local, count, numpy_dtype).reshape(dims)


@register_op("TruncatedNormal", "TruncatedNormal", inputs=("shape",), shape=_sampled_shape,
             allowed=SHAPE_TYPES, needs_context=True, stateful=True,
             c=c_philox.truncated_normal, portable=random_kernels.truncated_normal)
def truncated_normal_kernel(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                            T: Any = None) -> Any:  # noqa: N803
    """x ~ N(0, 1) conditioned on |x| < 2: Box-Muller pairs, rejecting |x| >= 2."""
    dims = backend_values.output_dims(shape, "TruncatedNormal")
    count = int(math.prod(dims))
    local = generator_for(context_).reserve_outputs(count, RESERVE_MULTIPLIER)
    numpy_dtype = dtypes.as_dtype(dtype).as_numpy_dtype
    return distributions.truncated_normal(local, count, numpy_dtype).reshape(dims)


@register_op("RandomUniform", "RandomUniform", inputs=("shape",), shape=_sampled_shape,
             allowed=SHAPE_TYPES, needs_context=True, stateful=True, c=c_philox.random_uniform)
def random_uniform_kernel(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                          T: Any = None) -> Any:  # noqa: N803
    """x ~ U[0, 1): 23 random mantissa bits under exponent 0, minus 1."""
    dims = backend_values.output_dims(shape, "RandomUniform")
    count = int(math.prod(dims))
    local = generator_for(context_).reserve_outputs(count, RESERVE_MULTIPLIER)
    numpy_dtype = dtypes.as_dtype(dtype).as_numpy_dtype
    return distributions.uniform(local, count, numpy_dtype).reshape(dims)


@register_op("RandomUniformInt", "RandomUniformInt", inputs=("shape", "minval", "maxval"),
             shape=_uniform_int_shape, same_dtype=(1, 2), needs_context=True, stateful=True,
             portable=random_kernels.random_uniform_int)
def random_uniform_int_kernel(context_: Any, shape: Any, minval: Any, maxval: Any, *, seed: int = 0,
                              seed2: int = 0, Tout: Any = None, T: Any = None) -> Any:  # noqa: N803
    """x = minval + bits % (maxval - minval), integers in [minval, maxval)."""
    dims = backend_values.output_dims(shape, "RandomUniformInt")
    count = int(math.prod(dims))
    numpy_dtype = np.asarray(minval).dtype
    if count == 0:
        return np.zeros(dims, dtype=numpy_dtype)
    low, high = int(minval), int(maxval)
    if low >= high:
        raise InvalidArgumentError(None, None, f"Need minval < maxval, got {low} >= {high}")
    local = generator_for(context_).reserve_outputs(count, RESERVE_MULTIPLIER)
    return distributions.uniform_int(local, count, low, high, numpy_dtype).reshape(dims)


@register_op("RandomShuffle", "RandomShuffle", inputs=("value",), shape=_shuffle_shape,
             needs_context=True, stateful=True, portable=random_kernels.random_shuffle)
def random_shuffle_kernel(context_: Any, value: Any, *, seed: int = 0, seed2: int = 0, T: Any = None) -> Any:  # noqa: N803
    """output[i] = value[permutation[i]]: a Fisher-Yates permutation of dimension 0."""
    value = np.asarray(value)
    if value.size <= 1 or value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    size = value.shape[0]
    local = generator_for(context_).reserve_uint32s(size - 1)
    # TF swaps rows in place (vectors) or permutes indices (higher ranks): both give value[permutation].
    return value[distributions.shuffle_permutation(local, size)]


@register_op("Multinomial", "Multinomial", inputs=("logits", "num_samples"), shape=_multinomial_shape,
             needs_context=True, stateful=True, portable=random_kernels.multinomial)
def multinomial_kernel(context_: Any, logits: Any, num_samples: Any, *, seed: int = 0, seed2: int = 0,
                       output_dtype: Any = None, T: Any = None) -> Any:  # noqa: N803
    """samples[b, j] ~ Categorical(softmax(logits[b])), by inverse CDF on float64 uniforms."""
    logits = np.asarray(logits)
    samples = int(num_samples)
    if samples < 0:
        raise InvalidArgumentError(None, None, f"num_samples should be nonnegative, got {samples}")
    if logits.shape[1] == 0 and logits.shape[0] > 0:
        raise InvalidArgumentError(None, None, "num_classes should be positive, got 0")
    # CPU: two words per double, samples rounded up to a multiple of 4 (TF's reservation).
    reserved = logits.shape[0] * ((samples + 3) // 4 * 4) * 2
    local = generator_for(context_).reserve_outputs(reserved, RESERVE_MULTIPLIER)
    numpy_dtype = dtypes.as_dtype(output_dtype or dtypes.int64).as_numpy_dtype
    return distributions.categorical(local, logits, samples, cpu_threads(context_)).astype(numpy_dtype)


for _op_type in ("RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
                 "RandomShuffle", "Multinomial"):
    NotDifferentiable(_op_type)


# --- Python wrappers (TensorFlow's names, signatures, defaults and node names) ------------------------
def _shape_tensor(shape: Any) -> Any:
    """TF's shape_util.shape_tensor: a list of ints becomes an int32 Const `shape`; a list holding
    tensors is packed into one (`shape/1` constants + Pack `shape`); an empty list is int32."""
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)):
        items = [d.value if hasattr(d, "value") and not isinstance(d, TensorBase) else d for d in shape]
        if any(isinstance(d, TensorBase) for d in items):
            return _pack_shape(items)
        return convert_to_tensor(list(items), dtype=dtypes.int32 if not items else None, name="shape")
    return convert_to_tensor(shape, name="shape")


def _pack_shape(items: list) -> Any:
    from webflow.ops.concat_ops import stack

    if context.executing_eagerly():
        return stack([convert_to_tensor(d, dtype=dtypes.int32) for d in items])
    with context.get_default_graph().name_scope("shape") as scope:
        tensors = [d if isinstance(d, TensorBase) else convert_to_tensor(d, dtype=dtypes.int32, name=str(i))
                   for i, d in enumerate(items)]
        return stack(tensors, name=scope)


def _seed_attrs(seed: int | None) -> dict:
    seed1, seed2 = random_seed.get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def _sample(op_type: str, shape: Any, dtype: Any, seed: int | None) -> Any:
    shape_tensor = _shape_tensor(shape)
    attrs = {**_seed_attrs(seed), "dtype": dtypes.as_dtype(dtype).base_dtype, "T": shape_tensor.dtype.base_dtype}
    return apply_op(op_type, [shape_tensor], attrs)


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                  seed: int | None = None, name: str | None = None) -> Any:
    """Normal samples: RandomStandardNormal * stddev + mean (node `random_normal`)."""
    with name_scope_v1(name, "random_normal", [shape, mean, stddev]) as scope:
        shape_tensor = _shape_tensor(shape)
        mean_tensor = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _sample("RandomStandardNormal", shape_tensor, dtype, seed)
        return math_ops.add(rnd * stddev_tensor, mean_tensor, name=scope)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = dtypes.float32,
                     seed: int | None = None, name: str | None = None) -> Any:
    """Normal samples re-drawn beyond 2 stddevs: TruncatedNormal * stddev + mean."""
    with name_scope_v1(name, "truncated_normal", [shape, mean, stddev]) as scope:
        shape_tensor = _shape_tensor(shape)
        mean_tensor = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_tensor = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = _sample("TruncatedNormal", shape_tensor, dtype, seed)
        return math_ops.add(rnd * stddev_tensor, mean_tensor, name=scope)


_UNIFORM_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = dtypes.float32,
                   seed: int | None = None, name: str | None = None) -> Any:
    """Uniform samples in [minval, maxval): RandomUniform scaled, or RandomUniformInt for integer dtypes."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype not in _UNIFORM_TYPES:
        accepted = ", ".join(f"tf.{d.name}" for d in _UNIFORM_TYPES)
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{dtype.name}'>. Accepted dtypes are "
                         f"({accepted}).")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope_v1(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_tensor = _shape_tensor(shape)
        # TF skips the scaling ops when the range is the default [0, 1) given as Python ints.
        minval_is_zero = type(minval) is int and minval == 0
        maxval_is_one = type(maxval) is int and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            attrs = {**_seed_attrs(seed), "Tout": dtype, "T": shape_tensor.dtype.base_dtype}
            return apply_op("RandomUniformInt", [shape_tensor, minval, maxval], attrs, name=scope)
        result = _sample("RandomUniform", shape_tensor, dtype, seed)
        if minval_is_zero:
            return result if maxval_is_one else math_ops.multiply(result, maxval, name="Mul")
        return math_ops.add(result * (maxval - minval), minval, name=scope)


def random_shuffle(value: Any, seed: int | None = None, name: str | None = None) -> Any:
    """`value` with its first dimension randomly permuted."""
    attrs = _seed_attrs(seed)
    if context.executing_eagerly():
        return apply_op("RandomShuffle", [value], {**attrs, "T": convert_to_tensor(value).dtype.base_dtype})
    with context.get_default_graph().name_scope(name or "RandomShuffle") as scope:
        tensor = convert_to_tensor(value, name="value")
        return apply_op("RandomShuffle", [tensor], {**attrs, "T": tensor.dtype.base_dtype}, name=scope)


def _categorical(logits: Any, num_samples: Any, dtype: Any, seed: int | None) -> Any:
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype).base_dtype if dtype else dtypes.int64
    if dtype not in SHAPE_TYPES:
        raise ValueError(f"Argument `dtype` got invalid value <dtype: '{dtype.name}'>. Accepted dtypes are "
                         f"(tf.int32, tf.int64).")
    attrs = {**_seed_attrs(seed), "T": logits.dtype.base_dtype, "output_dtype": dtype}
    if context.executing_eagerly():
        return apply_op("Multinomial", [logits, convert_to_tensor(num_samples, dtype=dtypes.int32)], attrs)
    with context.get_default_graph().name_scope("Multinomial") as scope:
        samples = convert_to_tensor(num_samples, dtype=dtypes.int32, name="num_samples")
        return apply_op("Multinomial", [logits, samples], attrs, name=scope)


def multinomial(logits: Any, num_samples: Any, seed: int | None = None, name: str | None = None,
                output_dtype: Any = None) -> Any:
    """TF1 `tf.multinomial`: class indices drawn from softmax(logits), per row."""
    with name_scope_v1(name, "multinomial", [logits]):
        return _categorical(logits, num_samples, output_dtype, seed)


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None,
                name: str | None = None) -> Any:
    """TF2 `tf.random.categorical`: class indices drawn from softmax(logits), per row."""
    with name_scope_v1(name, "categorical", [logits]):
        return _categorical(logits, num_samples, dtype, seed)


set_random_seed = random_seed.set_random_seed
set_seed = random_seed.set_seed
get_seed = random_seed.get_seed

__all__ = ["random_normal", "truncated_normal", "random_uniform", "random_shuffle", "multinomial", "categorical",
           "set_random_seed", "set_seed", "get_seed", "generator_for", "ShapeError"]
