"""The save/restore ops TF1's `tf.train.Saver` puts in the graph, node for node as TensorFlow's
BaseSaverBuilder builds them (V2 format), and the SaverDef naming them.

Under a fresh name scope (`save`, then `save_1` ...):

    save/filename/input  Const "model"            save/filename  PlaceholderWithDefault
    save/Const           PlaceholderWithDefault   (the prefix, fed by `save`/`restore`: filename_tensor_name)
    save/SaveV2 (+ /tensor_names, /shape_and_slices Consts) over every variable, sorted by checkpoint name
    save/control_dependency  Identity(save/Const) after SaveV2        (save_tensor_name)
    save/RestoreV2 (+ its Consts) -> save/Assign, save/Assign_1 ...   (one per variable)
    save/restore_all     NoOp after every Assign                      (restore_op_name)

`sharded=True` saves into a temporary prefix (`<prefix>_temp/part-00000-of-00001`, through StaticRegexFullMatch,
Select, StringJoin, ShardedFilename) and merges it into `<prefix>` (MergeV2Checkpoints); `save/Identity` is then
the save tensor and the Assigns are grouped as `save/restore_shard` first. The kernels are io/checkpoint_ops.py's.

TensorFlow builds each Assign under `colocate_with(variable)` and the save tensor's Identity under
`colocate_with(prefix)`, so their NodeDefs carry the colocation attr `_class: ["loc:@<that op>"]`; so do these.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import context, dtypes
from webflow.io import checkpoint_ops
from webflow.ops import array_ops, concat_ops, constants, control_flow_ops, logic_ops, state_ops, string_ops

# the variable ops whose output a SaveV2 reads and an Assign writes (TF1 reference variables)
_REF_VARIABLE_OPS = ("VariableV2", "Variable")


def ref_tensor(variable: Any) -> Any:
    """The variable's reference tensor (`v:0`), as TensorFlow's ReferenceVariableSaveable hands it to SaveV2;
    None for what this builder cannot save (resource or partitioned variables)."""
    tensor = variable._ref() if hasattr(variable, "_ref") else variable
    op = getattr(tensor, "op", None)
    return tensor if op is not None and op.type in _REF_VARIABLE_OPS else None


def build(names_to_variables: dict, name: str | None = None, sharded: bool = False, reshape: bool = False,
          filename: str | None = None, max_to_keep: int = 5, keep_checkpoint_every_n_hours: float = 10000.0) -> Any:
    """Adds the Saver's ops to the default graph; returns the SaverDef (webflow/protos/saver.proto) naming them."""
    from webflow.protos import saver_pb2

    names = sorted(names_to_variables)   # TensorFlow sorts the saveables by their checkpoint names
    refs = [ref_tensor(names_to_variables[n]) for n in names]
    graph = context.get_default_graph()
    with graph.name_scope(name or "save"):
        prefix = constants.placeholder_with_default(filename or "model", shape=[], name="filename")
        prefix = constants.placeholder_with_default(prefix, shape=[], name="Const")
        if sharded:
            save_tensor = _sharded_save(graph, prefix, names, refs)
            shard = _restore(graph, prefix, names, refs, reshape, name="restore_shard")
            restore_op = control_flow_ops.group(shard, name="restore_all")
        else:
            save_tensor = _save(prefix, names, refs)
            restore_op = _restore(graph, prefix, names, refs, reshape, name="restore_all")
    return saver_pb2.SaverDef(filename_tensor_name=prefix.name, save_tensor_name=save_tensor.name,
                              restore_op_name=restore_op.name, max_to_keep=max_to_keep, sharded=sharded,
                              keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                              version=saver_pb2.SaverDef.V2)


def colocation_groups(op: Any) -> list:
    """TensorFlow's `op.colocation_groups()`: its own `_class` attr, else `[b"loc:@<op name>"]`."""
    return list(op._attrs.get("_class") or [b"loc:@" + op.name.encode()])


def _colocate(tensor_or_op: Any, target: Any) -> Any:
    """Marks the op of `tensor_or_op` as built under TensorFlow's `colocate_with(target)` (the `_class` attr)."""
    op = getattr(tensor_or_op, "op", tensor_or_op)
    op._attrs["_class"] = colocation_groups(getattr(target, "op", target))
    return tensor_or_op


def _save(prefix: Any, names: list, refs: list) -> Any:
    """SaveV2 of every variable, then the prefix once it ran (TF's _AddSaveOps)."""
    save = checkpoint_ops.save_v2(prefix, names, [""] * len(names), refs)
    return _colocate(control_flow_ops.with_dependencies([save], prefix), prefix)


def _sharded_save(graph: Any, prefix: Any, names: list, refs: list) -> Any:
    """TF's _AddShardedSaveOpsForV2 with one shard (one device): save into `<prefix>_temp/part-00000-of-00001`
    (`<prefix>.part-...` on s3://), then merge that into `<prefix>`."""
    with graph.device("/device:CPU:*"):
        on_s3 = string_ops.regex_full_match(prefix, "^s3://.*")
        suffix = logic_ops.select(on_s3, constants.constant(".part"), constants.constant("_temp/part"))
        temporary = string_ops.string_join([prefix, suffix])
    num_shards = constants.constant(1, name="num_shards")
    with graph.device("/device:CPU:0"):
        shard_prefix = checkpoint_ops.sharded_filename(temporary, 0, num_shards)
        saved = _save(shard_prefix, names, refs)
    with graph.control_dependencies([saved.op]), graph.device("/device:CPU:0"):
        prefixes = concat_ops.stack([shard_prefix], name="MergeV2Checkpoints/checkpoint_prefixes")
        merge = checkpoint_ops.merge_v2_checkpoints(prefixes, prefix, delete_old_dirs=True)
        with graph.control_dependencies([merge]):
            return array_ops.identity(prefix)


def _restore(graph: Any, prefix: Any, names: list, refs: list, reshape: bool, name: str) -> Any:
    """RestoreV2 of every variable (on the CPU), one Assign each, grouped as `name` (TF's _AddRestoreOps)."""
    with graph.device("/device:CPU:0"):
        restored = checkpoint_ops.restore_v2(prefix, names, [""] * len(names),
                                             [ref.dtype.base_dtype for ref in refs])
    assigns = []
    for ref, value in zip(refs, restored):
        shape = ref.shape
        if reshape:   # the restored tensor reshaped to the variable's shape; then no shape check
            # (an int32 vector, as TF converts the TensorShape: a scalar's [] makes one Const, not two)
            target = (backend_values.vector(shape.as_list(), dtypes.int32) if shape.is_fully_defined()
                      else array_ops.shape(ref))
            value = array_ops.reshape(value, target)
        validate = not reshape and shape.is_fully_defined()
        assigns.append(_colocate(state_ops.assign(ref, value, validate_shape=validate, use_locking=True), ref))
    return control_flow_ops.group(*assigns, name=name)
