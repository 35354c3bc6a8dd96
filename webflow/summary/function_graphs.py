"""A traced function's graph as TensorBoard's graph dashboard reads it from `tf.summary.trace_export`: the
function body as a GraphDef, TensorFlow's way — each input placeholder (arguments, then captured tensors) an `_Arg`
node with attrs T and index, and an `_Retval` node per output.

Nodes are written by io/graph_def.py. A node it cannot write (a call of another traced function, whose FunctionDef
library webflow does not write; an op type of webflow's own) is still drawn: its name, op type, inputs, and each
attr that can be written; a function attr names the function (its NameAttrList), as TensorFlow's nodes do.
"""

from __future__ import annotations

from typing import Any

from webflow.io import graph_def as graph_def_io


def function_body(func_graph: Any) -> Any:
    """The GraphDef of the FuncGraph `func_graph` as a function body (_Arg / _Retval nodes)."""
    from webflow.protos import graph_pb2

    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = graph_def_io.op_defs().GRAPH_DEF_VERSION
    arguments = {t.op.name: index for index, t in enumerate(func_graph.inputs)}
    for op in func_graph.get_operations():
        node = graph_def.node.add()
        if op.name in arguments and op.type == "Placeholder":
            _argument(op, node, arguments[op.name])
        else:
            _node(op, node)
    for index, tensor in enumerate(func_graph.outputs):
        node = graph_def.node.add(name=f"output_{index}_RetVal", op="_Retval")
        node.input.append(graph_def_io.input_name(tensor))
        node.attr["T"].type = tensor.dtype.base_dtype.as_datatype_enum
        node.attr["index"].i = index
    return graph_def


def _argument(op: Any, node: Any, index: int) -> None:
    node.name, node.op = op.name, "_Arg"
    node.attr["T"].type = op.outputs[0].dtype.base_dtype.as_datatype_enum
    node.attr["index"].i = index


def _node(op: Any, node: Any) -> None:
    try:
        graph_def_io.write_node_def(op, node, add_shapes=True)
    except ValueError:  # drawn as far as it can be
        node.Clear()
        node.name, node.op = op.name, op.type
        node.input.extend(graph_def_io.input_name(t) for t in op.inputs)
        node.input.extend("^" + control.name for control in op.control_inputs)
        _writable_attrs(op, node)


def _writable_attrs(op: Any, node: Any) -> None:
    table = graph_def_io.op_defs().OP_DEFS
    if op.type not in table:
        return
    try:
        values = graph_def_io.python_attrs(op)
    except ValueError:
        return
    for name, attr_type, *_ in table[op.type][2]:
        if attr_type == "func":
            node.attr[name].func.name = str(getattr(values[name], "name", name))
            continue
        try:
            node.attr[name].CopyFrom(graph_def_io.attr_value(values[name], attr_type, op))
        except (ValueError, TypeError):
            pass  # an attr TensorFlow could not read anyway: left out of the drawing


__all__ = ["function_body"]
