"""A GraphDef's FunctionDefs (`GraphDef.library`) as webflow FuncGraphs, for `tf.import_graph_def`.

A node whose `func` attr names a FunctionDef (If's branches, While's cond and body, PartitionedCall's `f`) gets a
FuncGraph built from it: one Placeholder per `input_arg` (shaped by the argument's `_output_shapes` when given), then
each `node_def` through the registry's `apply_op`, inputs first, exactly named; the graph's outputs are the tensors
`ret` names. Inputs name an argument ("x") or "node:output_arg:index", which the node's OpDef (op_defs.py) turns
into an output number. Functions inside functions are built the same way, inside their caller's graph.

TensorFlow's StatelessIf and StatelessWhile (what TensorFlow writes when no branch has side effects) are built as
webflow's If and While, which run the same way. TF1's Switch/Merge control flow (Enter, Exit, NextIteration ...) is
not imported: webflow runs only functional control flow.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

from webflow.framework.func_graph import FuncGraph
from webflow.framework.tensor_shape import TensorShape
from webflow.io import tensor_proto
from webflow.io.graph_def import output_arg_names
from webflow.ops import optional_ops  # noqa: F401 - registers the Optional ops TensorFlow's cond_v2 graphs hold

# TensorFlow op types built as another webflow op type that runs them the same way
ALIASES = {"StatelessIf": "If", "StatelessWhile": "While"}
# TF1 (control flow v1) op types: loops with cycles, dead tensors; webflow has no executor for them
TF1_CONTROL_FLOW = frozenset({"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "RefSwitch",
                              "RefMerge", "RefEnter", "RefExit", "RefNextIteration", "ControlTrigger"})


def op_type(node: Any) -> str:
    """The webflow op type that builds `node` (TF1 control flow refused with a clear error)."""
    if node.op in TF1_CONTROL_FLOW:
        raise ValueError(f"Node '{node.name}' is TF1 control flow ({node.op}): webflow imports only functional "
                         "control flow (If, While, PartitionedCall), as TensorFlow 2 writes it (in TF1 code: "
                         "tf.compat.v1.enable_control_flow_v2() before building the graph).")
    return ALIASES.get(node.op, node.op)


class FunctionBuilder:
    """Builds FuncGraphs from the FunctionDefs of one GraphDef library."""

    def __init__(self, library: Any, build_node: Callable[..., Any], inputs_first: Callable[..., list]):
        # graph_def_import.py's node builder and node ordering (passed in: it imports this module)
        self.definitions = {function.signature.name: function for function in library.function}
        self._build_node, self._inputs_first = build_node, inputs_first

    def func_graph(self, name: str, outer_graph: Any) -> FuncGraph:
        """A new FuncGraph for the FunctionDef `name`, inside `outer_graph`."""
        if name not in self.definitions:
            raise ValueError(f"Function {name!r} is not in the GraphDef's function library")
        function = self.definitions[name]
        graph = FuncGraph(name, outer_graph)
        with graph.as_default():
            try:
                values = {arg.name: graph.add_placeholder(arg.type, _arg_shape(function, index), arg.name)
                          for index, arg in enumerate(function.signature.input_arg)}
            except TypeError as error:  # a damaged signature (DataType 0): ValueError, as for a bad node
                raise ValueError(f"Cannot import function {name!r}: {error}") from error
            graph.inputs = list(values.values())
            built = self._build_nodes(function, values)
            graph.outputs = [_resolve(function.ret[arg.name], values, built) for arg in function.signature.output_arg]
            for node_name in function.control_ret.values():
                if built[node_name] not in graph.stateful_ops:
                    graph.stateful_ops.append(built[node_name])   # control outputs run even when nothing reads them
        return graph

    def _build_nodes(self, function: Any, values: dict) -> dict:
        built: dict = {}
        for node in self._inputs_first(types.SimpleNamespace(node=function.node_def), external=set(values)):
            inputs = [_resolve(name, values, built) for name in node.input if not name.startswith("^")]
            controls = [built[name[1:]] for name in node.input if name.startswith("^") and name[1:] in built]
            built[node.name] = self._build_node(node, node.name, inputs, controls, self)
        return built


def _arg_shape(function: Any, index: int) -> TensorShape:
    attrs = function.arg_attr[index].attr if index in function.arg_attr else {}
    if "_output_shapes" in attrs and len(attrs["_output_shapes"].list.shape) == 1:
        return TensorShape(tensor_proto.shape_from_proto(attrs["_output_shapes"].list.shape[0]))
    return TensorShape(None)


def _resolve(name: str, values: dict, built: dict) -> Any:
    """The tensor a FunctionDef input or ret names: an argument, or "node:output_arg:index"."""
    if name in values:
        return values[name]
    parts = name.split(":")
    if len(parts) != 3 or parts[0] not in built:
        raise ValueError(f"Function input {name!r} names no argument and no node output")
    op = built[parts[0]]
    return op.outputs[output_index(op, parts[1], int(parts[2]))]


def output_index(op: Any, arg_name: str, index: int) -> int:
    """The number of output `index` of OpDef output argument `arg_name` among all of `op`'s outputs."""
    names = output_arg_names(op)
    if (arg_name, index) not in names:
        raise ValueError(f"Op '{op.name}' ({op.type}) has no output {arg_name}:{index}")
    return names.index((arg_name, index))


def complete_attrs(op_type: str, attrs: dict, inputs: list) -> dict:
    """Attrs webflow's functional kernels need that a TensorFlow node may leave out (or spell otherwise)."""
    if op_type == "While":
        body = attrs["body"]
        attrs["Tout"] = [t.dtype.base_dtype for t in body.outputs]
        if not attrs.get("output_shapes"):
            attrs["output_shapes"] = [TensorShape(None)] * len(body.outputs)
    elif op_type == "If" and not attrs.get("output_shapes"):
        attrs["output_shapes"] = [_relaxed(a.shape, b.shape)
                                  for a, b in zip(attrs["then_branch"].outputs, attrs["else_branch"].outputs)]
    elif op_type in ("PartitionedCall", "StatefulPartitionedCall"):
        attrs["output_shapes"] = [t.shape for t in attrs["f"].outputs]
    return attrs


def _relaxed(first: TensorShape, second: TensorShape) -> TensorShape:
    if first.rank is None or second.rank is None or first.rank != second.rank:
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(first.as_tuple(), second.as_tuple())])


__all__ = ["ALIASES", "FunctionBuilder", "TF1_CONTROL_FLOW", "complete_attrs", "op_type", "output_index"]
