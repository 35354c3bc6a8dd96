"""TF1 initializers (`tf.zeros_initializer`, `tf.glorot_uniform_initializer`, ...): objects that build a tensor.

An initializer is called as `init(shape, dtype=None, partition_info=None)` and returns ops made from
the ordinary op wrappers, so under `get_variable("v")` its nodes are named "v/Initializer/...", e.g.
"dense/kernel/Initializer/random_uniform/RandomUniform". The random ones call ops/random_ops.py (TF's
Philox streams), so a seeded initializer gives TensorFlow's exact numbers.

Variance scaling (Glorot, He, LeCun are special cases): with fan_in / fan_out the number of input /
output units of the weight (times the receptive field for convolutions), variance = scale / n where
n = fan_in, fan_out or their mean. "uniform" samples U(-sqrt(3 variance), +sqrt(3 variance));
"truncated_normal" samples N(0, s) cut at 2s, with s = sqrt(variance) / 0.8796..., the standard deviation
of a unit normal truncated to [-2, 2], so that the *truncated* samples have the wanted variance.
"""

from __future__ import annotations

import math
import types
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, constants

# Standard deviation of a unit normal truncated to [-2, 2] (TF's correction constant).
TRUNCATED_NORMAL_STDDEV = 0.87962566103423978


def _random_ops() -> Any:
    from webflow.ops import random_ops  # imported late: written alongside, and only needed when called

    return random_ops


def _assert_float_dtype(dtype: Any) -> Any:
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


def _dims(shape: Any) -> list:
    if isinstance(shape, TensorShape):
        return shape.as_list()
    if isinstance(shape, int):
        return [shape]
    return list(shape)


class Initializer:
    """Base class: `__call__(shape, dtype=None, partition_info=None)` returns the initial tensor."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        """The constructor arguments, as a JSON-serialisable dict."""
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        return cls(**config)


class Zeros(Initializer):
    """All zeros."""

    def __init__(self, dtype: Any = dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return array_ops.zeros(shape, dtype if dtype is not None else self.dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """All ones."""

    def __init__(self, dtype: Any = dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return array_ops.ones(shape, dtype if dtype is not None else self.dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """`value` reshaped to the shape; a shorter list is padded with its last element (TF1's constant rule)."""

    def __init__(self, value: Any = 0, dtype: Any = dtypes.float32, verify_shape: bool = False):
        if not (_is_scalar(value) or isinstance(value, (list, tuple) + backend_values.ARRAY_TYPES)):
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None, verify_shape: Any = None) -> Any:
        dtype = dtypes.as_dtype(dtype if dtype is not None else self.dtype)
        verify_shape = self._verify_shape if verify_shape is None else verify_shape
        if not HAVE_NUMPY:
            return self._without_numpy(shape, dtype, verify_shape)
        array = np.asarray(self.value, dtype=dtype.as_numpy_dtype)
        if shape is None:
            return constants.constant(array, dtype=dtype)
        dims = _dims(shape)
        if verify_shape and tuple(array.shape) != tuple(dims):
            raise TypeError(f"Expected Tensor's shape: {TensorShape(dims)}, but got {TensorShape(array.shape)}.")
        count = int(math.prod(dims)) if dims else 1
        flat = array.reshape(-1)
        if flat.size > count:
            raise ValueError(f"Too many elements provided. Takes at most {count}, but got {flat.size}.")
        if 0 < flat.size < count:
            flat = np.concatenate([flat, np.repeat(flat[-1:], count - flat.size)])
        return constants.constant(flat.reshape(dims), dtype=dtype)

    def _without_numpy(self, shape: Any, dtype: Any, verify_shape: bool) -> Any:
        """The same rule on a flat Python list (CArray storage)."""
        array = backend_values.array(self.value, dtype)
        if shape is None:
            return constants.constant(array, dtype=dtype)
        dims = _dims(shape)
        if verify_shape and tuple(array.shape) != tuple(dims):
            raise TypeError(f"Expected Tensor's shape: {TensorShape(dims)}, but got {TensorShape(array.shape)}.")
        count = int(math.prod(dims)) if dims else 1
        flat = backend_values.flat_list(array)
        if len(flat) > count:
            raise ValueError(f"Too many elements provided. Takes at most {count}, but got {len(flat)}.")
        flat += flat[-1:] * (count - len(flat))
        return constants.constant(backend_values.array(flat, dtype).reshape(dims), dtype=dtype)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name}


def _is_scalar(value: Any) -> bool:
    """numpy.isscalar: a Python or NumPy number, string or bytes (not a 0-d array)."""
    if HAVE_NUMPY:
        return np.isscalar(value)
    return isinstance(value, (bool, int, float, complex, str, bytes))


class RandomUniform(Initializer):
    """Samples U(minval, maxval) (integers: [minval, maxval))."""

    def __init__(self, minval: Any = 0.0, maxval: Any = None, seed: int | None = None, dtype: Any = dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return _random_ops().random_uniform(shape, minval=self.minval, maxval=self.maxval,
                                            dtype=dtype if dtype is not None else self.dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Samples N(mean, stddev²)."""

    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return _random_ops().random_normal(shape, mean=self.mean, stddev=self.stddev,
                                           dtype=dtype if dtype is not None else self.dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Samples N(mean, stddev²), redrawing values more than 2 stddev from the mean."""

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        return _random_ops().truncated_normal(shape, mean=self.mean, stddev=self.stddev,
                                              dtype=dtype if dtype is not None else self.dtype, seed=self.seed)


class UniformUnitScaling(Initializer):
    """Deprecated: U(-m, m) with m = factor * sqrt(3 / input_size), input_size = product of all dims but the last."""

    def __init__(self, factor: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        dims = _dims(shape if partition_info is None else partition_info.full_shape)
        input_size = max(float(math.prod(dims[:-1])) if len(dims) > 1 else 1.0, 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return _random_ops().random_uniform(shape, minval=-limit, maxval=limit,
                                            dtype=dtype if dtype is not None else self.dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def compute_fans(shape: Any) -> tuple[int, int]:
    """(fan_in, fan_out): [in, out] for a matrix; times the receptive field (kernel dims) for convolutions."""
    dims = _dims(shape)
    if len(dims) < 1:
        return 1, 1
    if len(dims) == 1:
        return int(dims[0]), int(dims[0])
    receptive_field = int(math.prod(dims[:-2])) if len(dims) > 2 else 1
    return int(dims[-2] * receptive_field), int(dims[-1] * receptive_field)


class VarianceScaling(Initializer):
    """Samples with variance scale / n, n from `mode` (see the module docstring)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None, dtype: Any = dtypes.float32):
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Argument `distribution` should be one of ('normal', uniform', 'truncated_normal', "
                             f"'untruncated_normal'). Received: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        fan_in, fan_out = compute_fans(shape if partition_info is None else partition_info.full_shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, n)
        random_ops = _random_ops()
        if self.distribution in ("normal", "truncated_normal"):  # "normal" is TF's old name for truncated
            stddev = math.sqrt(variance) / TRUNCATED_NORMAL_STDDEV
            return random_ops.truncated_normal(shape, mean=0.0, stddev=stddev, dtype=dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, mean=0.0, stddev=math.sqrt(variance), dtype=dtype, seed=self.seed)
        limit = math.sqrt(3.0 * variance)
        return random_ops.random_uniform(shape, minval=-limit, maxval=limit, dtype=dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)): the default for `get_variable`."""

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed, dtype=dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with standard deviation sqrt(2 / (fan_in + fan_out)) after truncation."""

    def __init__(self, seed: int | None = None, dtype: Any = dtypes.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed, dtype=dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


def _op(module_names: tuple, name: str) -> Any:
    """The op wrapper `name` from the first of `module_names` defining it (families are filled in over time)."""
    import importlib

    for module_name in module_names:
        try:
            module = importlib.import_module(f"webflow.ops.{module_name}")
        except ImportError:
            continue
        if hasattr(module, name):
            return getattr(module, name)
    raise NotImplementedError(f"The initializer needs op `{name}`, which webflow does not have yet.")


class Orthogonal(Initializer):
    """gain * Q from the QR decomposition of a normal matrix, signs fixed so diag(R) > 0 (uniform over rotations).

    A shape (d0, ..., dn) is treated as a (d0*...*d(n-1), dn) matrix: orthonormal columns if it is tall,
    orthonormal rows if it is wide (then the QR is of the transposed, tall matrix).
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None, dtype: Any = dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtype)
        self.seed = seed

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        dtype = dtype if dtype is not None else self.dtype
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        rows, cols = int(math.prod(dims[:-1])), int(dims[-1])
        flat_shape = (cols, rows) if rows < cols else (rows, cols)
        a = _random_ops().random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = _op(("linalg_ops",), "qr")(a, full_matrices=False)
        d = _op(("array_ops", "linalg_ops", "matrix_ops"), "diag_part")(r)
        q = q * _op(("math_ops", "unary_math_ops"), "sign")(d)  # Q R = (Q S)(S R), S = sign(diag R)
        if rows < cols:
            q = _op(("array_ops", "linalg_ops", "manip_ops", "matrix_ops"), "matrix_transpose")(q)
        return self.gain * array_ops.reshape(q, dims)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """gain * the identity matrix (2-D shapes only)."""

    def __init__(self, gain: float = 1.0, dtype: Any = dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        full_shape = _dims(shape if partition_info is None else partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        dtype = dtypes.as_dtype(dtype if dtype is not None else self.dtype)
        eye = _op(("linalg_ops", "array_ops", "matrix_ops"), "eye")(*full_shape, dtype=dtype)
        return self.gain * eye

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


# TF1's spellings: tf.zeros_initializer() etc. are the classes themselves.
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity


def initializers_namespace_v1() -> types.SimpleNamespace:
    """`tf.compat.v1.initializers`: the same classes under short names, plus the variable initializer ops."""
    from webflow.ops import variables

    return types.SimpleNamespace(
        zeros=Zeros, ones=Ones, constant=Constant, random_uniform=RandomUniform, random_normal=RandomNormal,
        truncated_normal=TruncatedNormal, uniform_unit_scaling=UniformUnitScaling, variance_scaling=VarianceScaling,
        orthogonal=Orthogonal, identity=Identity, glorot_uniform=GlorotUniform, glorot_normal=GlorotNormal,
        lecun_normal=lecun_normal, lecun_uniform=lecun_uniform, he_normal=he_normal, he_uniform=he_uniform,
        global_variables=variables.global_variables_initializer,
        local_variables=variables.local_variables_initializer, variables=variables.variables_initializer)
