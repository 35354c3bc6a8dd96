"""A webflow Graph as TensorFlow's GraphDef: `graph.as_graph_def()`, `sess.graph_def`.

Each Operation becomes one NodeDef, as TensorFlow writes it:
- `name`, `op` (the op type: webflow registers ops under TensorFlow's names), `device` when one is set;
- `input`: "name" for an op's first output, "name:1" for the others, then "^name" for each control input;
- `attr`: every attr of the op type's OpDef (op_defs.py, generated from TensorFlow's registry), taken from the
  op's own attrs when webflow keeps it (Conv2D's strides, Cast's DstT, VariableV2's shape ...), else inferred as
  TensorFlow's op constructor does: a type attr (T, Tidx, Tshape ...) is the dtype of the inputs or outputs
  declared with it, a number attr (N) how many there are, a list(type) attr their dtypes; else its default.

FuncGraph attrs (the branches, bodies and functions of If, While, PartitionedCall, dataset ops) become FunctionDefs
in `GraphDef.library` (function_def.py), named in the node's `func` attrs.

Registered in framework/graph.py on import (framework/ may not import io/, which needs protobuf); the facades import
io/. The protos and NumPy (for constants) are imported when a GraphDef is written, never by `import webflow`.
"""

from __future__ import annotations

import importlib
from typing import Any

from webflow.framework import dtypes
from webflow.framework import graph as graph_module
from webflow.io import tensor_proto
from webflow.io.function_def import FunctionLibrary


def op_defs() -> Any:
    """The generated table of TensorFlow's OpDefs (op_defs.py), loaded on first use, not by `import webflow`."""
    from webflow.io import op_defs as table

    return table


def graph_to_graph_def(graph: Any, from_version: int | None = None, add_shapes: bool = False) -> Any:
    """The GraphDef of `graph` (ops added after version `from_version` only, when given)."""
    from webflow.protos import graph_pb2

    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = op_defs().GRAPH_DEF_VERSION
    graph_def.versions.min_consumer = op_defs().GRAPH_DEF_VERSION_MIN_CONSUMER
    library = FunctionLibrary(write_node_def, output_arg_names)
    for op in graph.get_operations():
        if from_version is None or op._id > from_version:
            write_node_def(op, graph_def.node.add(), add_shapes, library)
    library.add_to(graph_def)
    return graph_def


def write_node_def(op: Any, node: Any, add_shapes: bool = False, library: Any = None) -> Any:
    """Fills NodeDef `node` with Operation `op`; its FuncGraph attrs go to `library` (function_def.py) as
    FunctionDefs (none: such an op cannot be written)."""
    if op.type not in op_defs().OP_DEFS:
        why = "it is webflow's own op type" if op.type in op_defs().WEBFLOW_ONLY else "TensorFlow has no such op type"
        raise ValueError(f"Cannot write op '{op.name}' of type {op.type} to a GraphDef: {why}.")
    node.name = op.name
    node.op = op.type
    if op.device:
        node.device = op.device
    node.input.extend(input_name(t) for t in op.inputs)
    node.input.extend("^" + control.name for control in op.control_inputs)
    for name, value in node_attrs(op, library).items():
        node.attr[name].CopyFrom(value)
    if op._attrs.get("_class"):   # colocation groups (`loc:@<op>`), as TensorFlow writes them for colocated ops
        node.attr["_class"].list.s.extend(op._attrs["_class"])
    if add_shapes:
        shapes = node.attr["_output_shapes"].list
        shapes.SetInParent()
        for tensor in op.outputs:
            shapes.shape.add().CopyFrom(tensor_proto.shape_proto(tensor.shape))
    return node


def input_name(tensor: Any) -> str:
    """A NodeDef's name for an input: "op" for output 0, "op:i" for output i."""
    return tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"


# --- arguments and attrs ----------------------------------------------------------------------------
def _is_list(kind: str) -> bool:
    return "*" in kind or kind.startswith("[")


def split_arguments(args: tuple, tensors: list, attrs: dict) -> list:
    """[(kind, tensors)] per OpDef argument: which of an op's inputs (or outputs) each argument holds."""
    single = sum(1 for _, kind in args if not _is_list(kind.removeprefix("ref ")))
    lists = len(args) - single
    spare = len(tensors) - single
    groups, at = [], 0
    for _, kind in args:
        kind = kind.removeprefix("ref ")
        if not _is_list(kind):
            count = 1
        elif "*" in kind and isinstance(attrs.get(kind.split("*")[0]), int):
            count = attrs[kind.split("*")[0]]
        else:
            count = spare // lists
        groups.append((kind, list(tensors[at:at + count])))
        at += count
    return groups


def output_arg_names(op: Any) -> list[tuple[str, int]]:
    """(OpDef output argument, index within it) of each of `op`'s outputs: how a FunctionDef names them."""
    _, outputs, _ = op_defs().OP_DEFS[op.type]
    names = []
    for (arg_name, _), (_, tensors) in zip(outputs, split_arguments(outputs, list(op.outputs), op._attrs)):
        names.extend((arg_name, index) for index in range(len(tensors)))
    return names


def _inferred(name: str, attr_type: str, groups: list) -> Any:
    """The value of attr `name` the op's arguments imply (None when they say nothing about it)."""
    for kind, tensors in groups:
        number, _, type_name = kind.rpartition("*")
        if attr_type == "type" and type_name == name and tensors:
            return tensors[0].dtype.base_dtype
        if attr_type == "int" and number == name:
            return len(tensors)
        if attr_type == "list(type)" and kind == f"[{name}]":
            return [t.dtype.base_dtype for t in tensors]
    return None


def python_attrs(op: Any) -> dict:
    """{attr name: Python value} of every attr the op type's TensorFlow OpDef declares."""
    inputs, outputs, declared = op_defs().OP_DEFS[op.type]
    own = op._attrs
    groups = split_arguments(inputs, list(op.inputs), own) + split_arguments(outputs, list(op.outputs), own)
    result = {}
    for name, attr_type, *default in declared:
        if name in own:
            result[name] = own[name]
            continue
        value = _inferred(name, attr_type, groups)
        if value is None and default:
            value = default[0]
        if value is None:
            raise ValueError(f"Cannot write op '{op.name}' ({op.type}) to a GraphDef: no value for its attr {name}")
        result[name] = value
    return result


def node_attrs(op: Any, library: Any = None) -> dict:
    """{attr name: AttrValue message} of op `op` (FuncGraph attrs named in FunctionLibrary `library`)."""
    _, _, declared = op_defs().OP_DEFS[op.type]
    values = python_attrs(op)
    if op.type == "While":  # TensorFlow's While returns its captured inputs too (function_def.py)
        values["output_shapes"] = list(values["output_shapes"]) + [t.shape for t in op.inputs[len(op.outputs):]]
    return {name: attr_value(values[name], attr_type, op, library, _passed_through(op, name))
            for name, attr_type, *_ in declared}


def _passed_through(op: Any, attr_name: str) -> int:
    """How many captured inputs a While body's FunctionDef must also return (0 for other functions)."""
    return len(op.inputs) - len(op.outputs) if op.type == "While" and attr_name == "body" else 0


def attr_value(value: Any, attr_type: str, op: Any = None, library: Any = None, pass_through: int = 0) -> Any:
    """An AttrValue message holding Python `value` as TensorFlow attr type `attr_type` ("int", "list(type)" ...)."""
    from webflow.protos import attr_value_pb2

    message = attr_value_pb2.AttrValue()
    if attr_type.startswith("list("):
        items = message.list
        items.SetInParent()  # an empty list is still a list (TensorFlow writes `list {}`)
        item_type = attr_type[len("list("):-1]
        for item in value:
            _add_list_item(items, item_type, item, op)
        return message
    if attr_type == "string":
        message.s = tensor_proto.as_bytes(value)
    elif attr_type == "int":
        message.i = int(value)
    elif attr_type == "float":
        message.f = float(value)
    elif attr_type == "bool":
        message.b = bool(value)
    elif attr_type == "type":
        message.type = dtypes.as_dtype(value).base_dtype.as_datatype_enum
    elif attr_type == "shape":
        message.shape.CopyFrom(tensor_proto.shape_proto(value))
    elif attr_type == "tensor":
        message.tensor.CopyFrom(_tensor(value, op))
    elif attr_type == "func" and library is not None:
        message.func.name = library.function_name(value, pass_through)
    elif attr_type == "func":
        raise ValueError(f"Cannot write op '{getattr(op, 'name', '?')}' ({getattr(op, 'type', '?')}) to a GraphDef: "
                         "its traced sub-graphs (tf.cond, tf.while_loop, tf.function) need a FunctionDef "
                         "library: write the whole graph (graph.as_graph_def()).")
    else:
        raise ValueError(f"Unknown attr type {attr_type}")
    return message


def _add_list_item(items: Any, item_type: str, item: Any, op: Any) -> None:
    if item_type == "string":
        items.s.append(tensor_proto.as_bytes(item))
    elif item_type == "int":
        items.i.append(int(item))
    elif item_type == "float":
        items.f.append(float(item))
    elif item_type == "bool":
        items.b.append(bool(item))
    elif item_type == "type":
        items.type.append(dtypes.as_dtype(item).base_dtype.as_datatype_enum)
    elif item_type == "shape":
        items.shape.add().CopyFrom(tensor_proto.shape_proto(item))
    elif item_type == "tensor":
        items.tensor.add().CopyFrom(_tensor(item, op))
    else:
        raise ValueError(f"Unknown attr type list({item_type})")


def _tensor(value: Any, op: Any) -> Any:
    dtype = getattr(op, "_attrs", {}).get("dtype") if op is not None else None
    if not hasattr(value, "dtype") and hasattr(value, "tolist"):  # a backend array without NumPy
        value = value.tolist()
    return tensor_proto.make_tensor_proto(value, dtype=dtype)


# --- the message classes the facades offer (tf.compat.v1.GraphDef ...), loaded with protobuf on first use ------
MESSAGE_MODULES = {"GraphDef": "graph_pb2", "NodeDef": "node_def_pb2", "AttrValue": "attr_value_pb2",
                   "MetaGraphDef": "meta_graph_pb2",
                   # TF1 code reads merged summaries with tf.Summary.FromString and writes its own values
                   "Summary": "summary_pb2", "SummaryMetadata": "summary_pb2", "HistogramProto": "histogram_pb2",
                   "Event": "event_pb2", "SessionLog": "event_pb2", "LogMessage": "event_pb2"}


def message_class(name: str, facade: str) -> Any:
    """The class of message `name` (for a facade's module `__getattr__`); AttributeError for other names."""
    if name not in MESSAGE_MODULES:
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"webflow.protos.{MESSAGE_MODULES[name]}"), name)


graph_module.set_graph_def_writer(graph_to_graph_def)
