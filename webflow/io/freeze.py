"""TF1's `tf.graph_util`: cut a GraphDef down to what some nodes need, and freeze its variables into constants.

- `extract_sub_graph(graph_def, dest_nodes)`: the nodes `dest_nodes` depend on (data and control inputs), in the
  GraphDef's order;
- `convert_variables_to_constants(sess, graph_def, output_node_names)`: that sub-graph with each variable
  (VariableV2) replaced by a Const holding its value in `sess`; the `read` Identity ops stay, and the Assign ops and
  initializers, which the outputs do not need, are gone. The frozen GraphDef runs in TensorFlow without variables.
- `remove_training_nodes`, `tensor_shape_from_node_def_name`, as TensorFlow's.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from webflow.io import tensor_proto
from webflow.io.graph_def_import import as_graph_def

_VARIABLE_TYPES = ("Variable", "VariableV2", "VarHandleOp")


def _node_name(name: str) -> str:
    return name.lstrip("^").split(":")[0]


def extract_sub_graph(graph_def: Any, dest_nodes: Any) -> Any:
    """A GraphDef with the nodes `dest_nodes` (node names) reach through their inputs, in the original order."""
    from webflow.protos import graph_pb2

    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    nodes = {node.name: node for node in graph_def.node}
    for name in dest_nodes:
        if name not in nodes:
            raise AssertionError(f"{name} is not in graph")
    keep, pending = set(), list(dest_nodes)
    while pending:
        name = pending.pop()
        if name not in keep:
            keep.add(name)
            pending.extend(_node_name(i) for i in nodes[name].input)
    result = graph_pb2.GraphDef()
    result.node.extend(copy.deepcopy(node) for node in graph_def.node if node.name in keep)
    result.library.CopyFrom(graph_def.library)
    result.versions.CopyFrom(graph_def.versions)
    return result


def convert_variables_to_constants(sess: Any, input_graph_def: Any, output_node_names: list,
                                   variable_names_whitelist: Any = None, variable_names_blacklist: Any = None) -> Any:
    """The sub-graph `output_node_names` need, each variable in it a Const with its current value in `sess`."""
    from webflow.protos import attr_value_pb2, graph_pb2

    graph_def = extract_sub_graph(as_graph_def(input_graph_def), output_node_names)
    names = []
    for node in graph_def.node:
        if node.op not in _VARIABLE_TYPES:
            continue
        if variable_names_whitelist is not None and node.name not in variable_names_whitelist:
            continue
        if variable_names_blacklist is not None and node.name in variable_names_blacklist:
            continue
        if node.op == "VarHandleOp":
            raise ValueError(f"Cannot freeze resource variable {node.name}: webflow graphs hold TF1 (VariableV2) "
                             "variables only.")
        names.append(node.name)
    values = dict(zip(names, sess.run([name + ":0" for name in names]))) if names else {}
    frozen = graph_pb2.GraphDef()
    for node in graph_def.node:
        out = frozen.node.add()
        if node.name not in values:
            out.CopyFrom(node)
            continue
        out.op = "Const"
        out.name = node.name
        if node.device:
            out.device = node.device
        dtype = node.attr["dtype"]
        out.attr["dtype"].CopyFrom(dtype)
        value = tensor_proto.numpy_module().asarray(values[node.name])
        out.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
            tensor=tensor_proto.make_tensor_proto(value, dtype=dtype.type, shape=value.shape)))
    frozen.library.CopyFrom(graph_def.library)
    frozen.versions.CopyFrom(graph_def.versions)
    logging.getLogger("webflow").info("Froze %d variables.", len(values))
    return frozen


def remove_training_nodes(input_graph: Any, protected_nodes: Any = None) -> Any:
    """The GraphDef without CheckNumerics nodes, and with Identity/StopGradient nodes spliced out (their readers
    read their input instead) unless protected, read as a control input, or given control inputs."""
    from webflow.protos import graph_pb2

    protected = set(protected_nodes or [])
    removed = {node.name for node in input_graph.node if node.op == "CheckNumerics" and node.name not in protected}
    kept = []
    for node in input_graph.node:
        if node.name in removed:
            continue
        copied = copy.deepcopy(node)
        del copied.input[:]
        copied.input.extend(i for i in node.input if i.lstrip("^") not in removed)
        kept.append(copied)
    control_sources, with_controls = set(), set()
    for node in kept:
        for name in node.input:
            if name.startswith("^"):
                control_sources.add(name[1:])
                with_controls.add(node.name)
    splice = {node.name: node.input[0] for node in kept
              if node.op in ("Identity", "StopGradient") and node.name not in protected
              and node.name not in with_controls and node.name not in control_sources}
    result = graph_pb2.GraphDef()
    for node in kept:
        if node.name in splice:
            continue
        copied = result.node.add()
        copied.CopyFrom(node)
        del copied.input[:]
        for name in node.input:
            while name.lstrip("^") in splice:
                name = splice[name.lstrip("^")]
            copied.input.append(name)
    return result


def tensor_shape_from_node_def_name(graph: Any, input_name: str) -> Any:
    """The static shape of the tensor a NodeDef input string names ("op" meaning "op:0")."""
    return graph.get_tensor_by_name(input_name if ":" in input_name else input_name + ":0").shape
