"""Module-level scope helpers: `name_scope`, `device`, `control_dependencies`, collections on the default graph."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

from webflow.framework import context


class _EagerScope(threading.local):
    """The name scope of eager code ("outer/inner/"), which has no graph to keep it in (TensorFlow keeps it in
    its eager context). Nothing is made unique: two eager scopes of one name are the same scope."""

    name = ""


_EAGER_SCOPE = _EagerScope()


@contextlib.contextmanager
def name_scope_v1(name: str | None, default_name: str | None = None, values: Any = None) -> Iterator[str]:
    """TF1 `tf.name_scope(name, default_name, values)`: opens `name` (or `default_name`) in the default graph;
    eagerly, nests it in the eager scope (a name ending in '/' is taken whole, '' or None leaves every scope)."""
    if context.executing_eagerly():
        chosen = default_name if name is None else name
        old = _EAGER_SCOPE.name
        if not chosen:
            _EAGER_SCOPE.name = ""
        else:
            _EAGER_SCOPE.name = chosen if chosen.endswith("/") else old + chosen + "/"
        try:
            yield _EAGER_SCOPE.name
        finally:
            _EAGER_SCOPE.name = old
        return
    default = context.get_default_graph()
    # As TensorFlow's _get_graph_from_inputs: inside a function body (a cond branch, a loop body) the body's graph
    # wins; the values are outer tensors it captures.
    graph = default if default.building_function else (_graph_of(values) or default)
    with graph.as_default(), graph.name_scope(name if name is not None else default_name) as scope:
        yield scope


@contextlib.contextmanager
def name_scope_v2(name: str) -> Iterator[str]:
    """TF2 `tf.name_scope(name)`."""
    if name is None or (not isinstance(name, str)):
        raise ValueError(f"name for name_scope must be a string, got {name!r}")
    with name_scope_v1(name) as scope:
        yield scope


def _graph_of(values: Any) -> Any:
    for value in values or []:
        graph = getattr(value, "graph", None) if not hasattr(value, "numpy") else None
        if graph is not None:
            return graph
    return None


def get_name_scope() -> str:
    """The current name scope without its trailing '/': the eager scope when executing eagerly, else the
    default graph's."""
    if context.executing_eagerly():
        return _EAGER_SCOPE.name.rstrip("/")
    return context.get_default_graph().get_name_scope()


def get_default_graph() -> Any:
    return context.get_default_graph()


def reset_default_graph() -> None:
    context.reset_global_default_graph()


def device(device_name: Any) -> Any:
    if context.executing_eagerly():
        return contextlib.nullcontext()
    return context.get_default_graph().device(device_name)


def control_dependencies(control_inputs: Any) -> Any:
    if context.executing_eagerly():
        return contextlib.nullcontext()
    return context.get_default_graph().control_dependencies(control_inputs)


def colocate_with(op: Any, ignore_existing: bool = False) -> Any:
    """TF1's `tf.colocate_with`: in a graph, ops built in the block carry `_class = [loc:@<op>]` (Graph.colocate_with);
    eagerly there is one device, so nothing to record."""
    if context.executing_eagerly():
        return contextlib.nullcontext()
    return context.get_default_graph().colocate_with(op, ignore_existing)


def add_to_collection(name: str, value: Any) -> None:
    context.get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    context.get_default_graph().add_to_collections(names, value)


def get_collection(key: str, scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list:
    return context.get_default_graph().get_collection_ref(key)


def get_all_collection_keys() -> list:
    return context.get_default_graph().get_all_collection_keys()
