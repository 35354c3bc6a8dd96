"""TF1's `tf.saved_model.loader.load` (`tf.compat.v1.saved_model.load`): a SavedModel's MetaGraphDef for a set of
tags, imported into the session's graph, its variables restored, its init op run.

Works for a SavedModel written by webflow or by TensorFlow's TF1 builder / `simple_save`: the graph comes in
through train/meta_graph.py's `import_meta_graph`, whose Saver runs TensorFlow's own save/restore ops (SaveV2,
RestoreV2 ... from io/checkpoint_ops.py) when the MetaGraphDef has a SaverDef. TF2 SavedModels
(`tf.saved_model.save`: functions as a FunctionDef library, an object graph) are not read.
"""

from __future__ import annotations

import os
from typing import Any

from webflow.saved_model import constants
from webflow.saved_model.signature_def_utils import load_op_from_signature_def
from webflow.train import meta_graph


def parse_saved_model(export_dir: str) -> Any:
    """The SavedModel message of `export_dir` (saved_model.pb, else saved_model.pbtxt); OSError as TensorFlow's
    IOError when there is neither or it cannot be parsed."""
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError

    from webflow.protos import saved_model_pb2

    export_dir = os.fspath(export_dir)
    path_pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    path_txt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = saved_model_pb2.SavedModel()
    if os.path.exists(path_pb):
        with open(path_pb, "rb") as handle:
            try:
                saved_model.ParseFromString(handle.read())
            except DecodeError as error:
                raise OSError(f"Cannot parse file {path_pb}: {error}.") from error
    elif os.path.exists(path_txt):
        with open(path_txt, "rb") as handle:
            try:
                text_format.Parse(handle.read().decode("utf-8"), saved_model, allow_unknown_field=True)
            except text_format.ParseError as error:
                raise OSError(f"Cannot parse file {path_txt}: {error}.") from error
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.path.sep}"
                      f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}")
    return saved_model


def maybe_saved_model_directory(export_dir: str) -> bool:
    """Whether `export_dir` holds a saved_model.pb or saved_model.pbtxt (not whether it loads)."""
    export_dir = os.fspath(export_dir)
    return any(os.path.exists(os.path.join(export_dir, name))
               for name in (constants.SAVED_MODEL_FILENAME_PBTXT, constants.SAVED_MODEL_FILENAME_PB, "saved_model.cpb"))


contains_saved_model = maybe_saved_model_directory


def meta_graph_def_from_tags(saved_model: Any, tags: Any) -> Any:
    """The MetaGraphDef whose tag set is exactly `tags`; RuntimeError (TensorFlow's words) when none is."""
    available = []
    for meta in saved_model.meta_graphs:
        available.append(set(meta.meta_info_def.tags))
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    raise RuntimeError(f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not be found in SavedModel, "
                       f"with available tags '{available}'. To inspect available tag-sets in the SavedModel, please "
                       "use the SavedModel CLI: `saved_model_cli`.")


def load(sess: Any, tags: Any, export_dir: str, import_scope: str | None = None, **saver_kwargs: Any) -> Any:
    """Imports the MetaGraphDef tagged `tags` into `sess.graph`, restores its variables from
    export_dir/variables/variables, runs its init op (with its assets' paths fed); returns the MetaGraphDef."""
    export_dir = os.fspath(export_dir)
    meta = meta_graph_def_from_tags(parse_saved_model(export_dir), tags)
    with sess.graph.as_default():
        saver = meta_graph.import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        if saver is not None:
            saver.restore(sess, os.path.join(export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME))
        init_op = _init_op(meta, sess.graph, import_scope)
        if init_op is not None:
            sess.run([init_op], feed_dict=asset_tensors(export_dir, meta, import_scope))
    return meta


def _init_op(meta: Any, graph: Any, import_scope: str | None) -> Any:
    """The op the SavedModel runs after restoring: the init-op signature's, else the main op collection's."""
    if constants.INIT_OP_SIGNATURE_KEY in meta.signature_def:
        return load_op_from_signature_def(meta.signature_def[constants.INIT_OP_SIGNATURE_KEY],
                                          constants.INIT_OP_SIGNATURE_KEY, import_scope)
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            names = meta.collection_def[key].node_list.value
            if len(names) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel init op. Found {len(names)}: {names}.")
            return graph.get_collection(key)[0]
    return None


def asset_tensors(export_dir: str, meta: Any, import_scope: str | None = None) -> dict:
    """{asset tensor name: its file's path under export_dir/assets}, from asset_file_def or the assets
    collection."""
    from webflow.protos import meta_graph_pb2

    protos = list(meta.asset_file_def)
    if not protos and constants.ASSETS_KEY in meta.collection_def:
        for packed in meta.collection_def[constants.ASSETS_KEY].any_list.value:
            asset = meta_graph_pb2.AssetFileDef()
            packed.Unpack(asset)
            protos.append(asset)
    directory = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
    return {(f"{import_scope}/{a.tensor_info.name}" if import_scope else a.tensor_info.name):
            os.path.join(directory, a.filename) for a in protos}
