"""The gradient of a traced sub-graph (a cond branch, a loop body, a `wf.function`) as another FuncGraph, and
the gradients of the ops that run sub-graphs (If, While, PartitionedCall, StatefulPartitionedCall), registered
here for those op types of ops/functional_ops.py (ops/ sits below autodiff/ and may not import it; autodiff's
`__init__` imports this module, so they are registered whenever gradients can be taken).

`gradient_graph(forward, wanted)` builds a FuncGraph that takes the forward graph's inputs plus one
gradient per forward output, and returns d(outputs)/d(inputs[i]) for each i in `wanted`:

1. copy the forward ops into the new graph (same types, attrs, names and output specs);
2. call `gradients()` there, from the copied outputs (seeded with the incoming gradients) to the
   copied inputs — the same gradient rules as everywhere else, so nested cond/while/function work.

The backward graph therefore *recomputes* the forward values it needs instead of keeping them from
the forward run. That is exact for stateless sub-graphs, and random ops are made to replay the numbers
their forward twin drew in the same run (framework/random_generators.py, REPLAY_ATTR), so a dropout mask in a cond
branch is the same forward and backward. (In a while_loop body each step replays that step's draw: the
forward While records them, ops/functional_ops.py.) For other stateful ops it differs from
TensorFlow: the copy drops control edges and the backward pass runs only what the gradients need, so
assignments are not replayed, and a variable read is recomputed from the variable's value *after*
the forward call (TensorFlow keeps the value read during the forward pass).
"""

from __future__ import annotations

from typing import Any

from webflow.autodiff.gradients import gradients
from webflow.framework import dtypes
from webflow.framework.func_graph import FuncGraph, resource_spec
from webflow.framework.graph import Graph
from webflow.framework.random_generators import RANDOM_OP_TYPES, REPLAY_ATTR
from webflow.framework.tensor import EagerTensor
from webflow.ops.functional_ops import call_function, output_list
from webflow.ops.registry import apply_op, register_gradient


def differentiable_indices(tensors: Any) -> tuple:
    """Positions of the inputs a gradient can flow to: floating tensors and variable handles (a TensorArray's
    handle is not one: its gradient flows through its flow tensor)."""
    return tuple(i for i, t in enumerate(tensors)
                 if t.dtype.is_floating or t.dtype.base_dtype.is_complex
                 or (t.dtype is dtypes.resource and not _is_tensor_array_handle(t)))


def _is_tensor_array_handle(tensor: Any) -> bool:
    """True for a TensorArrayV3/TensorArrayGradV3 handle, or a function graph's capture of one."""
    while not isinstance(tensor, EagerTensor) and tensor.op.type == "Placeholder":
        outer = next((o for o, inner in getattr(tensor.graph, "captures", ()) if inner is tensor), None)
        if outer is None:
            return False
        tensor = outer
    if isinstance(tensor, EagerTensor):  # eager TensorArrays hold no handle: this is a variable's
        return False
    return tensor.op.type in ("TensorArrayV3", "TensorArrayGradV3")


def gradient_graph(forward: FuncGraph, wanted: tuple) -> FuncGraph:
    """A FuncGraph: (forward inputs..., output grads...) -> (grad of inputs[i] for i in wanted). Cached."""
    cached = forward._gradient_graphs.get(wanted)
    if cached is not None:
        return cached
    graph = FuncGraph(forward.name + "_grad")
    graph.random_state_owner = getattr(forward, "random_state_owner", None) or forward   # replays its draws
    with graph.as_default():
        copies = _copy_inputs(forward, graph)
        inputs = set(copies)
        _copy_ops(forward, graph, copies)
        # a rule that closes over forward tensors (tf.custom_gradient's grad) reads their copies here
        graph._captured.update(copies)
        ys = [copies[t._uid] for t in forward.outputs]
        grad_ys = [graph.add_placeholder(t.dtype.base_dtype, t.shape, "output_grad") for t in forward.outputs]
        xs = [copies[forward.inputs[i]._uid] for i in wanted]
        grads = gradients(ys, xs, grad_ys=grad_ys) if ys and xs else [None] * len(xs)
        graph.outputs = [_dense_or_zeros(g, x, graph) for g, x in zip(grads, xs)]
    # {forward tensor uid: its copy's uid} for the copies the gradient ops read: a While's gradient feeds them the
    # values the forward loop computed, so they are not computed again (functional_ops.py, WhileGrad)
    graph.forward_twins = _read_by_gradients(graph, copies, inputs)
    graph.inputs = [copies[t._uid] for t in forward.inputs] + grad_ys
    graph.stateful_ops = []  # run only what the gradients need (see the module docstring)
    forward._gradient_graphs[wanted] = graph
    return graph


def _read_by_gradients(graph: FuncGraph, copies: dict, inputs: set) -> dict:
    """{forward uid: copy uid} for the copied forward tensors (not inputs) that an op other than a copy reads."""
    copied_ops = {copy.op._id for uid, copy in copies.items() if uid not in inputs}
    read = {t._uid for op in graph.get_operations() if op._id not in copied_ops for t in op.inputs}
    read.update(t._uid for t in graph.outputs)
    return {uid: copy._uid for uid, copy in copies.items() if uid not in inputs and copy._uid in read}


def _copy_inputs(forward: FuncGraph, graph: FuncGraph) -> dict:
    """Placeholders with the forward placeholders' names, so copied op names stay unique as they were."""
    copies = {}
    for tensor in forward.inputs:
        copy = graph.add_placeholder(tensor.dtype, tensor.shape, tensor.op.name)
        copies[tensor._uid] = copy
        if tensor._uid in forward.resource_specs:
            graph.resource_specs[copy._uid] = forward.resource_specs[tensor._uid]
    for tensor, key in forward.ref_captures:
        copy = graph.add_placeholder(tensor.dtype, tensor.shape, tensor.op.name)
        copies[tensor._uid] = copy
        graph.ref_captures.append((copy, key))
    return copies


def _copy_ops(forward: FuncGraph, graph: FuncGraph, copies: dict) -> None:
    """Re-creates each forward op (except the input placeholders) in `graph`, wiring inputs through `copies`."""
    for op in forward.get_operations():
        if op.outputs and op.outputs[0]._uid in copies:
            continue  # an input placeholder: already copied
        if any(t._uid not in copies for t in op.inputs):
            continue
        specs = [(t.shape, t.dtype) for t in op.outputs]
        attrs = dict(op._attrs)
        if op.type in RANDOM_OP_TYPES:
            attrs[REPLAY_ATTR] = True   # draw the forward's numbers again, not fresh ones
        new_op = Graph._create_op(graph, op.type, [copies[t._uid] for t in op.inputs], specs, op.name,
                                  attrs, op._opdef)
        if getattr(op, "_gradient_op_type", None):  # built under gradient_override_map (tf.custom_gradient)
            new_op._gradient_op_type = op._gradient_op_type
        for old, new in zip(op.outputs, new_op.outputs):
            copies[old._uid] = new


def _dense_or_zeros(grad: Any, x: Any, graph: FuncGraph) -> Any:
    """The gradient as a dense tensor; zeros (shaped like x, or like the variable x points to) if unconnected."""
    from webflow.ops import array_ops, math_ops

    if grad is not None:
        return math_ops.to_dense(grad)
    if x.dtype is dtypes.resource:
        shape, dtype = resource_spec(x) or (None, dtypes.float32)
        value = apply_op("ReadVariableOp", [x], {"dtype": dtype, "shape": shape})
        return array_ops.zeros_like(value)
    return array_ops.zeros_like(x)


# --- the gradients of the functional ops ---------------------------------------------------------------
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


@register_gradient("If")
def _if_grad(op: Any, *grads: Any) -> list:
    """d inputs = If(pred, then_branch', else_branch')(inputs, grads): the taken branch's gradient."""
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


@register_gradient("While")
def _while_grad(op: Any, *grads: Any) -> list:
    """d (initial loop vars, captures) = WhileGrad: the body's gradient applied over the iterations in reverse."""
    if not op.get_attr("back_prop"):
        return [None] * len(op.inputs)
    inputs = list(op.inputs)
    wanted = differentiable_indices(inputs)
    if not wanted:
        return [None] * len(inputs)
    body = op.get_attr("body")
    shapes, types = _specs_of([inputs[i] for i in wanted])
    # after the forward loop, as in TensorFlow (whose gradient reads the loop's stacks): a gradient that needs
    # none of the loop's outputs (foldl's sum) would otherwise run first and read its TensorArrays before it
    after, body_grad = [op] if not isinstance(op.graph, FuncGraph) else [], gradient_graph(body, wanted)
    with op.graph.control_dependencies(after):
        results = apply_op("WhileGrad", inputs + list(grads), {
            "cond": op.get_attr("cond"), "body": body, "body_grad": body_grad,
            "wanted": wanted, "Tout": types, "output_shapes": shapes}, name="WhileGrad")
    return _scatter(wanted, results, len(inputs))


def _call_grad(op: Any, *grads: Any) -> list:
    """d inputs = the gradient graph of f, called on (inputs, grads)."""
    inputs = list(op.inputs)
    wanted = differentiable_indices(inputs)
    if not wanted:
        return [None] * len(inputs)
    results = call_function(gradient_graph(op.get_attr("f"), wanted), inputs + list(grads))
    return _scatter(wanted, results, len(inputs))


register_gradient("PartitionedCall")(_call_grad)
register_gradient("StatefulPartitionedCall")(_call_grad)

__all__ = ["gradient_graph", "differentiable_indices"]
