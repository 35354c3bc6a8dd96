"""Which mode we are in (eager or graph), the default-graph stack, and hooks for active tapes.

Eager is the default (as in TF2). Entering `graph.as_default()` switches to graph mode for that
block; `disable_eager_execution()` (TF1 style) switches to graph mode everywhere.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class _ModeState(threading.local):
    def __init__(self) -> None:
        self.graph_stack: list[Any] = []
        self.tape_recorders: list[Callable[..., None]] = []
        self.device_stack: list[str] = []
        self.variable_creation_hooks: list[Callable[[], None]] = []


_state = _ModeState()
_eager_enabled = True
_global_default_graph: Any = None
# What global_default_graph() creates: graph.py registers `Graph` when it is imported (graph.py imports this
# module, so this one cannot import it back).
_graph_factory: Callable[[], Any] | None = None


def executing_eagerly() -> bool:
    """True when ops run immediately (no graph is being built)."""
    return _eager_enabled and not _state.graph_stack


def eager_enabled_globally() -> bool:
    return _eager_enabled


def enable_eager_execution() -> None:
    global _eager_enabled
    _eager_enabled = True


def disable_eager_execution() -> None:
    global _eager_enabled
    _eager_enabled = False


def push_graph(graph: Any) -> None:
    _state.graph_stack.append(graph)


def pop_graph(graph: Any) -> None:
    if not _state.graph_stack or _state.graph_stack[-1] is not graph:
        raise AssertionError("Nesting violated for default graph stack.")
    _state.graph_stack.pop()


def get_default_graph() -> Any:
    if _state.graph_stack:
        return _state.graph_stack[-1]
    return global_default_graph()


def global_default_graph() -> Any:
    global _global_default_graph
    if _global_default_graph is None:
        if _graph_factory is None:
            raise RuntimeError("webflow.framework.graph is not imported yet, so there is no Graph class to make "
                               "the default graph with (import webflow first)")
        _global_default_graph = _graph_factory()
    return _global_default_graph


def set_graph_factory(factory: Callable[[], Any]) -> None:
    """Called by framework/graph.py on import: `factory()` makes the global default graph."""
    global _graph_factory
    _graph_factory = factory


def reset_global_default_graph() -> None:
    global _global_default_graph
    if _state.graph_stack:
        raise AssertionError(
            "Do not use tf.reset_default_graph() to clear nested graphs. If you need a cleared graph, "
            "exit the nesting and create a new graph.")
    _global_default_graph = None


def graph_stack() -> list[Any]:
    return _state.graph_stack


def swap_graph_stack(stack: list[Any]) -> list[Any]:
    """Installs `stack` as the default-graph stack and returns the old one (init_scope leaves the functions being
    built this way, and puts the old stack back on exit)."""
    old, _state.graph_stack = _state.graph_stack, stack
    return old


# --- tapes: autodiff/tape.py pushes a recorder; apply_op calls them for each eager op -------------
def push_tape_recorder(recorder: Callable[..., None]) -> None:
    _state.tape_recorders.append(recorder)


def pop_tape_recorder(recorder: Callable[..., None]) -> None:
    if recorder in _state.tape_recorders:   # absent inside init_scope, which set the active tapes aside
        _state.tape_recorders.remove(recorder)


def tape_recorders() -> list[Callable[..., None]]:
    return _state.tape_recorders


def swap_tape_recorders(recorders: list[Callable[..., None]]) -> list[Callable[..., None]]:
    """Installs `recorders` as the active tapes and returns the old ones (init_scope stops recording)."""
    old, _state.tape_recorders = _state.tape_recorders, recorders
    return old


# --- tf.function's rule on variables: a hook per function being traced, called before a variable is made -------
def push_variable_creation_hook(hook: Callable[[], None]) -> None:
    _state.variable_creation_hooks.append(hook)


def pop_variable_creation_hook(hook: Callable[[], None]) -> None:
    _state.variable_creation_hooks.remove(hook)


def variable_creation_hooks() -> list[Callable[[], None]]:
    """Innermost first: each may raise (a later trace may not make variables) or take note of the variable."""
    return _state.variable_creation_hooks[::-1]


# --- eager device scopes (graph mode keeps its own stack in Graph) --------------------------------
def device_stack() -> list[str]:
    return _state.device_stack
