"""TF2's `tf.saved_model.save(obj, export_dir, signatures=)`: a wf.Module's variables and wf.functions, as TensorFlow
lays a TF2 SavedModel out, so that `tf.saved_model.load` (TensorFlow's or webflow's) calls them.

- `saved_model.pb`: a SavedModel with one MetaGraphDef (tag "serve") holding
  - the GraphDef: every traced function as a FunctionDef in its library (io/function_def.py), named as TensorFlow
    names them (`__inference_<name>_<n>`), and for each signature a Placeholder per input, a VarHandleOp per
    variable and the StatefulPartitionedCall the SignatureDef's tensors name;
  - the SavedObjectGraph (MetaGraphDef field 7, protos/saved_object_graph.proto): node 0 the root object, then the
    objects tf.train.Checkpoint would save (same order, train/object_graph.py), then one node per wf.function (its
    concrete functions, each bound to the variable nodes it captures), then the "signatures" map and one bare
    concrete function per signature, which returns a dict ({"output_0": ...} unless the function returns a dict);
  - a SignatureDef per signature (method "tensorflow/serving/predict").
- `variables/variables.{index,data-00000-of-00001}`: the objects' checkpoint in tf.train.Checkpoint's format.

Everything is written into a sibling temporary directory, renamed onto `export_dir` at the end. Functions traced
without an input_signature are saved with the traces they have; a function capturing a tensor that is no variable
is refused (ValueError), as are functions with no trace at all (skipped, as TensorFlow skips them).
"""

from __future__ import annotations

import inspect
import os
import shutil
from typing import Any

from webflow.io import checkpoint_bundle, tensor_proto
from webflow.io.function_def import FunctionLibrary
from webflow.io.graph_def import output_arg_names, write_node_def
from webflow.io.op_defs import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, TF_VERSION
from webflow.train import object_graph
from webflow.train.trackable import children, is_variable, walk

SERVING_TAG = "serve"
PREDICT_METHOD = "tensorflow/serving/predict"
DEFAULT_SIGNATURE = "serving_default"


def save(obj: Any, export_dir: Any, signatures: Any = None, options: Any = None) -> None:
    """Writes `obj` (a wf.Module or other trackable) with its variables and wf.functions as a TF2 SavedModel."""
    export_dir = os.fspath(export_dir)
    order, _ = walk(obj)
    saved = _SavedGraph(order)
    saved.add_functions()
    saved.add_signatures(_signature_functions(signatures, saved.functions))
    staging = f"{export_dir.rstrip(os.sep)}.tmp{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(os.path.join(staging, "variables"))
    try:
        graph, values = object_graph.serialize(obj)
        values.append((object_graph.OBJECT_GRAPH_KEY, _string_scalar(graph.SerializeToString())))
        checkpoint_bundle.write_bundle(os.path.join(staging, "variables", "variables"), values)
        os.makedirs(os.path.join(staging, "assets"))
        with open(os.path.join(staging, "saved_model.pb"), "wb") as file:
            file.write(saved.saved_model_bytes())
        _move_into_place(staging, export_dir)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _string_scalar(data: bytes) -> Any:
    """A scalar string array (NumPy's object dtype, what the bundle writer takes), made through a TensorProto."""
    return tensor_proto.make_ndarray(tensor_proto.make_tensor_proto(data))


def _move_into_place(staging: str, export_dir: str) -> None:
    """Replaces `export_dir`'s SavedModel files with the staged ones (the directory may exist, as in TensorFlow)."""
    os.makedirs(export_dir, exist_ok=True)
    for name in ("variables", "assets"):
        target = os.path.join(export_dir, name)
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.replace(os.path.join(staging, name), target)
    os.replace(os.path.join(staging, "saved_model.pb"), os.path.join(export_dir, "saved_model.pb"))


# --- which functions --------------------------------------------------------------------------------------
def _is_function(value: Any) -> bool:
    return type(value).__name__ == "Function" and hasattr(value, "get_concrete_function")


def functions_of(obj: Any) -> list[tuple[str, Any]]:
    """(attribute name, bound wf.function) of `obj`: its class's decorated methods, then its own attributes."""
    found = []
    for name in sorted(dir(type(obj))):
        if _is_function(inspect.getattr_static(type(obj), name, None)):
            found.append((name, getattr(obj, name)))
    for name, value in sorted(vars(obj).items()):
        # (a decorated method's per-instance binding is kept as "_wf_function_<name>": found above already)
        if _is_function(value) and name not in dict(found) and not name.startswith("_wf_function_"):
            found.append((name, value))
    return found


def _traces(function: Any) -> list:
    """The function's concrete functions: the input_signature's, else the traces made so far."""
    if function._input_signature is not None:
        return [function.get_concrete_function()]
    return list(function._concrete.values())


def _signature_functions(signatures: Any, functions: list) -> dict:
    """{signature key: (concrete function, argument names)} from `signatures` (None: the one function with an
    input_signature, if exactly one)."""
    if signatures is None:
        with_signature = [f for f in functions if f["function"]._input_signature is not None]
        signatures = {DEFAULT_SIGNATURE: with_signature[0]["function"]} if len(with_signature) == 1 else {}
    elif not isinstance(signatures, dict):
        signatures = {DEFAULT_SIGNATURE: signatures}
    result = {}
    for key, function in signatures.items():
        concrete = function.get_concrete_function() if _is_function(function) else function
        result[key] = (concrete, _argument_names(function if _is_function(function) else None, concrete))
    return result


def _argument_names(function: Any, concrete: Any) -> list:
    specs = getattr(function, "_input_signature", None) or []
    names = _python_argument_names(function) if function is not None else []
    result = []
    for index, tensor in enumerate(concrete.graph.inputs[:_explicit_count(concrete)]):
        spec_name = getattr(specs[index], "name", None) if index < len(specs) else None
        result.append(spec_name or (names[index] if index < len(names) else tensor.op.name))
    return result


def _python_argument_names(function: Any) -> list:
    """The Python parameters (a method bound by Function.__get__ has no `self` left)."""
    names = list(function._signature.parameters)
    return names[1:] if names[:1] == ["self"] else names


def _explicit_count(concrete: Any) -> int:
    return len(concrete.graph.inputs) - len(concrete.graph.captures)


# --- the SavedObjectGraph and the GraphDef ------------------------------------------------------------------------
class _SavedGraph:
    """Builds the SavedObjectGraph, the FunctionDef library and the signature nodes of one SavedModel."""

    def __init__(self, order: list):
        from webflow.protos import graph_pb2, saved_object_graph_pb2

        self.order = order
        self.node_of = {id(obj): i for i, obj in enumerate(order)}
        self.proto = saved_object_graph_pb2.SavedObjectGraph()
        self.library = FunctionLibrary(write_node_def, output_arg_names)
        self.graph_def = graph_pb2.GraphDef()
        self.signature_defs: dict = {}
        self.functions: list[dict] = []
        self._counter = 0
        for obj in order:
            self._add_object(obj)

    def _add_object(self, obj: Any) -> None:
        node = self.proto.nodes.add()
        for name, child in children(obj):
            node.children.add(node_id=self.node_of[id(child)], local_name=name)
        if is_variable(obj):
            variable = node.variable
            variable.dtype = obj.dtype.base_dtype.as_datatype_enum
            variable.shape.CopyFrom(tensor_proto.shape_proto(obj.shape))
            variable.trainable = bool(getattr(obj, "trainable", True))
            variable.name = object_graph.full_name(obj)
        else:
            _user_object(node, _identifier(obj))

    def _function_name(self, base: str) -> str:
        self._counter += 1
        return f"__inference_{base}_{self._counter}"

    # --- wf.functions ---
    def add_functions(self) -> None:
        for owner_index, owner in enumerate(list(self.order)):
            for attribute, function in functions_of(owner):
                traces = _traces(function)
                if not traces:
                    continue
                node_id = len(self.proto.nodes)
                self.proto.nodes[owner_index].children.add(node_id=node_id, local_name=attribute)
                node = self.proto.nodes.add()
                names = [self._write_concrete(concrete, _argument_names(function, concrete)) for concrete in traces]
                node.function.concrete_functions.extend(names)
                node.function.function_spec.CopyFrom(_function_spec(function, traces[0]))
                self.functions.append({"function": function, "names": names})

    def _write_concrete(self, concrete: Any, argument_names: list, outputs: list | None = None,
                        output_signature: Any = None, keyword_inputs: bool = False) -> str:
        base = ("signature_wrapper_" if keyword_inputs else "") + concrete.graph.name
        name = self._function_name(base)
        self.library.write_function(concrete.graph, name, outputs=outputs)
        saved = self.proto.concrete_functions[name]
        saved.bound_inputs.extend(self._bound_inputs(concrete))
        specs = [_tensor_spec(t, n) for t, n in zip(concrete.graph.inputs, argument_names)]
        signature = saved.canonicalized_input_signature.tuple_value
        if keyword_inputs:
            signature.values.add().tuple_value.SetInParent()
            fields = signature.values.add().dict_value.fields
            for spec, arg_name in zip(specs, argument_names):
                fields[arg_name].CopyFrom(spec)
        else:
            args = signature.values.add().tuple_value
            for spec in specs:
                args.values.add().CopyFrom(spec)
            signature.values.add().dict_value.SetInParent()
        saved.output_signature.CopyFrom(output_signature if output_signature is not None
                                        else _output_signature(concrete))
        return name

    def _bound_inputs(self, concrete: Any) -> list:
        bound = []
        for outer, _ in concrete.graph.captures:
            variable = getattr(outer, "_value", None)
            if not is_variable(variable) or id(variable) not in self.node_of:
                raise ValueError(f"Cannot save function {concrete.graph.name}: it captures {outer!r}, which is not a "
                                 "variable of the saved object (webflow saves captured variables only)")
            bound.append(self.node_of[id(variable)])
        return bound

    # --- signatures ---
    def add_signatures(self, signatures: dict) -> None:
        root = self.proto.nodes[0]
        map_id = len(self.proto.nodes)
        root.children.add(node_id=map_id, local_name="signatures")
        _user_object(self.proto.nodes.add(), "signature_map")
        for key, (concrete, argument_names) in sorted(signatures.items()):
            keys, outputs = _signature_outputs(concrete)
            name = self._write_concrete(concrete, argument_names, outputs=outputs,
                                        output_signature=_dict_signature(keys, outputs), keyword_inputs=True)
            self.proto.nodes[map_id].children.add(node_id=len(self.proto.nodes), local_name=key)
            bare = self.proto.nodes.add().bare_concrete_function
            bare.concrete_function_name = name
            bare.argument_keywords.extend(argument_names)
            bare.function_spec.CopyFrom(_keyword_spec(argument_names))
            self._signature_graph(key, name, concrete, argument_names, keys, outputs)

    def _signature_graph(self, key: str, function_name: str, concrete: Any, argument_names: list, keys: list,
                         outputs: list) -> None:
        """A Placeholder per input, a VarHandleOp per variable, the call, and the SignatureDef naming them."""
        from webflow.protos import meta_graph_pb2

        explicit = concrete.graph.inputs[:_explicit_count(concrete)]
        inputs = [self._placeholder(f"{key}_{name}", tensor) for name, tensor in zip(argument_names, explicit)]
        handles = [self._var_handle(self.order[i]) for i in self._bound_inputs(concrete)]
        call_name = "StatefulPartitionedCall" + (f"_{len(self.signature_defs)}" if self.signature_defs else "")
        call = self.graph_def.node.add(name=call_name, op="StatefulPartitionedCall", input=inputs + handles)
        call.attr["f"].func.name = function_name
        call.attr["Tin"].list.type.extend([t.dtype.base_dtype.as_datatype_enum for t in concrete.graph.inputs])
        call.attr["Tout"].list.type.extend([t.dtype.base_dtype.as_datatype_enum for t in outputs])
        for attr in ("config", "config_proto", "executor_type"):
            call.attr[attr].s = b""
        signature = meta_graph_pb2.SignatureDef(method_name=PREDICT_METHOD)
        for name, tensor, placeholder in zip(argument_names, explicit, inputs):
            _tensor_info(signature.inputs[name], placeholder + ":0", tensor)
        for index, (name, tensor) in enumerate(zip(keys, outputs)):
            _tensor_info(signature.outputs[name], f"{call_name}:{index}", tensor)
        self.signature_defs[key] = signature

    def _placeholder(self, name: str, tensor: Any) -> str:
        node = self.graph_def.node.add(name=name, op="Placeholder")
        node.attr["dtype"].type = tensor.dtype.base_dtype.as_datatype_enum
        node.attr["shape"].shape.CopyFrom(tensor_proto.shape_proto(tensor.shape))
        return name

    def _var_handle(self, variable: Any) -> str:
        name = object_graph.full_name(variable)
        if any(node.name == name for node in self.graph_def.node):
            return name
        node = self.graph_def.node.add(name=name, op="VarHandleOp")
        node.attr["dtype"].type = variable.dtype.base_dtype.as_datatype_enum
        node.attr["shape"].shape.CopyFrom(tensor_proto.shape_proto(variable.shape))
        node.attr["shared_name"].s = name.encode()
        node.attr["container"].s = b""
        node.attr["debug_name"].s = (name + "/").encode()
        node.attr["allowed_devices"].list.SetInParent()
        return name

    # --- the file ---
    def saved_model_bytes(self) -> bytes:
        from webflow.protos import meta_graph_pb2, saved_model_pb2

        self.graph_def.versions.producer = GRAPH_DEF_VERSION
        self.graph_def.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
        self.library.add_to(self.graph_def)
        meta = meta_graph_pb2.MetaGraphDef()
        meta.meta_info_def.tags.append(SERVING_TAG)
        meta.meta_info_def.tensorflow_version = TF_VERSION
        meta.graph_def.CopyFrom(self.graph_def)
        for key, signature in self.signature_defs.items():
            meta.signature_def[key].CopyFrom(signature)
        meta.object_graph_def.CopyFrom(self.proto)
        model = saved_model_pb2.SavedModel(saved_model_schema_version=1)
        model.meta_graphs.add().CopyFrom(meta)
        return model.SerializeToString()


def _identifier(obj: Any) -> str:
    if isinstance(obj, list) or type(obj).__name__ == "ListWrapper":
        return "trackable_list_wrapper"
    if isinstance(obj, dict) or type(obj).__name__ == "_DictWrapper":
        return "trackable_dict_wrapper"
    return "_generic_user_object"


def _user_object(node: Any, identifier: str) -> None:
    node.user_object.identifier = identifier
    node.user_object.version.producer = 1
    node.user_object.version.min_consumer = 1


# --- StructuredValues --------------------------------------------------------------------------------------------
def _tensor_spec(tensor: Any, name: str | None) -> Any:
    from webflow.protos import struct_pb2

    value = struct_pb2.StructuredValue()
    spec = value.tensor_spec_value
    spec.name = name or ""
    spec.shape.CopyFrom(tensor_proto.shape_proto(tensor.shape))
    spec.dtype = tensor.dtype.base_dtype.as_datatype_enum
    return value


def _output_signature(concrete: Any) -> Any:
    """The structure the function returns: one tensor, a tuple/list of them, or a dict."""
    from webflow.protos import struct_pb2

    structure = getattr(concrete, "structured_outputs", None)
    outputs = list(concrete.graph.outputs)
    if isinstance(structure, dict):
        return _dict_signature(sorted(structure), [outputs[structure[k].index] for k in sorted(structure)])
    if len(outputs) == 1 and not isinstance(structure, (list, tuple)):
        return _tensor_spec(outputs[0], "unknown")
    value = struct_pb2.StructuredValue()
    items = value.list_value if isinstance(structure, list) else value.tuple_value
    items.SetInParent()
    for tensor in outputs:
        items.values.add().CopyFrom(_tensor_spec(tensor, "unknown"))
    return value


def _signature_outputs(concrete: Any) -> tuple[list, list]:
    """(keys, tensors) a signature returns, sorted by key as TensorFlow flattens a dict: the function's own dict
    keys, else output_0, output_1 ..."""
    structure = getattr(concrete, "structured_outputs", None)
    outputs = list(concrete.graph.outputs)
    if isinstance(structure, dict):
        keys = sorted(structure)
        return keys, [outputs[structure[k].index] for k in keys]
    named = sorted((f"output_{i}", t) for i, t in enumerate(outputs))
    return [k for k, _ in named], [t for _, t in named]


def _dict_signature(keys: list, tensors: list) -> Any:
    from webflow.protos import struct_pb2

    value = struct_pb2.StructuredValue()
    value.dict_value.SetInParent()
    for key, tensor in zip(keys, tensors):
        value.dict_value.fields[key].CopyFrom(_tensor_spec(tensor, key))
    return value


def _none() -> Any:
    from webflow.protos import struct_pb2

    value = struct_pb2.StructuredValue()
    value.none_value.SetInParent()
    return value


def _strings(names: list) -> Any:
    from webflow.protos import struct_pb2

    value = struct_pb2.StructuredValue()
    value.list_value.SetInParent()
    for name in names:
        value.list_value.values.add().string_value = name
    return value


def _full_arg_spec(args: list, kwonlyargs: list) -> Any:
    from webflow.protos import struct_pb2

    value = struct_pb2.StructuredValue()
    spec = value.named_tuple_value
    spec.name = "FullArgSpec"
    for key, item in (("args", _strings(args)), ("varargs", _none()), ("varkw", _none()), ("defaults", _none()),
                      ("kwonlyargs", _strings(kwonlyargs)), ("kwonlydefaults", _none())):
        spec.values.add(key=key).value.CopyFrom(item)
    spec.values.add(key="annotations").value.dict_value.SetInParent()
    return value


def _function_spec(function: Any, concrete: Any) -> Any:
    from webflow.protos import saved_object_graph_pb2

    spec = saved_object_graph_pb2.FunctionSpec()
    names = _python_argument_names(function)
    spec.fullargspec.CopyFrom(_full_arg_spec(names, []))
    if function._input_signature is not None:
        items = spec.input_signature.tuple_value
        items.SetInParent()
        explicit = concrete.graph.inputs[:_explicit_count(concrete)]
        for tensor, name in zip(explicit, _argument_names(function, concrete)):
            items.values.add().CopyFrom(_tensor_spec(tensor, name))
    else:
        spec.input_signature.none_value.SetInParent()
    return spec


def _keyword_spec(names: list) -> Any:
    from webflow.protos import saved_object_graph_pb2

    spec = saved_object_graph_pb2.FunctionSpec()
    spec.fullargspec.CopyFrom(_full_arg_spec([], names))
    spec.input_signature.none_value.SetInParent()
    return spec


def _tensor_info(info: Any, name: str, tensor: Any) -> None:
    info.name = name
    info.dtype = tensor.dtype.base_dtype.as_datatype_enum
    info.tensor_shape.CopyFrom(tensor_proto.shape_proto(tensor.shape))


__all__ = ["save", "functions_of"]
