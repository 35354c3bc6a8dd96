"""TF1's `tf.saved_model.builder.SavedModelBuilder` (`tf.compat.v1.saved_model.Builder`) and `simple_save`.

A SavedModel is a directory TensorFlow's loaders (and TensorFlow Serving) read:

    export_dir/saved_model.pb                            SavedModel: schema version 1, one MetaGraphDef per tag set
    export_dir/variables/variables.index                 the variables, a V2 checkpoint (train/saver.py)
    export_dir/variables/variables.data-00000-of-00001
    export_dir/assets/<file>                             files the graph reads (vocabularies ...), if any

Each MetaGraphDef is train/meta_graph.py's (GraphDef, collections, SaverDef when the Saver has one), with its
tags, its SignatureDefs, and its assets as AssetFileDefs in the `saved_model_assets` collection.

Atomic: TensorFlow writes into `export_dir` as it goes; this builder writes everything into a sibling staging
directory (`.<name>.tmp<pid>`), and `save()` renames it onto `export_dir` (which the constructor created empty,
as TensorFlow's does; renaming a directory onto an empty one is atomic on POSIX). A crash leaves `export_dir`
empty (and the hidden staging directory behind), never holding a saved_model.pb without its variables.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from typing import Any

from webflow.framework import context
from webflow.framework.graph import Operation
from webflow.framework.tensor import Tensor
from webflow.saved_model import constants, signature_constants
from webflow.saved_model.signature_def_utils import op_signature_def, predict_signature_def
from webflow.train import meta_graph_export


class SavedModelBuilder:
    """Builds a SavedModel: `add_meta_graph_and_variables` once (graph + variables), `add_meta_graph` for more
    tag sets over the same variables, then `save`."""

    def __init__(self, export_dir: str):
        from webflow.protos import saved_model_pb2

        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(f"Export directory {self._export_dir} already exists, and isn't empty. Please "
                                     "choose a different export directory, or delete all the contents of the "
                                     "specified directory.")
        else:
            os.makedirs(self._export_dir)
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False
        self._saved_asset_files: set = set()
        head, tail = os.path.split(os.path.abspath(self._export_dir))
        self._staging = os.path.join(head, f".{tail}.tmp{os.getpid()}")
        shutil.rmtree(self._staging, ignore_errors=True)   # left by an earlier failed export of this process
        self._published = False

    def _target(self) -> str:
        """Where files go now: the staging directory until save() has published it, then export_dir."""
        if self._published:
            return self._export_dir
        os.makedirs(self._staging, exist_ok=True)
        return self._staging

    # --- meta graphs ---------------------------------------------------------------------------------------
    def add_meta_graph_and_variables(self, sess: Any, tags: list, signature_def_map: dict | None = None,
                                     assets_collection: list | None = None, legacy_init_op: Any = None,
                                     clear_devices: bool = False, main_op: Any = None,
                                     strip_default_attrs: bool = False, saver: Any = None) -> None:
        """Saves the variables of `sess` (to variables/variables) and adds the graph under `tags`."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please invoke "
                                 "`add_meta_graph()` instead.")
        signature_def_map = _validated(signature_def_map)
        self._add_collections(assets_collection, main_op if main_op is not None else legacy_init_op)
        saver = saver or _default_saver()
        variables_dir = os.path.join(self._target(), constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        if saver is not None:
            saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME), write_meta_graph=False,
                       write_state=False)
        self._add(saver, tags, signature_def_map, clear_devices)
        self._has_saved_variables = True

    def add_meta_graph(self, tags: list, signature_def_map: dict | None = None, assets_collection: list | None = None,
                       legacy_init_op: Any = None, clear_devices: bool = False, main_op: Any = None,
                       strip_default_attrs: bool = False, saver: Any = None) -> None:
        """Adds the default graph under `tags`, over the variables saved already."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please invoke "
                                 "`add_meta_graph_and_variables()` first.")
        signature_def_map = _validated(signature_def_map)
        self._add_collections(assets_collection, main_op if main_op is not None else legacy_init_op)
        self._add(saver or _default_saver(), tags, signature_def_map, clear_devices)

    def _add(self, saver: Any, tags: list, signature_def_map: dict, clear_devices: bool) -> None:
        saver_def = saver.as_saver_def() if saver is not None else None
        meta = meta_graph_export.export_meta_graph(saver_def=saver_def, clear_devices=clear_devices)
        meta.meta_info_def.tags.extend(tags)
        for key, signature in signature_def_map.items():
            meta.signature_def[key].MergeFromString(signature.SerializeToString())
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def _add_collections(self, assets_collection: list | None, main_op: Any) -> None:
        """The assets (copied to assets/, listed in `saved_model_assets`) and the main op, in the graph's
        collections, as TensorFlow's builder puts them there."""
        graph = context.get_default_graph()
        if assets_collection:
            self._add_assets(graph, assets_collection)
        if main_op is not None:
            if not isinstance(main_op, Operation):
                raise TypeError(f"Expected {main_op} to be an Operation but got type {type(main_op)} instead.")
            for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
                if graph.get_collection(key):
                    raise ValueError(f"Graph already contains one or more main ops under the collection {key}.")
            graph.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _add_assets(self, graph: Any, assets_collection: list) -> None:
        from google.protobuf import any_pb2

        from webflow.protos import meta_graph_pb2

        sources: dict[str, str] = {}
        for tensor in assets_collection:
            source = _asset_path(tensor)
            name = _unique_asset_name(source, sources)
            sources[name] = source
            packed = any_pb2.Any()
            packed.Pack(meta_graph_pb2.AssetFileDef(filename=name,
                                                    tensor_info=meta_graph_pb2.TensorInfo(name=tensor.name)))
            graph.add_to_collection(constants.ASSETS_KEY, packed)
        assets_dir = os.path.join(self._target(), constants.ASSETS_DIRECTORY)
        os.makedirs(assets_dir, exist_ok=True)
        for name, source in sources.items():
            destination = os.path.join(assets_dir, name)
            if os.path.exists(source) and destination not in self._saved_asset_files:
                shutil.copyfile(source, destination)
                self._saved_asset_files.add(destination)

    # --- writing -------------------------------------------------------------------------------------------
    def save(self, as_text: bool = False) -> bytes:
        """Writes saved_model.pb (saved_model.pbtxt with `as_text`), then publishes the SavedModel at export_dir
        in one rename; returns the file's path (bytes, as TensorFlow)."""
        name = constants.SAVED_MODEL_FILENAME_PBTXT if as_text else constants.SAVED_MODEL_FILENAME_PB
        meta_graph_export.write_message(os.path.join(self._target(), name), self._saved_model, as_text)
        if not self._published:
            if not os.path.exists(self._export_dir):
                os.makedirs(self._export_dir)
            os.replace(self._staging, self._export_dir)   # onto the empty directory: atomic
            self._published = True
        return os.path.join(self._export_dir, name).encode("utf-8")


Builder = SavedModelBuilder   # tf.compat.v1.saved_model.Builder


def _default_saver() -> Any:
    """A Saver of every global variable (TensorFlow's builder makes a sharded one; webflow's writes one shard,
    the same files), or None for a graph without variables."""
    from webflow.ops.variables import global_variables
    from webflow.train.saver import Saver

    return Saver(global_variables(), allow_empty=True) if global_variables() else None


def _validated(signature_def_map: dict | None) -> dict:
    """TensorFlow's checks: every TensorInfo names a tensor and a dtype; the init/train keys are reserved."""
    signature_def_map = dict(signature_def_map or {})
    for signature in signature_def_map.values():
        for info in list(signature.inputs.values()) + list(signature.outputs.values()):
            if info.WhichOneof("encoding") is None:
                raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the "
                                     "SignatureDefs must have one of the 'encoding' fields (e.g., name or "
                                     "coo_sparse) set.")
            if info.dtype == 0:
                raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in the "
                                     "SignatureDefs must have the dtype field set.")
    for key, what in ((constants.INIT_OP_SIGNATURE_KEY, "initialization"),
                      (constants.TRAIN_OP_SIGNATURE_KEY, "the train op")):
        if key in signature_def_map:
            raise KeyError(f'SignatureDef map key "{key}" is reserved for {what}. Please use a different key.')
    return signature_def_map


def _asset_path(tensor: Any) -> str:
    """The file a scalar string Const names (TensorFlow's rule for an asset tensor)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.Has type {tensor.op.type} instead.")
    if tensor.dtype.base_dtype.name != "string":
        raise TypeError(f"Asset path tensor {tensor}` must be of dtype string.Has type {tensor.dtype} instead.")
    value = tensor.op.get_attr("value")
    value = value.reshape(-1).tolist() if hasattr(value, "reshape") else [value]
    if len(value) != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    return value[0].decode("utf-8") if isinstance(value[0], bytes) else str(value[0])


def _unique_asset_name(source: str, taken: dict) -> str:
    """The file's base name, suffixed `_1`, `_2` ... when another file of that name is taken already."""
    name = os.path.basename(source)
    if name not in taken or taken[name] == source or filecmp.cmp(source, taken[name], shallow=False):
        return name
    i, unique = 1, name
    while unique in taken:
        unique, i = f"{name}_{i}", i + 1
    return unique


def simple_save(session: Any, export_dir: str, inputs: dict, outputs: dict, legacy_init_op: Any = None) -> None:
    """A SavedModel for serving in one call: tag `serve`, one predict signature `serving_default`."""
    from webflow.framework.graph import GraphKeys

    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                         predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, tags=["serve"], signature_def_map=signature_def_map,
        assets_collection=session.graph.get_collection(GraphKeys.ASSET_FILEPATHS), main_op=legacy_init_op,
        clear_devices=True)
    builder.save()


__all__ = ["Builder", "SavedModelBuilder", "op_signature_def", "simple_save"]
