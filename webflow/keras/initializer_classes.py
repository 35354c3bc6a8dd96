"""tf_keras 2.x's initializer classes (`keras.initializers.HeNormal(seed=1)` ...), with its exact values.

A seeded initializer draws from the stateless random ops with seed [seed, 0] (ops/stateless_random_ops.py), as
tf_keras's `RandomGenerator(seed, rng_type="stateless")` does, so it gives tf_keras's numbers and the same numbers
on every call. Without a seed, one is picked at random on first use (then kept), as tf_keras does.

VarianceScaling: scale / n, with n = fan_in, fan_out or their mean (fans: the last two dims, times the
receptive field of the others), then
    uniform             U(-limit, limit), limit = sqrt(3 scale / n)        (variance scale / n)
    truncated_normal    N(0, s) cut at 2 s, s = sqrt(scale / n) / 0.87962566103423978
                        (0.8796... = the std of N(0, 1) truncated to (-2, 2): the cut-off tails would shrink
                        the variance, so s is enlarged to give exactly scale / n)
    untruncated_normal  N(0, sqrt(scale / n))
Glorot = (1, fan_avg), He = (2, fan_in), Lecun = (1, fan_in); `_normal` = truncated_normal, `_uniform` = uniform.
"""

from __future__ import annotations

import math
import random
import threading
import warnings
from typing import Any

from webflow.framework import dtypes
from webflow.ops import stateless_random_ops as stateless
from webflow.ops.array_ops import fill, ones, reshape, zeros
from webflow.ops.constants import constant

TRUNCATED_STD = 0.87962566103423978   # scipy.stats.truncnorm.std(a=-2, b=2, loc=0., scale=1.)
# `keras.utils.set_random_seed(s)` puts a random.Random(s) here (tf_keras's backend._SEED_GENERATOR): unseeded
# initializers then pick their seeds from it instead of from Python's global `random`.
SEED_GENERATOR = threading.local()


def _dtype(dtype: Any) -> Any:
    return dtypes.as_dtype(dtype or "float32")


def _float_dtype(dtype: Any, name: str) -> Any:
    dtype = _dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype.name}.")
    return dtype


def _dims(shape: Any) -> list:
    return [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]


class Initializer:
    """The base: `initializer(shape, dtype=None)` -> a tensor; `get_config` / `from_config`."""

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class _Seeded(Initializer):
    def __init__(self, seed: int | None = None):
        self.seed = seed
        self._stateless_seed = seed

    def _seed_pair(self) -> list:
        """[seed, 0] (a random seed, chosen once, when none was given), as tf_keras's stateless generator."""
        self._warn_reuse()
        if self._stateless_seed is None:
            source = getattr(SEED_GENERATOR, "generator", None) or random
            self._stateless_seed = source.randint(1, int(1e9))
        return [self._stateless_seed, 0]

    def _warn_reuse(self) -> None:
        """tf_keras's warning when an unseeded instance draws again (it gives the same values each time)."""
        if getattr(self, "_used", False):
            if self.seed is None:
                warnings.warn(f"The initializer {type(self).__name__} is unseeded and being called multiple times, "
                              "which will return identical values each time (even if the initializer is unseeded). "
                              "Please update your code to provide a seed to the initializer, or avoid using the "
                              "same initializer instance more than once.", stacklevel=4)
        else:
            self._used = True

    def _uniform(self, shape: Any, low: float, high: float, dtype: Any) -> Any:
        return stateless.stateless_random_uniform(_dims(shape), self._seed_pair(), low, high, dtype)

    def _normal(self, shape: Any, mean: float, stddev: float, dtype: Any) -> Any:
        return stateless.stateless_random_normal(_dims(shape), self._seed_pair(), mean, stddev, dtype)

    def _truncated(self, shape: Any, mean: float, stddev: float, dtype: Any) -> Any:
        return stateless.stateless_truncated_normal(_dims(shape), self._seed_pair(), mean, stddev, dtype)


class Zeros(Initializer):
    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        return zeros(_dims(shape), dtype=_dtype(dtype))


class Ones(Initializer):
    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        return ones(_dims(shape), dtype=_dtype(dtype))


class Constant(Initializer):
    def __init__(self, value: Any = 0):
        self.value = value

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        dims = _dims(shape)
        if isinstance(self.value, (int, float)):
            return fill(dims, constant(self.value, dtype=_dtype(dtype)))
        return constant(self.value, dtype=_dtype(dtype), shape=dims)

    def get_config(self) -> dict:
        return {"value": self.value}


class RandomUniform(_Seeded):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        return self._uniform(shape, self.minval, self.maxval, _float_dtype(dtype, "RandomUniform"))

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class RandomNormal(_Seeded):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        return self._normal(shape, self.mean, self.stddev, _float_dtype(dtype, "RandomNormal"))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        return self._truncated(shape, self.mean, self.stddev, _float_dtype(dtype, "TruncatedNormal"))


def compute_fans(shape: list) -> tuple:
    """(fan_in, fan_out): a kernel [..., in, out] feeds each output from in * receptive-field inputs."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive_field = math.prod(shape[:-2])
    return shape[-2] * receptive_field, shape[-1] * receptive_field


class VarianceScaling(_Seeded):
    def __init__(self, scale: float = 1.0, mode: str = "fan_in", distribution: str = "truncated_normal",
                 seed: int | None = None):
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive float. Received: scale={scale}.")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        distribution = "truncated_normal" if distribution == "normal" else distribution
        if distribution not in {"uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        dtype = _float_dtype(dtype, "VarianceScaling")
        dims = _dims(shape)
        fan_in, fan_out = compute_fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            return self._truncated(dims, 0.0, math.sqrt(scale) / TRUNCATED_STD, dtype)
        if self.distribution == "untruncated_normal":
            return self._normal(dims, 0.0, math.sqrt(scale), dtype)
        limit = math.sqrt(3.0 * scale)
        return self._uniform(dims, -limit, limit, dtype)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed}


class _Preset(VarianceScaling):
    """A VarianceScaling with fixed (scale, mode, distribution): only `seed` is configurable."""

    PRESET: tuple = ()

    def __init__(self, seed: int | None = None):
        super().__init__(*self.PRESET, seed=seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class GlorotUniform(_Preset):
    PRESET = (1.0, "fan_avg", "uniform")


class GlorotNormal(_Preset):
    PRESET = (1.0, "fan_avg", "truncated_normal")


class LecunNormal(_Preset):
    PRESET = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_Preset):
    PRESET = (1.0, "fan_in", "uniform")


class HeNormal(_Preset):
    PRESET = (2.0, "fan_in", "truncated_normal")


class HeUniform(_Preset):
    PRESET = (2.0, "fan_in", "uniform")


class Orthogonal(_Seeded):
    """gain * Q of the QR decomposition of a normal matrix (rows = product of all dims but the last),
    columns' signs fixed by R's diagonal, so Q is unique."""

    def __init__(self, gain: float = 1.0, seed: int | None = None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        from webflow.ops.linalg_ops import diag_part, matrix_transpose, qr
        from webflow.ops.unary_math_ops import sign
        dtype = _float_dtype(dtype, "Orthogonal")
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. Received: "
                             f"shape={tuple(dims)} of rank {len(dims)}.")
        rows, cols = math.prod(dims[:-1]), dims[-1]
        a = self._normal([max(rows, cols), min(rows, cols)], 0.0, 1.0, dtype)
        q, r = qr(a, full_matrices=False)
        q = q * sign(diag_part(r))
        if rows < cols:
            q = matrix_transpose(q)
        return self.gain * reshape(q, dims)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    def __init__(self, gain: float = 1.0):
        self.gain = gain

    def __call__(self, shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
        from webflow.ops.linalg_ops import eye
        dims = _dims(shape)
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. Received: "
                             f"shape={tuple(dims)} of rank {len(dims)}.")
        return self.gain * eye(*dims, dtype=_float_dtype(dtype, "Identity"))

    def get_config(self) -> dict:
        return {"gain": self.gain}
