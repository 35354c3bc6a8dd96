"""Functional ops: ops whose kernels run traced sub-graphs (FuncGraphs) with the Session's executor.

- `If`: runs `then_branch` or `else_branch` (only the taken one: lazy, as TensorFlow's If).
- `While`: runs `body` while `cond` holds, feeding each iteration's outputs back in.
- `WhileGrad`: the While gradient: replays the loop keeping every iteration's loop variables, then
  runs the body's gradient graph backwards over the iterations.
- `PartitionedCall` / `StatefulPartitionedCall`: calls a `wf.function`'s traced graph.

Each kernel gets its sub-graphs as attrs and their extra inputs (captured outer tensors) as inputs, and runs
them with the runner that runtime/executor.py installs here (`install_runner`: ops/ sits below runtime/ and
may not import it). Gradients are functional ops again, over gradient graphs, registered for these op types
by autodiff/func_graph_gradients.py, so they work in graph mode (tf.gradients), on the eager tape, and inside
traced functions alike.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import context, random_generators
from webflow.framework.func_graph import FuncGraph
from webflow.ops.registry import apply_op, output_spec, register_op

# runtime/executor.py's run_func_graph(graph, values, resources, session) -> output values, once installed
_runner: Callable[..., list] | None = None


def install_runner(runner: Callable[..., list]) -> None:
    """Called by runtime/executor.py on import: how these kernels run a FuncGraph."""
    global _runner
    _runner = runner


def run_func_graph(graph: FuncGraph, values: list, resources: dict, session: Any = None, **options: Any) -> list:
    """Runs the FuncGraph `graph` on `values` with the executor's runner; returns its outputs' values.
    `options`: the runner's `extra_feeds` and `record` (runtime/executor.py)."""
    if _runner is None:
        raise RuntimeError("webflow.runtime.executor is not imported yet: nothing can run a function graph "
                           "(import webflow first)")
    return _runner(graph, values, resources, session, **options)


def _declared_outputs(inputs: list, attrs: dict) -> list:
    """Output shapes and dtypes as the traced sub-graph declared them (attrs Tout / output_shapes)."""
    return [output_spec(shape, dtype) for shape, dtype in zip(attrs["output_shapes"], attrs["Tout"])]


def kernel_result(values: list) -> Any:
    """How a kernel hands back outputs: a bare value for one output, None for none (as the executor expects)."""
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def output_list(result: Any) -> list:
    """apply_op's result for a functional op as a list of output tensors, whatever their number."""
    if isinstance(result, list):
        return result
    return [result] if hasattr(result, "dtype") else []


def _session_of(context: Any) -> Any:
    return getattr(context, "session", None)  # eager kernels run without a session


# --- If ------------------------------------------------------------------------------------------------
@register_op("If", "If", inputs=("cond", "*input"), shape=_declared_outputs, needs_context=True)
def if_kernel(context: Any, pred: Any, *inputs: Any, then_branch: Any, else_branch: Any, Tout: list,  # noqa: N803
              output_shapes: list) -> list:
    """outputs = then_branch(inputs) if pred else else_branch(inputs); only the taken branch runs."""
    branch = then_branch if bool(pred) else else_branch
    return kernel_result(run_func_graph(branch, list(inputs), context.resources, _session_of(context)))


# --- While ---------------------------------------------------------------------------------------------
_REPLAY = threading.local()


@contextlib.contextmanager
def replay() -> Any:
    """While the While gradient runs a loop's ops a second time (ops/tensor_array_state.py reads this)."""
    _REPLAY.depth = getattr(_REPLAY, "depth", 0) + 1
    try:
        yield
    finally:
        _REPLAY.depth -= 1


def replaying() -> bool:
    """True while a loop's ops are being run again for its gradient."""
    return getattr(_REPLAY, "depth", 0) > 0


def _loop_is_running(cond: Any, values: list, resources: dict, session: Any) -> bool:
    return bool(run_func_graph(cond, values, resources, session)[0])


@register_op("While", "While", inputs=("*input",), shape=_declared_outputs, needs_context=True)
def while_kernel(context: Any, *inputs: Any, cond: Any, body: Any, Tout: list, output_shapes: list,  # noqa: N803
                 parallel_iterations: int = 10, back_prop: bool = True) -> list:
    """while cond(vars): vars = body(vars); outputs = the final loop variables (captures stay fixed)."""
    count = len(body.outputs)
    values, captured = list(inputs), list(inputs[count:])
    resources, session = context.resources, _session_of(context)
    steps_draws = [] if back_prop and _draws_random(body) else None
    steps = _new_history(context, body, values) if back_prop else None
    while _loop_is_running(cond, values, resources, session):
        if steps is not None:
            steps.append(values)
        if steps_draws is None:
            values = run_func_graph(body, values, resources, session, record=steps) + captured
        else:
            with random_generators.recording_draws() as draws:  # for the gradient's replay of this step
                values = run_func_graph(body, values, resources, session, record=steps) + captured
            steps_draws.append(draws)
        if steps is not None:  # only what the gradient graphs read
            computed = steps[-1]
            steps[-1] = {uid: computed[uid] for uid in _kept_uids(body) if uid in computed}
    if steps_draws is not None:
        resources[_draws_key(body)] = steps_draws
    return kernel_result(values[:count])


# The forward loop keeps, for its gradient in the same run, each step's loop variables and every value the body
# computed (as TensorFlow's while_v2 keeps a step's intermediates in stacks): the WhileGrad then neither replays the
# loop nor recomputes the body's forward ops. Kept only when the body has a gradient graph, in the run's state.
def _history_key(body: Any) -> tuple:
    return ("while_history", id(body))


def _new_history(context: Any, body: Any, inputs: list) -> list | None:
    """The list the loop appends [vars_0, values_0, vars_1, values_1, ...] to, or None if nothing needs it."""
    run_state = getattr(context, "run_state", None)
    if run_state is None or not body._gradient_graphs:
        return None
    steps: list = []
    run_state.setdefault(_history_key(body), []).append((inputs, steps))
    return steps


def _kept_uids(body: Any) -> set:
    """The forward tensors some gradient graph of `body` reads (autodiff/func_graph_gradients.py: forward_twins)."""
    kept = getattr(body, "_kept_for_gradients", None)
    if kept is None or kept[0] != len(body._gradient_graphs):
        uids = {uid for graph in body._gradient_graphs.values() for uid in getattr(graph, "forward_twins", {})}
        kept = body._kept_for_gradients = (len(body._gradient_graphs), uids)
    return kept[1]


def _find_history(context: Any, body: Any, inputs: list) -> list | None:
    """The steps recorded by this run's forward loop that started from exactly these values (else None: replay)."""
    run_state = getattr(context, "run_state", None) or {}
    for started, steps in run_state.get(_history_key(body), ()):
        if len(started) == len(inputs) and all(a is b for a, b in zip(started, inputs)):
            return steps
    return None


def _draws_key(body: Any) -> tuple:
    return ("while_step_draws", id(body))


def _draws_random(graph: Any) -> bool:
    """Whether running `graph` runs a random op (directly or in a sub-graph of its ops). Cached per graph."""
    found = getattr(graph, "_draws_random", None)
    if found is None:
        found = any(op.type in random_generators.RANDOM_OP_TYPES
                    or any(isinstance(v, FuncGraph) and _draws_random(v) for v in op._attrs.values())
                    for op in graph.get_operations())
        graph._draws_random = found
    return found


def _step_draws(resources: dict, body: Any, step: int) -> Any:
    """Step `step`'s recorded random draws of the forward loop over `body` in this run (None: nothing to fix)."""
    steps = resources.get(_draws_key(body))
    return steps[step] if steps is not None and step < len(steps) else None


@register_op("WhileGrad", "WhileGrad", inputs=("*input",), shape=_declared_outputs, needs_context=True)
def while_grad_kernel(context: Any, *inputs: Any, cond: Any, body: Any, body_grad: Any, wanted: tuple,
                      Tout: list, output_shapes: list) -> list:  # noqa: N803
    """Replays the loop keeping vars_k per iteration; then g <- body'(vars_k, g) for k = last..0.

    Gradients for captured tensors (weights, variables read in the body) add up over iterations.
    """
    with replay():  # the loop's ops run again: stateful kernels (TensorArrays) must not see it as a new run
        return _replay_and_differentiate(context, list(inputs), body, body_grad, cond, wanted)


def _replay_and_differentiate(context: Any, inputs: list, body: Any, body_grad: Any, cond: Any, wanted: tuple) -> Any:
    count = len(body.outputs)
    forward, grads = list(inputs[:len(body.inputs)]), list(inputs[len(body.inputs):])
    resources, session = context.resources, _session_of(context)
    recorded = _find_history(context, body, forward)
    history = recorded[0::2] if recorded is not None else _replay(body, cond, forward, count, resources, session)
    twins = _twin_feeds(body_grad, recorded[1]) if recorded else None
    totals: dict[int, Any] = {}
    for index in reversed(range(len(history))):
        values = history[index]
        fed = {copy: recorded[2 * index + 1][uid] for uid, copy in twins} if twins else None
        with random_generators.fixed_draws(_step_draws(resources, body, index)):
            step = dict(zip(wanted, run_func_graph(body_grad, values + grads, resources, session,
                                                   extra_feeds=fed)))
        grads = [step.get(i, backend_values.zeros_like(g)) for i, g in enumerate(grads)]
        for i in wanted:
            if i >= count:
                totals[i] = step[i] if i not in totals else backend_values.add(totals[i], step[i])
    return kernel_result([grads[i] if i < count else totals.get(i, _zeros_for(forward[i])) for i in wanted])


def _replay(body: Any, cond: Any, forward: list, count: int, resources: dict, session: Any) -> list:
    """Runs the loop again from `forward`, keeping each step's loop variables (no recorded forward run)."""
    history, values, captured = [], forward, forward[count:]
    while _loop_is_running(cond, values, resources, session):
        history.append(values)
        with random_generators.fixed_draws(_step_draws(resources, body, len(history) - 1)):
            values = run_func_graph(body, values, resources, session) + captured
    return history


def _twin_feeds(body_grad: Any, computed: dict) -> list:
    """(forward uid, copy uid) for the forward values a step computed whose copies in the gradient graph can be fed
    (the same for every step: one plan). A None is a variable read the executor skipped: it is read again."""
    twins = getattr(body_grad, "forward_twins", {})
    return [(uid, copy) for uid, copy in twins.items() if computed.get(uid) is not None]


def _zeros_for(value: Any) -> Any:
    """Zeros shaped like a captured value (for a variable handle: like the variable's value)."""
    return backend_values.zeros_like(value._value if hasattr(value, "_value") else value)


# --- calls to traced functions -----------------------------------------------------------------------
def call_kernel(context: Any, *inputs: Any, f: Any, Tout: list, output_shapes: list) -> list:  # noqa: N803
    """outputs = f(inputs): runs the traced function graph `f`."""
    return kernel_result(run_func_graph(f, list(inputs), context.resources, _session_of(context)))


register_op("PartitionedCall", "PartitionedCall", inputs=("*args",), shape=_declared_outputs,
            needs_context=True)(call_kernel)
register_op("StatefulPartitionedCall", "StatefulPartitionedCall", inputs=("*args",), shape=_declared_outputs,
            needs_context=True, stateful=True)(call_kernel)


# Called with a traced function's graph the first time it runs eagerly (when TensorFlow would instantiate it):
# tf.summary.trace_on's recorder (summary/trace.py) adds itself here while a trace is on.
FIRST_RUN_LISTENERS: list[Callable[[Any], None]] = []
_RAN_EAGERLY: weakref.WeakSet = weakref.WeakSet()


def call_function(graph: Any, inputs: list, name: str | None = None) -> list:
    """Applies the traced function `graph` to `inputs` (its arguments, then its captured tensors)."""
    if context.executing_eagerly() and graph not in _RAN_EAGERLY:
        _RAN_EAGERLY.add(graph)
        for listener in list(FIRST_RUN_LISTENERS):
            listener(graph)
    op_type = "StatefulPartitionedCall" if graph.stateful_ops else "PartitionedCall"
    result = apply_op(op_type, inputs, {"f": graph, "Tout": [t.dtype.base_dtype for t in graph.outputs],
                                        "output_shapes": [t.shape for t in graph.outputs]}, name=name)
    return output_list(result)

