"""`tf.Module`: a named container of variables and other modules, which a `tf.train.Checkpoint` saves.

Its variables are found by walking its attributes (TensorFlow's `_flatten_module`): the module's own attributes
sorted by name, each value flattened (lists in order, dicts by sorted key), every object seen once; then the
submodules found, in the same order, each walked the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from webflow.framework.scopes import name_scope_v2
from webflow.train.trackable import IGNORED_PROPERTIES, AutoTrackable, is_variable

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _camel_to_snake(name: str) -> str:
    """TensorFlow's module naming: `MyDense` -> `my_dense`."""
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def _leaves(value: Any) -> Iterator[Any]:
    """tf.nest's flattening: lists and tuples in order, dicts by sorted key, anything else a leaf."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key])
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    else:
        yield value


class Module(AutoTrackable):
    """`tf.Module(name=None)`: `variables`, `trainable_variables`, `non_trainable_variables`, `submodules`."""

    def __init__(self, name: str | None = None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _IDENTIFIER.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python "
                             "identifiers (e.g. a valid class name).")
        self._name = name
        self._scope_name = name + "/"

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> Any:
        """A context manager entering this module's name scope."""
        return name_scope_v2(self._scope_name)

    def _flatten(self, predicate: Callable[[Any], bool]) -> tuple:
        found: list = []
        seen = {id(self)}
        visiting: list = []

        def walk(module: Any) -> None:
            visiting.append(id(module))
            submodules = []
            for key in sorted(vars(module)):
                if key in IGNORED_PROPERTIES:
                    continue
                for leaf in _leaves(vars(module)[key]):
                    if id(leaf) in seen:
                        continue
                    seen.add(id(leaf))
                    if predicate(leaf):
                        found.append(leaf)
                    if isinstance(leaf, Module) and id(leaf) not in visiting:
                        submodules.append(leaf)
            for submodule in submodules:
                walk(submodule)
            visiting.pop()

        walk(self)
        return tuple(found)

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its submodules (each once)."""
        return self._flatten(is_variable)

    @property
    def trainable_variables(self) -> tuple:
        return self._flatten(lambda leaf: is_variable(leaf) and leaf.trainable)

    @property
    def non_trainable_variables(self) -> tuple:
        return self._flatten(lambda leaf: is_variable(leaf) and not leaf.trainable)

    @property
    def submodules(self) -> tuple:
        """Every module reachable from this one's attributes (not itself)."""
        return self._flatten(lambda leaf: isinstance(leaf, Module))

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorates a method to run inside the module's name scope."""
        def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        wrapped.__name__ = method.__name__
        wrapped.__doc__ = method.__doc__
        return wrapped

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {id(self):#x}>"
