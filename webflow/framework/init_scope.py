"""`tf.init_scope()`: step out of every function being traced, to make state that must outlive the trace.

    @wf.function
    def step(x):
        with wf.init_scope():           # runs eagerly, even while `step` is being traced
            slots = wf.Variable(wf.zeros([3]))

Inside, ops go to the *outer context*: the innermost default graph that is not building a function (a TF1
graph), or eager execution when every graph on the stack is a function being built (TF2). As TensorFlow's:
- control dependencies are cleared (the outer graph's own ones too): what is made here never waits on a step;
- the name scope is kept: a slot made in `with name_scope("Adam")` is still named "Adam/...";
- gradient tapes stop recording: making a variable is not part of the loss.
Optimizers make their slot variables here, so that a first traced step can make them (runtime/function.py
lets a variable be made only while a function is traced the first time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from webflow.framework import context, scopes


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Lifts the ops and variables made in this block out of all function-building graphs."""
    scope = scopes.get_name_scope()
    outer = outer_graph_stack()
    saved_graphs = context.swap_graph_stack(outer)
    saved_tapes = context.swap_tape_recorders([])
    try:
        with _cleared_control_dependencies(), scopes.name_scope_v1(scope + "/" if scope else ""):
            yield
    finally:
        context.swap_tape_recorders(saved_tapes)
        context.swap_graph_stack(saved_graphs)


def outer_graph_stack() -> list[Any]:
    """The default-graph stack of the outer context: cut after the innermost graph that is not building a function,
    empty when there is none (then the outer context is eager execution, or TF1's global default graph)."""
    stack = context.graph_stack()
    for index in range(len(stack) - 1, -1, -1):
        if not getattr(stack[index], "building_function", False):
            return list(stack[:index + 1])
    if not context.eager_enabled_globally() and context.global_default_graph().building_function:
        raise AssertionError("All graphs are building functions, and no eager context was previously active.")
    return []


def lifts_to_eager() -> bool:
    """True when init_scope would run its block eagerly (a TF2 function is being traced, or no graph at all)."""
    return context.eager_enabled_globally() and not outer_graph_stack()


def building_function_in_eager() -> bool:
    """True while a function is being traced whose outer context is eager (wf.function in TF2)."""
    return not context.executing_eagerly() and context.get_default_graph().building_function and lifts_to_eager()


@contextlib.contextmanager
def _cleared_control_dependencies() -> Iterator[None]:
    if context.executing_eagerly():
        yield
        return
    with context.get_default_graph().control_dependencies(None):
        yield


__all__ = ["init_scope", "outer_graph_stack", "lifts_to_eager", "building_function_in_eager"]
