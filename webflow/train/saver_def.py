"""A Saver over save/restore ops a graph already holds, as its SaverDef names them: what `import_meta_graph`
returns for a MetaGraphDef written by TensorFlow (and TF1 SavedModels loaded by webflow).

TensorFlow's Saver builds, under `save/`, a string placeholder for the checkpoint prefix (`filename_tensor_name`,
`save/Const:0`), a `SaveV2` whose result is `save_tensor_name` (`save/control_dependency:0`, or
`save/Identity:0` for a sharded Saver, which also merges the shards) and a `restore_all` NoOp over one
`Assign(variable, RestoreV2:i)` per variable (`restore_op_name`). Saving and restoring are then one
`sess.run` each, with the prefix fed: the ops are io/checkpoint_ops.py's, their bytes io/checkpoint_bundle.py's.
"""

from __future__ import annotations

from typing import Any


def checked_saver_def(saver_def: Any, scope: str | None = None) -> Any:
    """webflow's SaverDef message for `saver_def` (webflow's, TensorFlow's, or bytes), each name under `scope/`
    when given (TensorFlow's Saver(saver_def=, name=scope) after an import under a scope)."""
    from webflow.protos import saver_pb2

    data = saver_def if isinstance(saver_def, bytes) else saver_def.SerializeToString()
    result = saver_pb2.SaverDef.FromString(data)
    for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
        if not getattr(result, field):
            raise ValueError(f"saver_def must specify the {field}: {result}")
        if scope:
            setattr(result, field, f"{scope.rstrip('/')}/{getattr(result, field)}")
    if result.version not in (saver_pb2.SaverDef.V2,):
        raise NotImplementedError("webflow reads and writes V2 checkpoints only (SaverDef.version V2)")
    return result


def run_save(sess: Any, saver_def: Any, prefix: str) -> str:
    """Runs the graph's save op for checkpoint `prefix`; returns the prefix it reports."""
    saved = sess.run(saver_def.save_tensor_name, {saver_def.filename_tensor_name: prefix})
    return saved.decode("utf-8") if isinstance(saved, bytes) else str(saved)


def run_restore(sess: Any, saver_def: Any, prefix: str) -> None:
    """Runs the graph's restore op over checkpoint `prefix`; a missing key or a wrong shape or dtype is re-raised
    with TensorFlow's explanation in front."""
    from webflow.framework import errors

    try:
        sess.run(saver_def.restore_op_name, {saver_def.filename_tensor_name: prefix})
    except errors.NotFoundError as error:
        raise _explained(error, "a Variable name or other graph key that is missing") from None
    except errors.InvalidArgumentError as error:
        raise _explained(error, "a mismatch between the current graph and the graph") from None


def _explained(error: Any, cause: str) -> Any:
    message = (f"Restoring from checkpoint failed. This is most likely due to {cause} from the checkpoint. Please "
               "ensure that you have not altered the graph expected based on the checkpoint. Original error:\n\n"
               f"{error.message}")
    return type(error)(error.node_def, error.op, message)
