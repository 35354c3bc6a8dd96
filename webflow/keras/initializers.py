"""`keras.initializers`: the initializer classes of ops/init_ops.py under tf_keras's names, and `get(identifier)`.

Not exact: with a seed tf_keras draws from stateless random ops, webflow from its stateful ones (other numbers);
without a seed both are random, so tests give both libraries the same weights with `set_weights`.
"""

from __future__ import annotations

from typing import Any

from webflow.ops import init_ops
from webflow.ops.init_ops import (  # noqa: F401
    Constant,
    GlorotNormal,
    GlorotUniform,
    Identity,
    Initializer,
    Ones,
    Orthogonal,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
)


def HeNormal(seed: int | None = None) -> Any:  # noqa: N802 - tf_keras's class name
    return init_ops.he_normal(seed)


def HeUniform(seed: int | None = None) -> Any:  # noqa: N802
    return init_ops.he_uniform(seed)


def LecunNormal(seed: int | None = None) -> Any:  # noqa: N802
    return init_ops.lecun_normal(seed)


def LecunUniform(seed: int | None = None) -> Any:  # noqa: N802
    return init_ops.lecun_uniform(seed)


def _uniform(minval: float = -0.05, maxval: float = 0.05, seed: int | None = None) -> Any:
    """tf_keras's RandomUniform (defaults -0.05, 0.05; `"uniform"` for Embedding)."""
    return init_ops.RandomUniform(minval, maxval, seed=seed)


def _normal(mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> Any:
    """tf_keras's RandomNormal (standard deviation 0.05 by default)."""
    return init_ops.RandomNormal(mean, stddev, seed=seed)


RandomUniform, RandomNormal = _uniform, _normal  # noqa: F811 - tf_keras's defaults, not TF1's

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal, "random_normal": RandomNormal, "random_uniform": RandomUniform,
    "uniform": RandomUniform, "normal": RandomNormal,
    "truncated_normal": TruncatedNormal, "orthogonal": Orthogonal, "identity": Identity,
    "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform,
    "variance_scaling": VarianceScaling,
}


def get(identifier: Any) -> Any:
    """An initializer from a name (`"glorot_uniform"`, `"GlorotUniform"`), an instance or a callable."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    key = str(identifier)
    for name, factory in _BY_NAME.items():
        if key in (name, name.title().replace("_", ""), getattr(factory, "__name__", "")):
            return factory()
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


zeros, ones, glorot_uniform, glorot_normal = Zeros, Ones, GlorotUniform, GlorotNormal
he_normal, he_uniform = HeNormal, HeUniform
