"""The `{"module", "class_name", "config", "registered_name"}` dicts tf_keras writes for its objects, and reading
an identifier (None, a name, such a dict or a callable) back into an object."""

from __future__ import annotations

from typing import Any


def serialize_keras_object(instance: Any, module: str) -> dict:
    """`instance` as tf_keras serializes it: its class name and `get_config()` under `module`."""
    return {"module": module, "class_name": type(instance).__name__, "config": instance.get_config(),
            "registered_name": None}


def get_by_name(identifier: Any, by_name: dict, what: str) -> Any:
    """None, a name (`by_name[name]()`), a config dict or a callable; else tf_keras's ValueError naming `what`."""
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in by_name:
        return by_name[identifier]()
    if isinstance(identifier, dict) and identifier.get("class_name") in by_name:
        return by_name[identifier["class_name"]](**identifier.get("config", {}))
    raise ValueError(f"Could not interpret {what} identifier: {identifier}")


__all__ = ["serialize_keras_object", "get_by_name"]
