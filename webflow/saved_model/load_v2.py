"""TF2's `tf.saved_model.load` of a TF2 SavedModel (what `tf.saved_model.save` writes, TensorFlow's or webflow's).

The MetaGraphDef's SavedObjectGraph (field 7) says which Python objects to rebuild:
- a user object (a tf.Module, the "signatures" map) becomes a `Loaded` object with one attribute per child;
- a variable becomes a wf.Variable holding the value the SavedModel's `variables/` checkpoint has for it (found by
  following the same child names from the root in the checkpoint's own object graph);
- a function becomes a `LoadedFunction`: its concrete functions are the library's FunctionDefs, built as FuncGraphs
  (io/function_def_import.py), called with the arguments and then the handles of the variables they are bound to,
  outputs packed back into the saved structure (a tensor, a tuple/list, a dict);
- the "signatures" map's bare concrete functions are called with keyword arguments and return a dict.
Constants, assets, resources and restored optimizers are not rebuilt (a clear error names them when used).
"""

from __future__ import annotations

import os
from typing import Any

from webflow.framework import context
from webflow.framework.graph import Graph
from webflow.io import checkpoint_bundle, tensor_proto
from webflow.io.function_def_import import FunctionBuilder
from webflow.io.graph_def_import import build_node, inputs_first
from webflow.ops.convert import convert_to_tensor
from webflow.ops.functional_ops import call_function
from webflow.saved_model import constants
from webflow.train import object_graph


def object_graph_def(meta: Any) -> Any:
    """The SavedObjectGraph of MetaGraphDef `meta`; None for a TF1 SavedModel, which has none."""
    return meta.object_graph_def if meta.HasField("object_graph_def") else None


class Loaded:
    """A restored user object: one attribute per child of its node (variables, objects, functions)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = self.__dict__.get("__call__")   # a saved `__call__` method is an attribute of this object
        if function is None:
            raise TypeError("this loaded object was saved without a __call__ function")
        return function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<webflow loaded object ({', '.join(sorted(vars(self)))})>"


class LoadedFunction:
    """A restored wf.function: calls the concrete function whose input signature fits the arguments."""

    def __init__(self, concretes: list):
        self._concretes = concretes

    def __call__(self, *args: Any) -> Any:
        for concrete in self._concretes:
            if concrete.accepts(args):
                return concrete(*args)
        raise ValueError(f"Could not find matching concrete function to call loaded from the SavedModel. Got "
                         f"{len(args)} positional arguments; options: {[c.input_count for c in self._concretes]}")

    @property
    def concrete_functions(self) -> list:
        return list(self._concretes)


class LoadedConcreteFunction:
    """One FunctionDef as a callable: explicit arguments, then its bound variables' handles."""

    def __init__(self, graph: Any, variables: list, output_signature: Any, argument_keywords: list):
        self.graph = graph
        self._variables = variables
        self._output_signature = output_signature
        self.input_count = len(graph.inputs) - len(variables)
        self.argument_keywords = argument_keywords

    def accepts(self, args: tuple) -> bool:
        return len(args) == self.input_count

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            missing = [k for k in self.argument_keywords if k not in kwargs]
            if missing or args:
                raise TypeError(f"Signature takes keyword arguments {self.argument_keywords}, got "
                                f"{len(args)} positional and {sorted(kwargs)}")
            args = tuple(kwargs[k] for k in self.argument_keywords)
        inputs = [convert_to_tensor(a, dtype=t.dtype) for a, t in zip(args, self.graph.inputs)]
        outputs = call_function(self.graph, inputs + [v.handle for v in self._variables])
        return _packed(self._output_signature, iter(outputs))


def _packed(signature: Any, outputs: Any) -> Any:
    """Outputs in the structure a StructuredValue describes (dict values in sorted key order, as TF flattens)."""
    kind = signature.WhichOneof("kind")
    if kind == "dict_value":
        return {key: _packed(signature.dict_value.fields[key], outputs) for key in sorted(signature.dict_value.fields)}
    if kind in ("tuple_value", "list_value"):
        items = [_packed(item, outputs) for item in getattr(signature, kind).values]
        return tuple(items) if kind == "tuple_value" else items
    if kind == "none_value":
        return None
    return next(outputs)


def load(export_dir: Any, saved_model: Any) -> Any:
    """The root object of the TF2 SavedModel in `export_dir` (`saved_model`: its parsed saved_model.pb)."""
    if not context.executing_eagerly():
        raise RuntimeError("tf.saved_model.load of a TF2 SavedModel needs eager execution in webflow")
    meta = saved_model.meta_graphs[0]
    proto = _checked_object_graph(object_graph_def(meta))
    values = _variable_values(os.fspath(export_dir), proto)
    objects: dict[int, Any] = {}
    for node_id, node in enumerate(proto.nodes):
        if node.WhichOneof("kind") == "variable":
            objects[node_id] = _variable(node.variable, values.get(node_id))
    builder = FunctionBuilder(meta.graph_def.library, build_node, inputs_first)
    graphs: dict[str, Any] = {}
    for node_id, node in enumerate(proto.nodes):
        kind = node.WhichOneof("kind")
        if kind == "function":
            objects[node_id] = LoadedFunction([_concrete(name, proto, builder, graphs, objects, [])
                                               for name in node.function.concrete_functions])
        elif kind == "bare_concrete_function":
            bare = node.bare_concrete_function
            objects[node_id] = _concrete(bare.concrete_function_name, proto, builder, graphs, objects,
                                         list(bare.argument_keywords))
        elif kind in ("user_object", None):
            objects[node_id] = {} if node.user_object.identifier == "signature_map" else Loaded()
        elif kind != "variable":   # assets, constants, captured resources: none of webflow's own saves has them
            raise NotImplementedError(f"webflow cannot load SavedModel objects of kind {kind!r} (node {node_id})")
    for node_id, node in enumerate(proto.nodes):
        _attach_children(objects[node_id], node, objects)
    return objects[0]


def _checked_object_graph(proto: Any) -> Any:
    """`proto` if it has a root and every child edge names one of its nodes; else ValueError (a damaged
    saved_model.pb, found by tools/fuzz_table.py)."""
    if not proto.nodes:
        raise ValueError("Damaged SavedModel: its object graph has no nodes")
    for node_id, node in enumerate(proto.nodes):
        for child in node.children:
            if not 0 <= child.node_id < len(proto.nodes):
                raise ValueError(f"Damaged SavedModel: node {node_id}'s child {child.local_name!r} is node "
                                 f"{child.node_id}, but the object graph has {len(proto.nodes)} nodes")
    return proto


def _attach_children(obj: Any, node: Any, objects: dict) -> None:
    for child in node.children:
        if child.node_id not in objects:
            continue
        if isinstance(obj, dict):
            obj[child.local_name] = objects[child.node_id]
        elif isinstance(obj, Loaded):
            setattr(obj, child.local_name, objects[child.node_id])


def _concrete(name: str, proto: Any, builder: Any, graphs: dict, objects: dict, keywords: list) -> Any:
    if name not in graphs:
        with Graph().as_default() as outer:  # the FuncGraph's outer graph: never run, only a parent
            graphs[name] = builder.func_graph(name, outer)
    saved = proto.concrete_functions[name]
    missing = [i for i in saved.bound_inputs if i not in objects]
    if missing:   # a damaged saved_model.pb (found by tools/fuzz_table.py)
        raise ValueError(f"Damaged SavedModel: the concrete function '{name}' captures node {missing[0]}, which is "
                         "not in its object graph")
    variables = [objects[i] for i in saved.bound_inputs]
    return LoadedConcreteFunction(graphs[name], variables, saved.output_signature, keywords)


def _variable(saved: Any, value: Any) -> Any:
    from webflow.ops.resource_variable_ops import ResourceVariable

    if value is None:
        raise ValueError(f"The SavedModel's checkpoint has no value for variable {saved.name!r}")
    return ResourceVariable(value, name=saved.name or None, trainable=saved.trainable)


def _paths(proto: Any) -> dict:
    """{node id: child names from the root} of an object graph (the first path found, breadth first)."""
    paths, queue = {0: ()}, [0]
    while queue:
        node_id = queue.pop(0)
        for child in proto.nodes[node_id].children:
            if child.node_id not in paths:
                paths[child.node_id] = paths[node_id] + (child.local_name,)
                queue.append(child.node_id)
    return paths


def _variable_values(export_dir: str, proto: Any) -> dict:
    """{SavedObjectGraph node id: value} of its variables, from variables/variables."""
    from webflow.protos import trackable_object_graph_pb2

    prefix = os.path.join(export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
    reader = checkpoint_bundle.BundleReader(prefix)
    checkpoint = trackable_object_graph_pb2.TrackableObjectGraph.FromString(
        bytes(tensor_proto.as_bytes(reader.tensor(object_graph.OBJECT_GRAPH_KEY)[()])))
    by_path = {path: node_id for node_id, path in _paths(checkpoint).items()}
    values = {}
    for node_id, path in _paths(proto).items():
        if proto.nodes[node_id].WhichOneof("kind") != "variable" or path not in by_path:
            continue
        for attribute in checkpoint.nodes[by_path[path]].attributes:
            if attribute.name == object_graph.VARIABLE_VALUE:
                values[node_id] = reader.tensor(attribute.checkpoint_key)
    return values


def load_saved_model(export_dir: Any, tags: Any = None, options: Any = None) -> Any:
    """`tf.saved_model.load`: a TF2 SavedModel's root object; a TF1 SavedModel through load_v1_in_v2.py."""
    from webflow.saved_model import load_v1_in_v2
    from webflow.saved_model.loader import parse_saved_model

    saved_model = parse_saved_model(export_dir)
    if is_tf2_saved_model(saved_model):
        return load(export_dir, saved_model)
    return load_v1_in_v2.load(export_dir, tags, options)


def is_tf2_saved_model(saved_model: Any) -> bool:
    """Whether the SavedModel's MetaGraphDef has a SavedObjectGraph with nodes (as TensorFlow's load decides)."""
    if len(saved_model.meta_graphs) != 1:
        return False
    proto = object_graph_def(saved_model.meta_graphs[0])
    return proto is not None and len(proto.nodes) > 0


__all__ = ["Loaded", "LoadedConcreteFunction", "LoadedFunction", "is_tf2_saved_model", "load", "load_saved_model",
           "object_graph_def"]
