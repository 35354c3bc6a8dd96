"""TF1's `tf.train.Saver` and the checkpoint helpers, in TensorFlow's V2 format (io/checkpoint_bundle.py).

`Saver.save(sess, "dir/model", global_step=3)` writes, each file under a temporary name renamed into place:

    dir/model-3.data-00000-of-00001   the variables' bytes           (first)
    dir/model-3.index                 their names, dtypes, shapes, offsets, CRCs
    dir/model-3.meta                  the MetaGraphDef (graph and collections)
    dir/checkpoint                    CheckpointState text: the newest prefix and all kept ones (last)

so a crash at any moment leaves `latest_checkpoint(dir)` naming a complete checkpoint. Then it deletes the
files of checkpoints beyond `max_to_keep` (except one every `keep_checkpoint_every_n_hours`).
Names in the checkpoint are the variables' op names (`dense/kernel`), as in TensorFlow, so either library
restores what the other saved.

Like TensorFlow's Saver it builds its save/restore ops in the graph under `save/` (train/saver_graph.py:
SaveV2, RestoreV2, one Assign per variable, `save/restore_all`), names them in `saver_def`, and `save`/`restore`
run them with the prefix fed; `restore` first checks every key, dtype and shape against the checkpoint's index, so
a failed restore changes no variable. Where NumPy is missing (Pyodide, whose bundle values are CArrays) or a
variable is not a reference variable, it fetches and loads the values from Python instead (same files). The `.meta`
(train/meta_graph_export.py: the GraphDef, every collection and the SaverDef) is left out, with a warning, when the
GraphDef writer refuses one of the graph's ops (If, While ...).
`Saver(saver_def=...)` (what `import_meta_graph` returns for a meta graph with a SaverDef) runs the graph's own
ops that the SaverDef names (train/saver_def.py).
"""

from __future__ import annotations

import glob
import os
import time
import warnings
from typing import Any

from webflow.framework import context, dtypes, errors
from webflow.io import checkpoint_bundle, durable_file
from webflow.ops import variables as variables_module
from webflow.train import checkpoint_values, meta_graph_export, saver_checks, saver_graph
from webflow.train import saver_def as saver_def_module


def _op_name(variable: Any) -> str:
    return variable.op.name


def _names_to_variables(var_list: Any) -> dict:
    if isinstance(var_list, dict):
        result = {}
        for name, variable in var_list.items():
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be strings, got {name!r}")
            result[name] = variable
        return result
    variables = list(var_list)
    _check_savable(variables)
    result = {}
    for variable in variables:
        name = _op_name(variable)
        if name in result:
            raise ValueError(f"At least two variables have the same name: {name}")
        result[name] = variable
    return result


# the op types whose output TensorFlow's Saver accepts in a var_list in place of the variable object
_VARIABLE_OP_TYPES = ("Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp")


def _check_savable(variables: list) -> None:
    """TensorFlow's errors for a var_list entry that is no variable: AttributeError for an object without a
    `name` (TensorFlow sorts the list by name first: a forged MetaGraphDef whose `variables` collection holds
    int64s gets here through import_meta_graph), TypeError for a tensor no variable op made."""
    for variable in variables:
        if not hasattr(variable, "name"):
            error = AttributeError(f"'{type(variable).__name__}' object has no attribute 'name'")
            error.add_note(f"tf.train.Saver: the variables to save (by default the graph's `variables` collection, "
                           f"which import_meta_graph fills from the MetaGraphDef's collection_def) include "
                           f"{variable!r} (a {type(variable).__name__} object), not a variable")
            raise error
    for variable in variables:
        if not hasattr(variable, "_is_variable") and getattr(getattr(variable, "op", None), "type", None) \
                not in _VARIABLE_OP_TYPES:
            raise TypeError(f"Variable to save is not a Variable: {variable}")


class Saver:
    """`tf.compat.v1.train.Saver`: saves and restores variables as TensorFlow V2 checkpoints."""

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False, max_to_keep: int = 5,
                 keep_checkpoint_every_n_hours: float = 10000.0, name: str | None = None,
                 restore_sequentially: bool = False, saver_def: Any = None, builder: Any = None,
                 defer_build: bool = False, allow_empty: bool = False, write_version: int = 2,
                 pad_step_number: bool = False, save_relative_paths: bool = False, filename: str | None = None):
        if context.executing_eagerly():
            if var_list is None:
                raise RuntimeError("When eager execution is enabled, `var_list` must specify a list or dict of "
                                   "variables to save")
            raise NotImplementedError("webflow's Saver runs in graph mode only (its variables are RefVariables "
                                      "that a Session holds)")
        if builder is not None:
            raise NotImplementedError("webflow's Saver takes no builder=")
        self.saver_def = None
        if saver_def is not None:   # a graph's own save/restore ops (train/saver_def.py): run, not built
            self.saver_def = saver_def_module.checked_saver_def(saver_def, name)
            max_to_keep = self.saver_def.max_to_keep
            keep_checkpoint_every_n_hours = self.saver_def.keep_checkpoint_every_n_hours
            var_list, allow_empty = [], True
        elif write_version != 2:
            raise NotImplementedError("webflow writes only the V2 checkpoint format (write_version=2)")
        if defer_build and saver_def is not None:
            raise ValueError("defer_build and saver_def cannot be both True.")
        self._var_list_argument, self._allow_empty = var_list, allow_empty
        self._var_list: dict = {}
        self._name, self._sharded = name, sharded
        self._graph = context.get_default_graph()
        self._max_to_keep = max_to_keep
        self._keep_every = keep_checkpoint_every_n_hours
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._last_checkpoints: list[tuple[str, float]] = []
        self._to_delete: list[tuple[str, float]] = []
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._reshape = reshape
        self._is_built = False
        if self.saver_def is not None:
            self._is_built = True
        elif not defer_build:
            self.build()

    def as_saver_def(self) -> Any:
        """The SaverDef this Saver runs (None for webflow's own Saver, which builds no save/restore ops)."""
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> Any:
        return self.saver_def

    def build(self) -> None:
        """Adds TensorFlow's save/restore ops for the variables (train/saver_graph.py), once; with
        `defer_build=True` the default var_list is the variables that exist when this is called."""
        if self._is_built:
            return
        var_list = self._var_list_argument
        if var_list is None:
            var_list = variables_module.global_variables()
        self._var_list = _names_to_variables(var_list)
        if not self._var_list and not self._allow_empty:
            raise ValueError("No variables to save")
        self._is_built = True
        if self._var_list and all(saver_graph.ref_tensor(v) is not None for v in self._var_list.values()):
            with self._graph.as_default():
                self.saver_def = saver_graph.build(self._var_list, self._name, self._sharded, self._reshape,
                                                   self._filename, self._max_to_keep, self._keep_every)

    def _check_built(self, doing: str) -> None:
        if not self._is_built:
            raise RuntimeError(f"`build()` should be called before {doing} if defer_build==True")

    def _runs_graph_ops(self) -> bool:
        """Whether save/restore run the graph's ops: they need NumPy (Pyodide without it saves from Python)."""
        return self.saver_def is not None and (checkpoint_values.HAVE_NUMPY or not self._var_list)

    # --- bookkeeping of kept checkpoints ---

    @property
    def last_checkpoints(self) -> list[str]:
        """The prefixes of the checkpoints not yet deleted, oldest first."""
        return [path for path, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list) -> None:
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: list) -> None:
        """Takes over checkpoints a previous Saver wrote (their files' times as save times)."""
        stamps = []
        for path in checkpoint_paths:
            try:
                stamps.append((path, os.path.getmtime(checkpoint_bundle.index_filename(path))))
            except OSError:
                continue
        self._last_checkpoints = stamps

    def _record(self, prefix: str) -> None:
        """TF's _RecordLastCheckpoint: the new prefix last; the oldest beyond max_to_keep queued for deletion."""
        if not self._max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        if len(self._last_checkpoints) > self._max_to_keep:
            self._to_delete.append(self._last_checkpoints.pop(0))

    def _delete_old(self) -> None:
        """Deletes the queued checkpoints' files, except one every keep_checkpoint_every_n_hours."""
        while self._to_delete:
            prefix, stamp = self._to_delete.pop(0)
            if self._keep_every and stamp > self._next_checkpoint_time:
                self._next_checkpoint_time += self._keep_every * 3600
                continue
            _delete_checkpoint_files(prefix)

    # --- saving ---

    def save(self, sess: Any, save_path: str, global_step: Any = None, latest_filename: str | None = None,
             meta_graph_suffix: str = "meta", write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str:
        """Writes the variables' values from `sess`; returns the checkpoint's prefix (`save_path-<step>`)."""
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        self._check_built("save")
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, int):
                global_step = int(sess.run(global_step))
            prefix = f"{save_path}-{global_step:08d}" if self._pad_step_number else f"{save_path}-{global_step}"
        else:
            prefix = save_path
        save_dir = os.path.dirname(save_path)
        if save_dir and not os.path.isdir(save_dir):
            raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
        if self._runs_graph_ops():
            prefix = saver_def_module.run_save(sess, self.saver_def, prefix)
        else:
            names = sorted(self._var_list)
            values = sess.run([self._var_list[name] for name in names]) if names else []
            checkpoint_bundle.write_bundle(prefix, [(name, checkpoint_values.saved(value, self._var_list[name].dtype))
                                                    for name, value in zip(names, values)])
        if write_meta_graph:
            self.export_meta_graph(_meta_graph_filename(prefix, meta_graph_suffix))
        if write_state:
            self._record(prefix)
            update_checkpoint_state(save_dir, prefix, self.last_checkpoints, latest_filename,
                                    self._save_relative_paths)
            self._delete_old()
        return prefix

    def export_meta_graph(self, filename: str | None = None, collection_list: Any = None, as_text: bool = False,
                          export_scope: Any = None, clear_devices: bool = False, clear_extraneous_savers: bool = False,
                          strip_default_attrs: bool = False, save_debug_info: bool = False) -> Any:
        """The MetaGraphDef of this Saver's graph: GraphDef, every collection (train/meta_graph_export.py) and the
        SaverDef when this Saver runs the graph's own save/restore ops; None, with a warning, when the graph cannot
        be written as a GraphDef (webflow's own WhileGrad, a TF1 variable assigned inside a tf.cond ...)."""
        try:
            return meta_graph_export.export_meta_graph(filename, saver_def=self.saver_def, as_text=as_text,
                                                       collection_list=collection_list, graph=self._graph,
                                                       export_scope=export_scope, clear_devices=clear_devices)
        except ValueError as error:
            warnings.warn(f"Saver: no .meta file written: the graph cannot be exported as a GraphDef ({error})",
                          stacklevel=3)
            return None

    # --- restoring ---

    def restore(self, sess: Any, save_path: str | None) -> None:
        """Loads every variable of this Saver from the checkpoint with prefix `save_path`."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_exists(save_path):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        self._check_built("restore")
        if self.saver_def is not None and not self._var_list:   # a graph's own SaverDef: its ops decide
            saver_def_module.run_restore(sess, self.saver_def, save_path)
            return
        reader = checkpoint_bundle.BundleReader(save_path)
        for name in sorted(self._var_list):   # all checked first: a failed restore changes no variable
            saver_checks.check_restorable(reader, name, self._var_list[name], self._reshape)
        if self._runs_graph_ops():
            saver_def_module.run_restore(sess, self.saver_def, save_path)
            return
        for name in sorted(self._var_list):
            variable = self._var_list[name]
            value = checkpoint_values.restored(reader, name)   # a CArray where NumPy is missing (Pyodide)
            if self._reshape and variable.shape.is_fully_defined():
                value = value.reshape(variable.shape.as_list())
            variable.load(value, sess)


def _meta_graph_filename(prefix: str, suffix: str = "meta") -> str:
    import re

    return re.sub(r"-[\d\?]+-of-\d+$", "", prefix) + "." + suffix


def _write_atomically(path: str, payload: bytes) -> None:
    durable_file.write_atomically(path, payload)   # temp file, fdatasync, rename, directory synced


def _delete_checkpoint_files(prefix: str) -> None:
    paths = [checkpoint_bundle.index_filename(prefix), _meta_graph_filename(prefix)]
    paths += glob.glob(glob.escape(prefix) + ".data-?????-of-?????")
    for path in paths:
        try:
            os.remove(path)
        except OSError:
            pass


# --- the checkpoint state file and the helpers ------------------------------------------------------------

def update_checkpoint_state(save_dir: str, model_checkpoint_path: str, all_model_checkpoint_paths: Any = None,
                            latest_filename: str | None = None, save_relative_paths: bool = False,
                            all_model_checkpoint_timestamps: Any = None,
                            last_preserved_timestamp: float | None = None) -> None:
    """Writes `save_dir/checkpoint` (CheckpointState as text), through a temporary file and a rename.
    The timestamps are CheckpointManager's (seconds since the epoch, one per path)."""
    from google.protobuf import text_format

    from webflow.protos import checkpoint_state_pb2

    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths = [p for p in paths if p != model_checkpoint_path] + [model_checkpoint_path]
    if save_relative_paths or not os.path.isabs(save_dir):
        # TensorFlow's rule: save_relative_paths turns absolute paths relative to save_dir; a relative save_dir
        # makes relative paths relative to it (so "dir/model-1" is stored as "model-1", read back as dir/...)
        def relative(path: str) -> str:
            if os.path.isabs(path):
                return os.path.relpath(path, save_dir) if save_relative_paths else path
            return os.path.relpath(path, save_dir or ".")

        model_checkpoint_path = relative(model_checkpoint_path)
        paths = [relative(p) for p in paths]
    state = checkpoint_state_pb2.CheckpointState(model_checkpoint_path=model_checkpoint_path,
                                                 all_model_checkpoint_paths=paths,
                                                 all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
                                                 last_preserved_timestamp=last_preserved_timestamp)
    target = os.path.join(save_dir, latest_filename or "checkpoint")
    _write_atomically(target, text_format.MessageToString(state).encode("utf-8"))


def get_checkpoint_state(checkpoint_dir: str, latest_filename: str | None = None) -> Any:
    """The CheckpointState in `checkpoint_dir/checkpoint`, relative paths made relative to the directory; None
    when there is no such file."""
    from google.protobuf import text_format

    from webflow.protos import checkpoint_state_pb2

    path = os.path.join(os.fspath(checkpoint_dir), latest_filename or "checkpoint")
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return None
    state = checkpoint_state_pb2.CheckpointState()
    try:
        text_format.Merge(text, state)
    except text_format.ParseError as error:
        raise errors.DataLossError(None, None, f"corrupt checkpoint state file {path}: {error}") from None
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a V2 checkpoint with this prefix exists (its .index file)."""
    return os.path.isfile(checkpoint_bundle.index_filename(os.fspath(checkpoint_prefix)))


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The newest checkpoint's prefix named by `checkpoint_dir/checkpoint`, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _prefix_of(ckpt_dir_or_file: str) -> str:
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        prefix = latest_checkpoint(ckpt_dir_or_file)
        if prefix is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory "
                             f"{ckpt_dir_or_file}")
        return prefix
    return ckpt_dir_or_file


class CheckpointReader:
    """`tf.train.load_checkpoint` / TF1's `NewCheckpointReader`: a checkpoint's tensors by name."""

    def __init__(self, prefix: str):
        prefix = _prefix_of(prefix)
        if not checkpoint_exists(prefix):
            raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find "
                                                   f"any matching files for {prefix}")
        self._bundle = checkpoint_bundle.BundleReader(prefix)

    def has_tensor(self, name: str) -> bool:
        return self._bundle.has_tensor(name)

    def get_tensor(self, name: str) -> Any:
        value = checkpoint_values.restored(self._bundle, name)   # a CArray where NumPy is missing (Pyodide)
        if value.dtype in (object, dtypes.string) and not value.shape:  # a scalar string: bytes
            return value[()] if value.dtype == object else value.item()
        return value

    def get_variable_to_shape_map(self) -> dict:
        return {name: self._bundle.shape(name) for name in self._bundle.entries}

    def get_variable_to_dtype_map(self) -> dict:
        return {name: self._bundle.dtype(name) for name in self._bundle.entries}

    def debug_string(self) -> bytes:
        return "".join(f"{name} ({self._bundle.dtype(name).name}) {self._bundle.shape(name)}\n"
                       for name in sorted(self._bundle.entries)).encode("utf-8")


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    return CheckpointReader(ckpt_dir_or_file)


NewCheckpointReader = CheckpointReader


def list_variables(ckpt_dir_or_file: str) -> list:
    """[(name, shape)] of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> Any:
    """The value stored under `name` (a trailing ":0" is dropped, as TensorFlow does)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
