"""Functional ops: ops whose kernels run traced sub-graphs (FuncGraphs) with the Session's executor.

- `If`: runs `then_branch` or `else_branch` (only the taken one: lazy, as TensorFlow's If).
- `While`: runs `body` while `cond` holds, feeding each iteration's outputs back in.
- `WhileGrad`: the While gradient: replays the loop keeping every iteration's loop variables, then
  runs the body's gradient graph backwards over the iterations.
- `PartitionedCall` / `StatefulPartitionedCall`: calls a `wf.function`'s traced graph.

Each kernel gets its sub-graphs as attrs and their extra inputs (captured outer tensors) as inputs.
Gradients are functional ops again, over gradient graphs (autodiff/func_graph_gradients.py), so they
work in graph mode (tf.gradients), on the eager tape, and inside traced functions alike.
"""

from __future__ import annotations

from typing import Any

from webflow.backends import values as backend_values
from webflow.framework import dtypes
from webflow.framework.func_graph import resource_spec, run_func_graph
from webflow.ops.registry import apply_op, output_spec, register_gradient, register_op


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


def _gradient_tools() -> tuple:
    from webflow.autodiff.func_graph_gradients import differentiable_indices, gradient_graph

    return differentiable_indices, gradient_graph


def _scatter(wanted: tuple, results: Any, count: int) -> list:
    """A list of `count` gradients: results[k] at position wanted[k], None elsewhere."""
    results = output_list(results)
    by_index = dict(zip(wanted, results))
    return [by_index.get(i) for i in range(count)]


def _specs_of(tensors: list) -> tuple[list, list]:
    """(shapes, dtypes) for gradients w.r.t. `tensors`; a variable handle's gradient has the variable's."""
    shapes, types = [], []
    for tensor in tensors:
        spec = resource_spec(tensor) if tensor.dtype is dtypes.resource else (tensor.shape, tensor.dtype.base_dtype)
        shape, dtype = spec or (None, dtypes.float32)
        shapes.append(shape)
        types.append(dtype)
    return shapes, types


# --- If ------------------------------------------------------------------------------------------------
@register_op("If", "If", inputs=("cond", "*input"), shape=_declared_outputs, needs_context=True)
def if_kernel(context: Any, pred: Any, *inputs: Any, then_branch: Any, else_branch: Any, Tout: list,  # noqa: N803
              output_shapes: list) -> list:
    """outputs = then_branch(inputs) if pred else else_branch(inputs); only the taken branch runs."""
    branch = then_branch if bool(pred) else else_branch
    return kernel_result(run_func_graph(branch, list(inputs), context.resources, _session_of(context)))


@register_gradient("If")
def _if_grad(op: Any, *grads: Any) -> list:
    """d inputs = If(pred, then_branch', else_branch')(inputs, grads): the taken branch's gradient."""
    differentiable_indices, gradient_graph = _gradient_tools()
    inputs = list(op.inputs[1:])
    wanted = differentiable_indices(inputs)
    if not wanted:
        return [None] * len(op.inputs)
    then_grad = gradient_graph(op.get_attr("then_branch"), wanted)
    else_grad = gradient_graph(op.get_attr("else_branch"), wanted)
    shapes, types = _specs_of([inputs[i] for i in wanted])
    results = apply_op("If", [op.inputs[0]] + inputs + list(grads), {
        "then_branch": then_grad, "else_branch": else_grad, "Tout": types, "output_shapes": shapes})
    return [None] + _scatter(wanted, results, len(inputs))


# --- While ---------------------------------------------------------------------------------------------
def _loop_is_running(cond: Any, values: list, resources: dict, session: Any) -> bool:
    return bool(run_func_graph(cond, values, resources, session)[0])


@register_op("While", "While", inputs=("*input",), shape=_declared_outputs, needs_context=True)
def while_kernel(context: Any, *inputs: Any, cond: Any, body: Any, Tout: list, output_shapes: list,  # noqa: N803
                 parallel_iterations: int = 10, back_prop: bool = True) -> list:
    """while cond(vars): vars = body(vars); outputs = the final loop variables (captures stay fixed)."""
    count = len(body.outputs)
    values, captured = list(inputs), list(inputs[count:])
    resources, session = context.resources, _session_of(context)
    while _loop_is_running(cond, values, resources, session):
        values = run_func_graph(body, values, resources, session) + captured
    return kernel_result(values[:count])


@register_gradient("While")
def _while_grad(op: Any, *grads: Any) -> list:
    """d (initial loop vars, captures) = WhileGrad: the body's gradient applied over the iterations in reverse."""
    if not op.get_attr("back_prop"):
        return [None] * len(op.inputs)
    differentiable_indices, gradient_graph = _gradient_tools()
    inputs = list(op.inputs)
    wanted = differentiable_indices(inputs)
    if not wanted:
        return [None] * len(inputs)
    body = op.get_attr("body")
    shapes, types = _specs_of([inputs[i] for i in wanted])
    results = apply_op("WhileGrad", inputs + list(grads), {
        "cond": op.get_attr("cond"), "body": body, "body_grad": gradient_graph(body, wanted),
        "wanted": wanted, "Tout": types, "output_shapes": shapes}, name="WhileGrad")
    return _scatter(wanted, results, len(inputs))


@register_op("WhileGrad", "WhileGrad", inputs=("*input",), shape=_declared_outputs, needs_context=True)
def while_grad_kernel(context: Any, *inputs: Any, cond: Any, body: Any, body_grad: Any, wanted: tuple,
                      Tout: list, output_shapes: list) -> list:  # noqa: N803
    """Replays the loop keeping vars_k per iteration; then g <- body'(vars_k, g) for k = last..0.

    Gradients for captured tensors (weights, variables read in the body) add up over iterations.
    """
    count = len(body.outputs)
    forward, grads = list(inputs[:len(body.inputs)]), list(inputs[len(body.inputs):])
    resources, session = context.resources, _session_of(context)
    history, values, captured = [], forward, forward[count:]
    while _loop_is_running(cond, values, resources, session):
        history.append(values)
        values = run_func_graph(body, values, resources, session) + captured
    totals: dict[int, Any] = {}
    for values in reversed(history):
        step = dict(zip(wanted, run_func_graph(body_grad, values + grads, resources, session)))
        grads = [step.get(i, backend_values.zeros_like(g)) for i, g in enumerate(grads)]
        for i in wanted:
            if i >= count:
                totals[i] = step[i] if i not in totals else totals[i] + step[i]
    return kernel_result([grads[i] if i < count else totals.get(i, _zeros_for(forward[i])) for i in wanted])


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


def call_function(graph: Any, inputs: list, name: str | None = None) -> list:
    """Applies the traced function `graph` to `inputs` (its arguments, then its captured tensors)."""
    op_type = "StatefulPartitionedCall" if graph.stateful_ops else "PartitionedCall"
    result = apply_op(op_type, inputs, {"f": graph, "Tout": [t.dtype.base_dtype for t in graph.outputs],
                                        "output_shapes": [t.shape for t in graph.outputs]}, name=name)
    return output_list(result)


def _call_grad(op: Any, *grads: Any) -> list:
    """d inputs = the gradient graph of f, called on (inputs, grads)."""
    differentiable_indices, gradient_graph = _gradient_tools()
    inputs = list(op.inputs)
    wanted = differentiable_indices(inputs)
    if not wanted:
        return [None] * len(inputs)
    results = call_function(gradient_graph(op.get_attr("f"), wanted), inputs + list(grads))
    return _scatter(wanted, results, len(inputs))


register_gradient("PartitionedCall")(_call_grad)
register_gradient("StatefulPartitionedCall")(_call_grad)
