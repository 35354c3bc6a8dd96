"""Traced sub-graphs (FuncGraphs) as TensorFlow's FunctionDefs, for `GraphDef.library`.

webflow's `tf.cond`, `tf.while_loop` and `wf.function` make `If`, `While` and `(Stateful)PartitionedCall` ops whose
branches, bodies and functions are FuncGraphs held in attrs. A GraphDef holds them as FunctionDefs, named in the
node's `func` attrs, as TensorFlow's GraphToFunctionDef writes them:
- `signature`: one `input_arg` per input placeholder, one `output_arg` per output, named after the placeholder or
  the op making the output, lower-cased, other characters as "_", made unique ("x", "x_1" ...);
- `node_def`: every other op, named as in the graph (made unique against the argument names: "mul" -> "mul_0");
  an input is an argument's name, or "node:output_arg:index" (the op's OpDef output argument and the index in it);
- `ret`: output argument -> the tensor it returns; `control_ret`: the stateful ops, which run even when no output
  needs them (TensorFlow prunes other unused nodes);
- `arg_attr`: each argument's `_output_shapes`.

TensorFlow's `While` returns every loop input; webflow's body returns the loop variables and keeps its captured
tensors apart, so a body's FunctionDef passes the captured arguments through as extra outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.io import tensor_proto


def normalize(name: str) -> str:
    """TensorFlow's argument naming: lower case, non-alphanumerics as "_", from the first letter ("unknown": none)."""
    chars = "".join(c.lower() if c.isascii() and c.isalnum() else "_" for c in name)
    for at, char in enumerate(chars):
        if char.isalpha():
            return chars[at:]
    return "unknown"


class _Names:
    """Unique names within one FunctionDef, as TensorFlow's NodeNameMapping makes them."""

    def __init__(self) -> None:
        self.used: dict[str, int] = {}

    def unique(self, name: str) -> str:
        if name not in self.used:
            self.used[name] = 0
            return name
        while True:
            candidate = f"{name}_{self.used[name]}"
            self.used[name] += 1
            if candidate not in self.used:
                self.used[candidate] = 0
                return candidate


class FunctionLibrary:
    """The FunctionDefs of the FuncGraphs a GraphDef's nodes name, each written once, nested ones included."""

    def __init__(self, write_node_def: Callable[..., Any], output_arg_names: Callable[[Any], list]) -> None:
        # graph_def.py's NodeDef writer and OpDef output naming (passed in: graph_def.py imports this module)
        self._write_node_def, self._output_arg_names = write_node_def, output_arg_names
        self.functions: dict[str, Any] = {}   # name -> FunctionDef message
        self._names: dict[tuple, str] = {}    # (id(FuncGraph), passed-through inputs) -> function name
        self._graphs: list = []               # keeps the graphs alive while their ids are keys

    def function_name(self, graph: Any, pass_through: int = 0) -> str:
        """The library's name for FuncGraph `graph` (written on first use); its last `pass_through` inputs are
        also returned as outputs (a While body's captured tensors)."""
        key = (id(graph), pass_through)
        if key not in self._names:
            name = self._unique_function_name(graph.name)
            self._names[key] = name
            self._graphs.append(graph)
            self.functions[name] = None  # reserved while nested functions are written
            self.functions[name] = self._function_def(graph, name, pass_through)
        return self._names[key]

    def write_function(self, graph: Any, name: str, outputs: list | None = None) -> str:
        """Writes FuncGraph `graph` as the FunctionDef `name` (returning `outputs` instead of its own, when given:
        a SavedModel's signature returns them in its keys' order)."""
        if name in self.functions:
            raise ValueError(f"The function library already has a function named {name!r}")
        self.functions[name] = None
        self.functions[name] = self._function_def(graph, name, 0, outputs)
        return name

    def _unique_function_name(self, base: str) -> str:
        base = base.replace("/", "_") or "function"
        at = len(self.functions)
        while f"{base}_{at}" in self.functions:
            at += 1
        return f"{base}_{at}"

    def add_to(self, graph_def: Any) -> None:
        """Puts the FunctionDefs into `graph_def.library`, by name (as TensorFlow orders them)."""
        for name in sorted(self.functions):
            graph_def.library.function.add().CopyFrom(self.functions[name])

    # --- one FuncGraph -------------------------------------------------------------------------------
    def _function_def(self, graph: Any, name: str, pass_through: int, outputs: list | None = None) -> Any:
        from webflow.protos import function_pb2

        if getattr(graph, "ref_captures", None):
            names = ", ".join(key for _, key in graph.ref_captures)
            raise ValueError(f"Cannot write function {graph.name} to a GraphDef: it uses the TF1 variable(s) {names} "
                             "by reference (it assigns to them inside tf.cond/tf.while_loop/a function), which a "
                             "TensorFlow function cannot hold.")
        function = function_pb2.FunctionDef()
        function.signature.name = name
        names = _Names()
        arg_of = self._write_inputs(graph, function, names)
        if outputs is None:
            passed = graph.inputs[len(graph.inputs) - pass_through:] if pass_through else []
            outputs = list(graph.outputs) + list(passed)
        out_names = [names.unique(normalize(t.op.name)) for t in outputs]   # (outputs named before nodes)
        node_names = {op._id: names.unique(op.name) for op in graph.get_operations() if op._id not in arg_of}
        for op in graph.get_operations():
            if op._id not in arg_of:
                self._write_node(op, function.node_def.add(), node_names, arg_of)
        for out_name, tensor in zip(out_names, outputs):
            arg = function.signature.output_arg.add()
            arg.name = out_name
            arg.type = tensor.dtype.base_dtype.as_datatype_enum
            function.ret[out_name] = self._tensor_name(tensor, node_names, arg_of)
        _write_control_outputs(graph, function, node_names)
        return function

    @staticmethod
    def _write_inputs(graph: Any, function: Any, names: _Names) -> dict:
        """One input_arg per input placeholder; returns {placeholder op id: argument name}."""
        arg_of = {}
        for index, tensor in enumerate(graph.inputs):
            arg = function.signature.input_arg.add()
            arg.name = names.unique(normalize(tensor.op.name))
            arg.type = tensor.dtype.base_dtype.as_datatype_enum
            shapes = function.arg_attr[index].attr["_output_shapes"].list
            shapes.shape.add().CopyFrom(tensor_proto.shape_proto(tensor.shape))
            arg_of[tensor.op._id] = arg.name
        return arg_of

    def _write_node(self, op: Any, node: Any, node_names: dict, arg_of: dict) -> None:
        self._write_node_def(op, node, library=self)
        node.name = node_names[op._id]
        del node.input[:]
        node.input.extend(self._tensor_name(t, node_names, arg_of) for t in op.inputs)
        node.input.extend("^" + node_names[c._id] for c in op.control_inputs if c._id in node_names)


    def _tensor_name(self, tensor: Any, node_names: dict, arg_of: dict) -> str:
        """A FunctionDef's name for a tensor: the argument's name, or "node:output_arg:index"."""
        if tensor.op._id in arg_of:
            return arg_of[tensor.op._id]
        if tensor.op._id not in node_names:
            raise ValueError(f"Cannot write a function to a GraphDef: tensor {tensor.name} comes from another graph")
        arg_name, index = self._output_arg_names(tensor.op)[tensor.value_index]
        return f"{node_names[tensor.op._id]}:{arg_name}:{index}"


def _write_control_outputs(graph: Any, function: Any, node_names: dict) -> None:
    """The stateful ops as control outputs (they run even when no output needs them); is_stateful if any."""
    for op in getattr(graph, "stateful_ops", []):
        if op._id in node_names and node_names[op._id] not in function.control_ret:
            function.signature.control_output.append(node_names[op._id])
            function.control_ret[node_names[op._id]] = node_names[op._id]
    if any(op._opdef is not None and op._opdef.stateful for op in graph.get_operations()):
        function.signature.is_stateful = True


__all__ = ["FunctionLibrary", "normalize"]
