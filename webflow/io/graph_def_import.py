"""`tf.import_graph_def`: a TensorFlow GraphDef (from TensorFlow or from webflow) into the default graph.

Each NodeDef becomes an Operation through the registry's `apply_op`, as if a program had built it, so the op's
shape rule runs and its outputs get static shapes and dtypes. Nodes are added inputs first (a GraphDef's nodes may
come in any order) under the name scope `import/` (TensorFlow's default prefix; `name=""` for none), each with its
exact name below it. The attrs a node carries are TensorFlow's; an op keeps those its webflow kernel takes
(the keyword arguments of the kernel named in its stanza), so Conv2D keeps strides and padding while T, which
webflow reads off the input tensors, is dropped. A node's `func` attrs (If's branches, While's cond and body,
PartitionedCall's f) become FuncGraphs built from the GraphDef's library (function_def_import.py).
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import Operation
from webflow.framework.tensor import Tensor
from webflow.framework.tensor_shape import TensorShape
from webflow.io import tensor_proto
from webflow.io.function_def_import import FunctionBuilder, complete_attrs, op_type
from webflow.io.graph_def import op_defs
from webflow.ops.registry import OPS, apply_op

# webflow attrs TensorFlow spells otherwise: op type -> {webflow attr: the TensorFlow attr it comes from}
_FROM_TENSORFLOW = {"OneHot": {"dtype": "T"}}


def as_graph_def(graph_def: Any) -> Any:
    """webflow's GraphDef message for a GraphDef from webflow, from TensorFlow (any protobuf message with that
    wire format: they live in different descriptor pools) or its serialized bytes."""
    from webflow.protos import graph_pb2

    if isinstance(graph_def, graph_pb2.GraphDef):
        return graph_def
    if isinstance(graph_def, (bytes, bytearray)):
        return graph_pb2.GraphDef.FromString(bytes(graph_def))
    if hasattr(graph_def, "SerializeToString") and type(graph_def).__name__ == "GraphDef":
        return graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
    raise TypeError(f"graph_def must be a GraphDef proto, not {type(graph_def).__name__}.")


def import_graph_def(graph_def: Any, input_map: dict | None = None, return_elements: list | None = None,
                     name: str | None = None, op_dict: Any = None, producer_op_list: Any = None) -> list | None:
    """Adds the nodes of `graph_def` to the default graph; returns the Operations and Tensors `return_elements`
    names ("op" or "op:0", as named in `graph_def`), or None.

    `input_map` {"name:0" (or "name", or "^name" for a control input): Tensor} uses those tensors of the default
    graph wherever the GraphDef's nodes read the named ones.
    """
    graph_def = as_graph_def(graph_def)
    graph = context.get_default_graph()
    mapped = _checked_input_map(input_map, graph)
    for node in graph_def.node:
        op_type(node)  # TF1 Switch/Merge control flow: a clear error before any cycle is met
    functions = FunctionBuilder(graph_def.library, build_node, inputs_first)
    nodes = inputs_first(graph_def)
    used: set = set()
    built: dict[str, Operation] = {}
    with graph.name_scope("import" if name is None else name) as prefix:
        for node in nodes:
            inputs, controls = _node_inputs(node, built, mapped, used)
            built[node.name] = build_node(node, prefix + node.name, inputs, controls, functions)
    unused = sorted(set(mapped) - used)
    if unused:
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(unused)}]")
    if return_elements is None:
        return None
    return [_returned(graph, prefix, element, built) for element in return_elements]


def _checked_input_map(input_map: dict | None, graph: Any) -> dict:
    result = {}
    for key, tensor in (input_map or {}).items():
        if not isinstance(key, str):
            raise TypeError(f"input_map keys must be strings, not {key!r}")
        if not isinstance(tensor, Tensor) or tensor.graph is not graph:
            raise ValueError(f"input_map values must be Tensors of the default graph, not {tensor!r}")
        result[key if key.startswith("^") or ":" in key else key + ":0"] = tensor
    return result


def _node_name(input_name: str) -> str:
    return input_name.lstrip("^").split(":")[0]


def inputs_first(graph_def: Any, external: set | frozenset = frozenset()) -> list:
    """The nodes, each after the nodes it reads: the GraphDef's own order when it already is such an order (as
    TensorFlow and webflow write them), else a depth-first one. `external`: input names that are no node (a
    FunctionDef's arguments)."""
    nodes = {node.name: node for node in graph_def.node}
    for node in graph_def.node:
        for source in node.input:
            if _node_name(source) not in nodes and source not in external:
                raise ValueError(f"Node '{node.name}': Unknown input node '{_node_name(source)}'")
    order, done, active = [], set(), set()
    for first in graph_def.node:
        stack = [(first, False)]
        while stack:
            node, inputs_done = stack.pop()
            if node.name in done:
                continue
            if inputs_done:
                active.discard(node.name)
                done.add(node.name)
                order.append(node)
                continue
            if node.name in active:
                raise ValueError(f"GraphDef has a cycle (a TF1 while loop?) through node '{node.name}': webflow "
                                 "imports only graphs without cycles")
            active.add(node.name)
            stack.append((node, True))
            for source in reversed(node.input):
                if _node_name(source) not in done and source not in external:
                    stack.append((nodes[_node_name(source)], False))
    return order


def _node_inputs(node: Any, built: dict, mapped: dict, used: set) -> tuple[list, list]:
    inputs, controls = [], []
    for name in node.input:
        if name.startswith("^"):
            if name in mapped:
                used.add(name)
                controls.append(mapped[name].op)
            else:
                controls.append(built[name[1:]])
            continue
        source, _, index = name.partition(":")
        key = f"{source}:{index or 0}"
        if key in mapped:
            used.add(key)
            inputs.append(mapped[key])
            continue
        outputs = built[source].outputs
        if int(index or 0) >= len(outputs):
            raise ValueError(f"Node '{node.name}': Connecting to invalid output {index} of source node {source} "
                             f"which has {len(outputs)} outputs.")
        inputs.append(outputs[int(index or 0)])
    return inputs, controls


def build_node(node: Any, full_name: str, inputs: list, controls: list, functions: Any = None) -> Operation:
    """The Operation for NodeDef `node` in the default graph, named `full_name`; its `func` attrs become FuncGraphs
    built by `functions` (a function_def_import.FunctionBuilder)."""
    webflow_type = op_type(node)
    opdef = OPS.get(webflow_type)
    if opdef is None:
        raise ValueError(f"Op type not registered '{node.op}' in webflow (node '{node.name}').")
    try:
        attrs = complete_attrs(webflow_type, webflow_attrs(node, opdef, functions), inputs)
        result = apply_op(webflow_type, inputs, attrs, name=full_name + "/")
    except (TypeError, ValueError) as error:
        raise ValueError(f"Cannot import node '{node.name}' ({node.op}): {error}") from error
    except (IndexError, AttributeError) as error:   # a damaged NodeDef (fewer inputs than its op reads, an attr of
        # the wrong kind) reaching a shape rule: TensorFlow's importer checks the NodeDef first and says ValueError
        raise ValueError(f"Cannot import node '{node.name}' ({node.op}): NodeDef does not match its op ({error})") \
            from error
    except KeyError as error:  # a damaged NodeDef without a required attr: TensorFlow's importer says ValueError
        raise ValueError(f"Cannot import node '{node.name}' ({node.op}): NodeDef missing attr {error}") from error
    if isinstance(result, Operation):
        op = result
    else:
        op = (result[0] if isinstance(result, list) else result).op
    op._add_control_inputs(controls)
    if node.device:
        op._set_device(node.device)
    if "_class" in node.attr and node.attr["_class"].list.s:   # colocation groups, kept under the import's prefix
        prefix = full_name[:len(full_name) - len(node.name)].encode()
        op._attrs["_class"] = sorted(b"loc:@" + prefix + group.removeprefix(b"loc:@")
                                     for group in node.attr["_class"].list.s)
    return op


def _returned(graph: Any, prefix: str, element: str, built: dict) -> Any:
    if not isinstance(element, str):
        raise TypeError(f"return_elements must be names, not {element!r}")
    source = _node_name(element)
    if source not in built:
        raise ValueError(f"Requested return_element {element!r} not found in graph_def.")
    if ":" in element:
        return graph.get_tensor_by_name(prefix + element)
    return built[source]


# --- attrs --------------------------------------------------------------------------------------------
@functools.cache
def _kernel_attr_names(op_type: str) -> tuple[frozenset, bool]:
    """(the keyword arguments the op's kernel names, whether it also takes **attrs)."""
    opdef = OPS[op_type]
    kernel = opdef.kernels.get("numpy", opdef.kernel)  # the stanza's own kernel (the backend may wrap it)
    parameters = inspect.signature(kernel).parameters.values()
    named = frozenset(p.name for p in parameters if p.kind == p.KEYWORD_ONLY)
    return named, any(p.kind == p.VAR_KEYWORD for p in parameters)


def _inferred_attrs(op_type: str) -> set:
    """The attrs webflow reads off the tensors: type attrs and the counts of list arguments (N)."""
    inputs, outputs, declared = op_defs().OP_DEFS.get(op_type, ((), (), ()))
    counts = {kind.removeprefix("ref ").split("*")[0] for _, kind in inputs + outputs if "*" in kind}
    return {name for name, attr_type, *_ in declared if attr_type in ("type", "list(type)") or name in counts}


def webflow_attrs(node: Any, opdef: Any, functions: Any = None) -> dict:
    """The attrs `apply_op` gets for `node`: TensorFlow's (defaults filled in) that the op's kernel takes; a `func`
    attr as a FuncGraph that `functions` builds from the GraphDef's library."""
    webflow_type = op_type(node)
    declared = {attr[0]: attr for attr in op_defs().OP_DEFS.get(webflow_type, ((), (), ()))[2]}
    values = {}
    for name, (_, attr_type, *default) in declared.items():
        if attr_type == "func" and name in node.attr and functions is not None:
            values[name] = functions.func_graph(node.attr[name].func.name, context.get_default_graph())
        elif name in node.attr:
            values[name] = python_value(node.attr[name], attr_type)
        elif default:
            values[name] = _python_default(default[0], attr_type)
    for name in node.attr:
        if name not in declared and not name.startswith("_"):
            values[name] = python_value(node.attr[name], None)
    named, takes_any = _kernel_attr_names(webflow_type)
    inferred = _inferred_attrs(webflow_type)
    result = {name: value for name, value in values.items()
              if name in named or (takes_any and name not in inferred)}
    for name, source in _FROM_TENSORFLOW.get(webflow_type, {}).items():
        if source in values:
            result[name] = values[source]
    return result


def _python_default(value: Any, attr_type: str) -> Any:
    if attr_type == "type":
        return dtypes.as_dtype(value)
    if attr_type == "shape":
        return TensorShape(value)
    if attr_type == "list(type)":
        return [dtypes.as_dtype(v) for v in value]
    if attr_type == "list(shape)":
        return [TensorShape(v) for v in value]
    return value


def _string(value: bytes) -> Any:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value


def python_value(message: Any, attr_type: str | None) -> Any:
    """The Python value of an AttrValue: str, int, float, bool, DType, TensorShape, NumPy array, or a list."""
    field = message.WhichOneof("value")
    if field == "list":
        items = message.list
        item_type = attr_type[len("list("):-1] if attr_type and attr_type.startswith("list(") else None
        if item_type is None:  # an attr TensorFlow's OpDef does not declare: the field that has items
            item_type = next((f for f in ("s", "i", "f", "b", "type", "shape", "tensor") if len(getattr(items, f))),
                             "i")
            item_type = {"s": "string", "i": "int", "f": "float", "b": "bool"}.get(item_type, item_type)
        convert = {"string": lambda: [_string(s) for s in items.s], "int": lambda: list(items.i),
                   "float": lambda: list(items.f), "bool": lambda: list(items.b),
                   "type": lambda: [dtypes.as_dtype(t) for t in items.type],
                   "shape": lambda: [TensorShape(tensor_proto.shape_from_proto(s)) for s in items.shape],
                   "tensor": lambda: [tensor_proto.make_ndarray(t) for t in items.tensor]}
        if item_type not in convert:
            raise ValueError(f"attrs of type list({item_type}) are not supported")
        return convert[item_type]()
    if field == "s":
        return _string(message.s)
    if field in ("i", "f", "b"):
        return getattr(message, field)
    if field == "type":
        return dtypes.as_dtype(message.type)
    if field == "shape":
        return TensorShape(tensor_proto.shape_from_proto(message.shape))
    if field == "tensor":
        return tensor_proto.make_ndarray(message.tensor)
    if field == "func":
        raise ValueError(f"function attr {message.func.name!r}: import the whole GraphDef (tf.import_graph_def), "
                         "whose library holds the function")
    raise ValueError(f"unsupported attr value ({field})")
