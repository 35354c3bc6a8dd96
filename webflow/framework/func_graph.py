"""`FuncGraph`: a Graph traced from a Python function (a cond branch, a loop body, a `wf.function`).

A FuncGraph is self-contained: its `inputs` are Placeholders, its `outputs` are tensors in it, and
any outer tensor the Python code touches is *captured*: the FuncGraph gets a new Placeholder for it
and remembers the pair (outer tensor, inner placeholder). The op that runs the FuncGraph (If, While,
StatefulPartitionedCall) takes the captured outer tensors as extra inputs and feeds them in.

Two kinds of capture need care:
- resource handles (a ResourceVariable's `handle`, an EagerTensor whose value is the variable):
  captured like any tensor, so each run reads the variable *live* through ReadVariableOp;
- TF1 ref tensors (a RefVariable's VariableV2 output): reading them early would fail when the
  variable is uninitialized, so they are not op inputs; the runner looks their value up by name in
  the session's resource store when the sub-graph runs (`run_func_graph` in runtime/executor.py).

Stateful ops and variable reads are chained in program order (TensorFlow's "automatic control
dependencies" in tf.function), and stateful ops always run, even when no output needs them.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes, random_seed
from webflow.framework.graph import Graph
from webflow.framework.tensor import EagerTensor, Tensor
from webflow.framework.tensor_shape import TensorShape

_READS_STATE = ("ReadVariableOp",)
# The OpDef of the Placeholders a FuncGraph makes for its inputs and captures: set by ops/constants.py, where
# Placeholder is registered (framework/ sits below ops/ and may not import it).
_placeholder_opdef: Any = None


def set_placeholder_opdef(opdef: Any) -> None:
    """Called by ops/constants.py on import with the Placeholder op's OpDef."""
    global _placeholder_opdef
    _placeholder_opdef = opdef


class FuncGraph(Graph):
    """A graph traced from a Python function: placeholders in, tensors out, outer tensors captured."""

    def __init__(self, name: str, outer_graph: Any = None):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self._building_function = True
        self.seed = _inherited_seed(outer_graph)
        self.inputs: list[Tensor] = []            # explicit inputs first, then one per capture
        self.outputs: list[Tensor] = []
        self.captures: list[tuple[Any, Tensor]] = []  # (outer tensor, inner placeholder)
        self.ref_captures: list[tuple[Tensor, str]] = []  # (inner placeholder, resource-store key)
        self.resource_specs: dict[int, tuple] = {}  # placeholder uid -> (shape, dtype) of the variable
        self.stateful_ops: list[Any] = []
        self._captured: dict[int, Tensor] = {}
        self._last_write: Any = None
        self._reads_since_write: list[Any] = []
        self._plans: dict[tuple, Any] = {}
        self._gradient_graphs: dict[tuple, FuncGraph] = {}

    # --- inputs -----------------------------------------------------------------------------------
    def add_placeholder(self, dtype: Any, shape: Any, name: str = "input") -> Tensor:
        """A new Placeholder in this graph (an input the runner will feed)."""
        spec = [(TensorShape(shape), dtypes.as_dtype(dtype))]
        op_name = self.unique_name(name)
        attrs = {"dtype": dtypes.as_dtype(dtype), "shape": TensorShape(shape)}
        return Graph._create_op(self, "Placeholder", [], spec, op_name, attrs, _placeholder_opdef).outputs[0]

    def capture(self, tensor: Any) -> Tensor:
        """The placeholder standing for outer `tensor` inside this graph (created on first use)."""
        if isinstance(tensor, Tensor) and tensor.graph is self:
            return tensor
        if tensor._uid in self._captured:
            return self._captured[tensor._uid]
        outer = tensor
        from_further_out = isinstance(tensor, EagerTensor) or tensor.graph is not self.outer_graph
        if isinstance(self.outer_graph, FuncGraph) and from_further_out:
            outer = self.outer_graph.capture(tensor)  # a tensor from further out: capture it at each level
        if isinstance(tensor, Tensor) and tensor.dtype.is_ref_dtype:
            inner = self._capture_ref(tensor)
        else:
            inner = self.add_placeholder(tensor.dtype, tensor.shape, _capture_name(tensor))
            self.captures.append((outer, inner))
            self.inputs.append(inner)
            spec = resource_spec(outer)
            if spec is not None:
                self.resource_specs[inner._uid] = spec
        self._captured[tensor._uid] = self._captured[outer._uid] = inner
        return inner

    def _capture_ref(self, tensor: Tensor) -> Tensor:
        """A TF1 variable reference: a placeholder named exactly like the variable, outside any name scope,
        because ref ops (Assign, AssignAdd) find their variable in the resource store by that name."""
        key = resource_key(tensor)
        saved, self._name_stack = self._name_stack, ""
        try:
            inner = self.add_placeholder(tensor.dtype, tensor.shape, key)
        finally:
            self._name_stack = saved
        if inner.op.name != key:
            raise ValueError(f"{self.name}: cannot capture variable {key}: the name is already used inside the branch")
        self.ref_captures.append((inner, key))
        return inner

    def _capture_eager_tensor(self, tensor: EagerTensor, name: Any = None) -> Tensor | None:
        """Called by convert_to_tensor when eager code's tensors (or variable handles) meet this graph.

        None when the value must be baked in as a constant instead (convert_to_tensor makes it): inside a
        plain (TF1) graph, which cannot hold eager tensors."""
        if self.outer_graph is not None and not isinstance(self.outer_graph, FuncGraph) \
                and tensor.dtype is not dtypes.resource:
            return None
        return self.capture(tensor)

    @property
    def captured_inputs(self) -> list:
        return [outer for outer, _ in self.captures]

    # --- building ---------------------------------------------------------------------------------
    def _create_op(self, op_type: str, inputs: list, output_specs: list, name: str, attrs: dict,
                   opdef: Any = None, control_inputs: list | None = None) -> Any:
        inputs = [self.capture(t) if t.graph is not self else t for t in inputs]
        ordering = self._ordering_inputs(op_type, opdef)
        op = super()._create_op(op_type, inputs, output_specs, name, attrs, opdef,
                                list(control_inputs or []) + ordering)
        if opdef is not None and opdef.stateful:
            self.stateful_ops.append(op)
            self._last_write, self._reads_since_write = op, []
        elif op_type in _READS_STATE:
            self._reads_since_write.append(op)
        return op

    def _ordering_inputs(self, op_type: str, opdef: Any) -> list:
        """Automatic control dependencies: reads follow the last write; writes follow everything before."""
        if opdef is not None and opdef.stateful:
            earlier = [self._last_write] + self._reads_since_write
            return [op for op in earlier if op is not None]
        if op_type in _READS_STATE and self._last_write is not None:
            return [self._last_write]
        return []


def _inherited_seed(outer_graph: Any) -> int | None:
    """The graph-level seed a new FuncGraph takes, as TensorFlow's: its outer graph's; a graph traced from eager code
    (a `wf.function`, a tf.data function) takes the global seed of `tf.random.set_seed` at the time of tracing."""
    if outer_graph is not None:
        return getattr(outer_graph, "seed", None)
    if context.executing_eagerly():
        return random_seed.global_seed()
    return context.get_default_graph().seed


def _capture_name(tensor: Any) -> str:
    """The name of the placeholder standing for a captured tensor, as TensorFlow names it (inside the name scope of
    the op being built): the captured tensor's op name ("mul/x"), "resource" for a variable's handle."""
    if isinstance(tensor, EagerTensor):
        return "resource" if tensor.dtype is dtypes.resource else "captured"
    return tensor.op.name


def resource_key(tensor: Tensor) -> str:
    """The name a TF1 ref tensor's variable has in the session's resource store (as executor.ref_key)."""
    while tensor.op.type in ("Identity", "RefIdentity") and tensor.dtype.is_ref_dtype:
        tensor = tensor.op.inputs[0]
    graph = tensor.graph
    for inner, key in getattr(graph, "ref_captures", []):
        if inner is tensor:
            return key
    return tensor.op.name


def resource_spec(tensor: Any) -> tuple | None:
    """(shape, dtype) of the variable behind a resource tensor, when known; None for other tensors."""
    if tensor.dtype is not dtypes.resource:
        return None
    if isinstance(tensor, EagerTensor):
        variable = tensor._value
        return (variable.shape, variable.dtype)
    return getattr(tensor.graph, "resource_specs", {}).get(tensor._uid)


__all__ = ["FuncGraph", "resource_key", "resource_spec", "set_placeholder_opdef"]
