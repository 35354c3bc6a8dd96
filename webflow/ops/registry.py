"""The op registry and `apply_op`, the one entry point every op wrapper calls, in both modes.

An op is registered once, as a stanza in its family module:

    @register_op("AddV2", "add", inputs=("x", "y"), shape=broadcast_rule, same_dtype=(0, 1))
    def add_kernel(x, y):
        "z = x + y, broadcasting."
        return np.add(x, y)

    @register_gradient("AddV2")
    def _add_grad(op, grad): ...

Graph mode: `apply_op` opens a name scope (the op's unique name), converts Python values to Const
ops inside it (so `x + 1.0` makes `add/y`), runs the shape rule and adds an Operation.
Eager mode: it converts inputs to EagerTensors, runs the kernel now and tells active tapes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from webflow.backends import bfloat16, selection
from webflow.backends.arrays.numpy_arrays import dtype_of
from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError, ShapeError
from webflow.framework.run_time_messages import tensorflow_message
from webflow.framework.tensor import EagerTensor, Tensor, TensorBase
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import convert_inputs, install_apply_op


class OpDef:
    """Everything webflow knows about one op type."""

    def __init__(self, op_type: str, default_name: str, inputs: tuple, shape: Callable,
                 kernel: Callable, same_dtype: tuple, allowed: tuple | None,
                 needs_context: bool, stateful: bool, c: Any = None, portable: Callable | None = None):
        self.type = op_type
        self.default_name = default_name
        self.inputs = inputs
        self.shape = shape
        self.kernels: dict[str, Callable] = {"numpy": kernel}
        self.kernel = kernel
        self.grad: Callable | None = None
        self.same_dtype = same_dtype
        self.allowed = allowed
        self.needs_context = needs_context
        self.stateful = stateful
        # the stanza's other kernels: a C adapter with its selection policy (backends/c/, a CKernel) and a
        # no-NumPy kernel for Pyodide (backends/portable/); backends/selection.py installs them
        self.c_adapter = c
        self.portable = portable
        # set by backends/selection.py: the kernel eager calls run, or a per-call `chooser(values)`
        self.chooser: Callable | None = None
        self.backend = "numpy"
        # TF1 Apply* ops: their first `state_inputs` inputs are variable references the kernel reads and writes
        # through the session's store by name; the executor passes None for them instead of the values, so
        # the kernel alone holds the arrays and may update them in place (ops/training_ops.py)
        self.state_inputs = 0
        self.doc = (kernel.__doc__ or "").strip()

    def __repr__(self) -> str:
        return f"<OpDef {self.type}>"


OPS: dict[str, OpDef] = {}
# `check(opdef, inputs, outputs, op)` run on every op's outputs (op None eagerly), or None: what
# tf.debugging.enable_check_numerics installs (ops/numerics_callback.py); when None it costs one test per op
output_check: Callable | None = None
_GRADIENT_OVERRIDES: dict[str, Callable | None] = {}
_NOT_DIFFERENTIABLE: set = set()


def register_op(op_type: str, default_name: str | None = None, *, inputs: tuple = (),
                shape: Callable, same_dtype: tuple = (), allowed: tuple | None = None,
                needs_context: bool = False, stateful: bool = False, c: Any = None,
                portable: Callable | None = None) -> Callable[[Callable], Callable]:
    """Decorator registering a NumPy kernel as op `op_type` with its shape rule, and the C (`c=`, a CKernel from
    backends/c/) and no-NumPy (`portable=`, from backends/portable/) kernels of the same op, if it has them."""

    def decorate(kernel: Callable) -> Callable:
        opdef = OpDef(op_type, default_name or op_type, inputs, shape, kernel, same_dtype,
                      allowed, needs_context, stateful, c, portable)
        selection.attach(opdef)  # its C and portable kernels beside the NumPy one
        OPS[op_type] = opdef
        return kernel

    return decorate


def set_output_check(check: Callable | None) -> None:
    """Installs (or, with None, removes) the check `apply_op` runs on every op's outputs."""
    global output_check
    output_check = check


def register_gradient(op_type: str) -> Callable[[Callable], Callable]:
    """Decorator registering `grad(op, *output_grads) -> input grads` for op type `op_type`."""

    def decorate(function: Callable) -> Callable:
        OPS[op_type].grad = function
        return function

    return decorate


class RegisterGradient:
    """`@tf.RegisterGradient("MyOp")`: registers or overrides the gradient for an op type."""

    def __init__(self, op_type: str):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, function: Callable) -> Callable:
        if self._op_type in _GRADIENT_OVERRIDES:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        _GRADIENT_OVERRIDES[self._op_type] = function
        return function


def NotDifferentiable(op_type: str) -> None:  # noqa: N802 - TensorFlow's name
    _NOT_DIFFERENTIABLE.add(op_type)


NoGradient = NotDifferentiable


def gradient_function(op: Any) -> Callable | None:
    """The gradient rule for `op`, honouring `gradient_override_map` and `RegisterGradient`."""
    # the gradient_override_map in force when the op was built (Graph._create_op), as TensorFlow's
    # `_gradient_op_type` attr: it holds however long after the block the gradient is asked for
    op_type = getattr(op, "_gradient_op_type", None) or op.type
    if op_type in _GRADIENT_OVERRIDES:
        return _GRADIENT_OVERRIDES[op_type]
    if op_type in _NOT_DIFFERENTIABLE:
        return None
    opdef = OPS.get(op_type)
    if opdef is None or opdef.grad is None:
        # as TensorFlow: an op is either differentiable or declared NotDifferentiable; silently
        # returning no gradient would give a learner zeros where the maths says otherwise
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op_type})")
    return opdef.grad


# --- apply_op ------------------------------------------------------------------------------------
def apply_op(op_type: str, inputs: list, attrs: dict | None = None, name: str | None = None) -> Any:
    """Runs (eager) or adds (graph) op `op_type`; returns its output, a list of outputs, or the op."""
    opdef = OPS[op_type]
    attrs = {} if attrs is None else attrs
    if context.executing_eagerly():
        return _apply_eagerly(opdef, inputs, attrs)
    return _apply_in_graph(opdef, inputs, attrs, name)


install_apply_op(apply_op)  # convert_to_tensor makes graph-mode Const ops with it


def _apply_in_graph(opdef: OpDef, inputs: list, attrs: dict, name: str | None) -> Any:
    graph = context.get_default_graph()
    with graph.name_scope(name or opdef.default_name) as scope:
        op_name = scope[:-1]
        tensors = convert_inputs(opdef, inputs, graph)
        if bfloat16.involves_bfloat16(tensors, attrs):  # an OpDef refusing bfloat16: TypeError now, as TensorFlow
            bfloat16.check_op_def(opdef.type, tensors)
        specs = run_shape_rule(opdef, tensors, attrs, op_name)
        op = graph._create_op(opdef.type, tensors, _as_list(specs), op_name, attrs, opdef)
    if output_check is not None:
        output_check(opdef, op.inputs, op.outputs, op)
    for recorder in context.tape_recorders():  # a GradientTape opened while this graph is built (in a wf.function)
        recorder(opdef, attrs, op.inputs, op.outputs, op)
    if isinstance(specs, list):
        return op.outputs if specs else op
    return op.outputs[0]


def _as_list(specs: Any) -> list:
    return specs if isinstance(specs, list) else [specs]


def run_shape_rule(opdef: OpDef, tensors: list, attrs: dict, op_name: str) -> Any:
    """Runs the op's shape rule, turning a bare ValueError into one that names the op and its inputs."""
    try:
        return opdef.shape(tensors, attrs)
    except ShapeError as error:
        raise ShapeError(f"{error} for '{{{{node {op_name}}}}} = {opdef.type}[]({describe_inputs(tensors)})'"
                         f" with input shapes: {_shapes_text(tensors)}.") from None


def describe_inputs(tensors: list) -> str:
    return ", ".join(_tensor_label(t) for t in tensors)


def _tensor_label(tensor: Any) -> str:
    if isinstance(tensor, Tensor):
        return tensor.op.name if tensor.value_index == 0 else tensor.name
    return "eager_tensor"


def _shapes_text(tensors: list) -> str:
    return ", ".join("?" if t.shape.rank is None else "[" + ",".join(
        "?" if d is None else str(d) for d in t.shape.as_tuple()) + "]" for t in tensors)


# --- eager ---------------------------------------------------------------------------------------
class EagerKernelContext:
    """What a stateful kernel may use when it runs eagerly (no session, no graph)."""

    op = None
    op_name = None
    resources: dict = {}

    def __init__(self, opdef: OpDef, attrs: dict):
        self.opdef = opdef
        self.attrs = attrs


def _apply_eagerly(opdef: OpDef, inputs: list, attrs: dict) -> Any:
    tensors = inputs if _already_eager_and_consistent(opdef, inputs) else convert_inputs(opdef, inputs, None)
    values = [t._value for t in tensors]
    bf16 = bfloat16.involves_bfloat16(tensors, attrs)  # float32 arrays labelled bfloat16 (backends/bfloat16.py)
    if bf16:
        bfloat16.check_op_def(opdef.type, tensors)
        bfloat16.check_eager_kernel(opdef.type, attrs)
        values = bfloat16.flushed_inputs(opdef.type, tensors, values)   # TF's kernels read denormals as 0
    chooser = opdef.chooser  # None unless the backend depends on the size (backends/selection.py)
    kernel = opdef.kernel if chooser is None else chooser(values)
    try:
        if opdef.needs_context:
            result = kernel(EagerKernelContext(opdef, attrs), *values, **attrs)
        else:
            result = kernel(*values, **attrs)
    except (ValueError, IndexError, TypeError, ArithmeticError) as error:
        raise eager_kernel_error(opdef, tensors, attrs, error) from None
    if bf16 and result is not None:
        outputs = bfloat16.eager_outputs(opdef.shape, tensors, attrs, result, opdef.type)
    elif isinstance(result, list):
        outputs = [EagerTensor(v, dtype_of(v)) for v in result]
    elif result is None:
        outputs = []
    else:
        outputs = [EagerTensor(result, dtype_of(result))]
    if output_check is not None:
        output_check(opdef, tensors, outputs, None)
    for recorder in context.tape_recorders():
        recorder(opdef, attrs, tensors, outputs)
    if result is None:
        return None
    return outputs if isinstance(result, list) else outputs[0]


def _already_eager_and_consistent(opdef: OpDef, inputs: list) -> bool:
    """Fast path (eager dispatch is ~2x faster with it): inputs are EagerTensors whose dtypes already agree."""
    for tensor in inputs:
        if type(tensor) is not EagerTensor:
            return False
    group = opdef.same_dtype
    if group and len(inputs) > 1:
        indices = range(len(inputs)) if group == "all" else group
        first = inputs[indices[0]]._dtype
        for i in indices:
            if inputs[i]._dtype is not first:
                return False
    if opdef.allowed is not None and inputs and inputs[0]._dtype not in opdef.allowed:
        return False
    return True


def eager_kernel_error(opdef: OpDef, tensors: list, attrs: dict, error: Exception) -> Exception:
    """An InvalidArgumentError naming the op and input shapes (the shape rule's message if it objects)."""
    if isinstance(error, InvalidArgumentError):
        return error
    message = tensorflow_message(opdef.type, opdef.shape, [t._value for t in tensors], attrs)
    if message is not None:  # TensorFlow's words for these inputs (framework/run_time_messages.py)
        return InvalidArgumentError(None, None, f"{message} [Op:{opdef.type}]")
    try:
        opdef.shape(tensors, attrs)
        detail = f"{type(error).__name__}: {error}"
    except ValueError as shape_error:
        detail = str(shape_error)
    return InvalidArgumentError(
        None, None, f"{detail} (inputs: {_shapes_text(tensors)}) [Op:{opdef.type}]")


def op_scope(name: str | None) -> Any:
    """A wrapper's name scope: the graph's `name_scope(name)` while building, nothing when eager (yields "")."""
    if context.executing_eagerly():
        return contextlib.nullcontext("")
    return context.get_default_graph().name_scope(name)


def is_symbolic(value: Any) -> bool:
    return isinstance(value, Tensor)


def output_spec(shape: Any, dtype: Any) -> tuple:
    """A shape rule's result for one output: (TensorShape, DType)."""
    return (shape if isinstance(shape, TensorShape) else TensorShape(shape), dtypes.as_dtype(dtype))


__all__ = ["OPS", "OpDef", "ShapeError", "register_op", "register_gradient", "RegisterGradient",
           "NotDifferentiable", "NoGradient", "gradient_function", "apply_op", "output_spec",
           "TensorBase", "is_symbolic"]
