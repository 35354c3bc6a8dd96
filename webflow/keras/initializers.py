"""`keras.initializers` (= `tf.initializers` in TF2): tf_keras's initializer classes (initializer_classes.py)
under their class names and snake-case aliases, and `get` / `serialize` / `deserialize`.

Seeded initializers give tf_keras's exact values (the stateless random ops with seed [seed, 0])."""

from __future__ import annotations

from typing import Any

from webflow.keras.initializer_classes import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    Identity,
    Initializer,
    LecunNormal,
    LecunUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
)
from webflow.keras.serialization import serialize_keras_object

_CLASSES = (Zeros, Ones, Constant, RandomUniform, RandomNormal, TruncatedNormal, VarianceScaling, GlorotUniform,
            GlorotNormal, LecunNormal, LecunUniform, HeNormal, HeUniform, Orthogonal, Identity)
_ALIASES = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "uniform": RandomUniform, "normal": RandomNormal,
    "random_uniform": RandomUniform, "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling, "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "lecun_normal": LecunNormal, "lecun_uniform": LecunUniform, "he_normal": HeNormal, "he_uniform": HeUniform,
    "orthogonal": Orthogonal, "identity": Identity,
}
_BY_NAME = {**{cls.__name__: cls for cls in _CLASSES}, **_ALIASES}


def serialize(initializer: Any) -> dict:
    return serialize_keras_object(initializer, "keras.initializers")


def deserialize(config: dict, custom_objects: Any = None) -> Any:
    classes = {**_BY_NAME, **(custom_objects or {})}
    name = config["class_name"]
    if name not in classes:
        raise ValueError(f"Unknown initializer: '{name}'. Please ensure you are using a `keras.utils."
                         "custom_object_scope` and that this object is included in the scope.")
    return classes[name].from_config(config.get("config", {}))


def get(identifier: Any) -> Any:
    """An initializer from a name (`"glorot_uniform"`, `"GlorotUniform"`), a config dict, an instance, a class
    or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Could not interpret initializer identifier: {identifier}")
        return _BY_NAME[identifier]()
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


zeros, ones, constant, identity, orthogonal = Zeros, Ones, Constant, Identity, Orthogonal
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
lecun_normal, lecun_uniform, variance_scaling = LecunNormal, LecunUniform, VarianceScaling
random_uniform, random_normal, truncated_normal = RandomUniform, RandomNormal, TruncatedNormal

__all__ = [cls.__name__ for cls in _CLASSES] + ["Initializer", "get", "serialize", "deserialize"]
