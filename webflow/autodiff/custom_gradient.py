"""`tf.custom_gradient`: a Python function that states its own gradient.

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        def grad(dy):
            return dy * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

The function returns its result and `grad(*dys) -> one gradient per argument`. How TensorFlow wires it in,
and so webflow:

- building a graph: the result and the arguments go through one `IdentityN` op built under
  `gradient_override_map({"IdentityN": "CustomGradient-<n>"})`, a gradient registered for this one call whose
  rule calls `grad`. The caller gets IdentityN's outputs, so backpropagation meets that op first and never
  walks into the ops the function built (their gradients are not asked for);
- eagerly: the function runs (the tapes record its ops, so a `grad` built from them has a gradient too),
  its results are copied (`Identity`) unrecorded, and each active tape records one op "CustomGradient" from
  the arguments (and the trainable variables the function read, when `grad` takes `variables=`) to the
  copies; the entry carries this call's `grad`, which its rule calls.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

from webflow.framework import context
from webflow.ops import array_ops, manip_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import RegisterGradient

_NUMBERS = itertools.count(1)


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorator: `f(*args)` returns `(result, grad)`; gradients of `result` come from `grad(*upstream)`."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        if context.executing_eagerly():
            return _eagerly(f, args, kwargs)
        return _in_graph(f, args, kwargs)

    return decorated


def _flatten(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _pack(structure: Any, leaves: Any) -> Any:
    if isinstance(structure, (list, tuple)):
        packed = [_pack(item, leaves) for item in structure]
        return packed if isinstance(structure, list) else tuple(packed)
    return next(leaves)


def _takes_variables(grad_fn: Callable) -> bool:
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)


def _input_gradients(grad_fn: Callable, upstream: list, arg_count: int, variables: list) -> list:
    """grad_fn's answer as a flat list: one gradient per argument, then (with `variables`) one per variable."""
    if variables:
        input_grads, variable_grads = grad_fn(*upstream, variables=variables)
        variable_grads = _flatten(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
    else:
        input_grads, variable_grads = grad_fn(*upstream), []
    input_grads = _flatten(input_grads)
    if len(input_grads) != arg_count:
        raise ValueError(f"custom_gradient function expected to return {arg_count} gradients, but returned "
                         f"{len(input_grads)} instead.")
    return input_grads + variable_grads


# --- building a graph -------------------------------------------------------------------------------
def _in_graph(f: Callable, args: tuple, kwargs: dict) -> Any:
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords arguments only when eager "
                         "execution is enabled.")
    args = [convert_to_tensor(a) for a in args]
    result, grad_fn = f(*args)
    flat_result = [convert_to_tensor(r) for r in _flatten(result)]
    if _takes_variables(grad_fn):
        raise NotImplementedError("webflow's @custom_gradient passes `variables=` to grad_fn only eagerly "
                                  "(inside a GradientTape); in a graph, pass the variables as arguments.")
    name = f"CustomGradient-{next(_NUMBERS)}"

    @RegisterGradient(name)
    def _rule(op: Any, *result_grads: Any) -> list:
        grads = _input_gradients(grad_fn, list(result_grads[:len(flat_result)]), len(args), [])
        return [None] * len(flat_result) + grads

    graph = context.get_default_graph()
    with graph.gradient_override_map({"IdentityN": name}):
        outputs = manip_ops.identity_n(flat_result + args)
    return _pack(result, iter(outputs[:len(flat_result)]))


# --- eagerly ------------------------------------------------------------------------------------------
class _RecordedOp:
    """What a tape's recorder needs of an op definition: its type."""

    type = "CustomGradient"


@RegisterGradient("CustomGradient")
def _eager_rule(op: Any, *result_grads: Any) -> list:
    """The recorded op carries its call's gradient (an attr of the tape's entry): nothing to register per call."""
    return op.get_attr("gradient")(*result_grads)


def _eagerly(f: Callable, args: tuple, kwargs: dict) -> Any:
    from webflow.autodiff.tape import GradientTape

    reads = GradientTape()  # only to see which trainable variables the function reads
    reads._push()
    try:  # the tapes record the function's ops too: a grad_fn computed from them can be differentiated again
        result, grad_fn = f(*args, **kwargs)
    finally:
        reads._pop()
    recorders = context.tape_recorders()
    active = list(recorders)
    recorders.clear()
    try:  # fresh copies of the results, unrecorded: the only way back from them is the op recorded below
        flat_result = [array_ops.identity(convert_to_tensor(r)) for r in _flatten(result)]
    finally:
        recorders[:] = active
    variables = list(reads.watched_variables()) if _takes_variables(grad_fn) else []
    inputs = [convert_to_tensor(a) for a in args] + [v.handle for v in variables]

    def gradient(*result_grads: Any) -> list:
        return _input_gradients(grad_fn, list(result_grads), len(args), variables)

    for recorder in active:
        recorder(_RecordedOp, {"gradient": gradient}, inputs, flat_result)
    return _pack(result, iter(flat_result))
