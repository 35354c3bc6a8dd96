"""TF2's `tf.train.Checkpoint`: saves and restores the variables reachable from its attributes, by name path.

    ckpt = tf.train.Checkpoint(model=model, step=step)
    path = ckpt.save("dir/ckpt")        # "dir/ckpt-1": save_counter += 1, write, then the `checkpoint` file
    ckpt.restore(path).assert_consumed()

The files are TensorFlow's V2 bundle (io/checkpoint_bundle.py) holding each variable under its object path
(`model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE`, `save_counter/.ATTRIBUTES/VARIABLE_VALUE`) and the object graph
(object_graph.py), so real TensorFlow restores a webflow checkpoint into the same structure and the other way
round. Eager mode only (the variables are ResourceVariables).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import context, dtypes, errors
from webflow.io import checkpoint_bundle
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.train import name_based, object_graph
from webflow.train.saver import update_checkpoint_state
from webflow.train.trackable import AutoTrackable, child_named, is_trackable, is_variable, walk

SAVE_COUNTER = "save_counter"


def _check_trackable(value: Any, name: str) -> None:
    if not is_trackable(value):
        raise ValueError(f"`Checkpoint` was expecting {name} to be a trackable object (an object derived from "
                         f"`Trackable`), got {value}. If you believe this object should be trackable (i.e. it is "
                         "part of the TensorFlow Python API and manages state), please open an issue.")


def _check_eager(what: str) -> None:
    if not context.executing_eagerly():
        raise NotImplementedError(f"webflow's tf.train.Checkpoint.{what} runs eagerly only (TF1 graphs: "
                                  "tf.compat.v1.train.Saver)")


class Checkpoint(AutoTrackable):
    """`tf.train.Checkpoint(root=None, **kwargs)`: each keyword a variable, a tf.Module, a Checkpoint or a
    list/dict of them. With `root` (a tf.Module or Checkpoint) the checkpoint's graph starts at `root`: its own
    attributes first, then the keywords, `root` itself and the save counter attached to it (TensorFlow's layout)."""

    def __init__(self, root: Any = None, **kwargs: Any):
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_graph_root", self)
        if root is not None:
            _check_trackable(root, "root")
            if not isinstance(root, AutoTrackable):
                raise NotImplementedError("webflow's Checkpoint takes a tf.Module or a Checkpoint as root")
            object.__setattr__(self, "_graph_root", root)
            object.__setattr__(self, "_save_counter", child_named(root, SAVE_COUNTER))
            kwargs["root"] = root
        for name, value in sorted(kwargs.items()):
            if name == SAVE_COUNTER:
                raise AttributeError("property 'save_counter' of 'Checkpoint' object has no setter")
            _check_trackable(value, name)
            existing = child_named(root, name) if root is not None else None
            if existing is None:
                setattr(self, name, value)
            elif existing is value:
                object.__setattr__(self, name, value)   # already an edge of root: not attached twice
            else:
                raise ValueError(f"Cannot create a Checkpoint with keyword argument {name} if root.{name} "
                                 "already exists.")

    def _graph(self) -> tuple[Any, list]:
        """(the object at node 0, the edges attached to it): (self, []) unless made with `root=`."""
        if self._graph_root is self:
            return self, []
        return self._graph_root, self._dependencies()

    # --- the save counter: created on the first save or restore, then tracked like any variable ---

    @property
    def save_counter(self) -> Any:
        """An int64 variable counting `save` calls (restored with the rest); makes the `-N` of `save`'s prefix."""
        self._maybe_create_save_counter()
        return self._save_counter

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            counter = ResourceVariable(np.int64(0), dtype=dtypes.int64, trainable=False, name=SAVE_COUNTER)
            object.__setattr__(self, "_save_counter", counter)
            self._track(SAVE_COUNTER, counter)   # runs a restoration waiting for it (restore before save)

    # --- writing ---

    def write(self, file_prefix: Any, options: Any = None) -> str:
        """Writes `file_prefix.index` / `.data-00000-of-00001` (no counter, no `checkpoint` file); returns it."""
        return self._write(os.fspath(file_prefix))

    def _write(self, file_prefix: str, write_done_callback: Callable[[str], None] | None = None) -> str:
        _check_eager("write")
        graph, values = object_graph.serialize(*self._graph())
        values.append((object_graph.OBJECT_GRAPH_KEY, np.array(graph.SerializeToString(), dtype=object)))
        checkpoint_bundle.write_bundle(file_prefix, values)
        if write_done_callback is not None:
            write_done_callback(file_prefix)
        return file_prefix

    def save(self, file_prefix: Any, options: Any = None) -> str:
        """save_counter += 1, writes `file_prefix-<save_counter>`, then names it in the directory's `checkpoint`
        file (that one checkpoint only, paths relative to the directory, as TensorFlow's Checkpoint.save)."""
        _check_eager("save")
        file_prefix = os.fspath(file_prefix)
        number = int(self.save_counter.assign_add(1).numpy())
        path = self._write(f"{file_prefix}-{number}")
        update_checkpoint_state(os.path.dirname(file_prefix), path, [path], save_relative_paths=True)
        return path

    # --- reading ---

    def read(self, save_path: Any, options: Any = None) -> Any:
        """Restores the variables the checkpoint at `save_path` has; a status to check what matched."""
        if save_path is None:
            return InitializationOnlyStatus()
        _check_eager("read")
        save_path = os.fspath(save_path)
        if not os.path.isfile(checkpoint_bundle.index_filename(save_path)):
            raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                                   f"matching files for {save_path}")
        from webflow.protos import trackable_object_graph_pb2

        reader = checkpoint_bundle.BundleReader(save_path)
        if not reader.has_tensor(object_graph.OBJECT_GRAPH_KEY):   # a TF1 Saver's checkpoint: match by name
            restoration = name_based.NameBasedRestoration(reader)
            restoration.restore(*self._graph())
            return name_based.NameBasedSaverStatus(restoration, self)
        graph = trackable_object_graph_pb2.TrackableObjectGraph()
        try:
            graph.ParseFromString(reader.tensor(object_graph.OBJECT_GRAPH_KEY)[()])
        except Exception as error:  # protobuf's DecodeError
            raise errors.DataLossError(None, None, f"corrupt {object_graph.OBJECT_GRAPH_KEY} in {save_path}: "
                                                   f"{error}") from None
        damage = object_graph.graph_damage(graph)
        if damage:
            raise errors.DataLossError(None, None, f"corrupt {object_graph.OBJECT_GRAPH_KEY} in {save_path}: {damage}")
        restoration = object_graph.Restoration(reader, graph)
        root, attached = self._graph()
        restoration.bind(root, 0, attached_to=self if attached else None)
        return CheckpointLoadStatus(restoration, self)

    def restore(self, save_path: Any, options: Any = None) -> Any:
        """`read`, then the save counter made (and restored) if it was not yet."""
        if save_path is None:
            return InitializationOnlyStatus()
        try:
            status = self.read(save_path)
        except errors.NotFoundError as error:
            raise errors.NotFoundError(
                None, None, f"Error when restoring from checkpoint or SavedModel at {os.fspath(save_path)}: "
                            f"{error.message}\nPlease double-check that the path is correct. You may be missing "
                            "the checkpoint suffix (e.g. the '-1' in 'path/to/ckpt-1').") from None
        self._maybe_create_save_counter()
        return status


class CheckpointLoadStatus:
    """What a restore matched: TensorFlow's assertions, run when the program asks."""

    def __init__(self, restoration: Any, checkpoint: Any):
        self._restoration = restoration
        self._checkpoint = checkpoint

    def _python_objects(self) -> list:
        order = walk(*self._checkpoint._graph())[0]
        return order + [slot for *_, slot in object_graph.slot_variables(order)]

    def _python_variables(self) -> list:
        return [obj for obj in self._python_objects() if is_variable(obj)]

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable reachable now was given a value from the checkpoint."""
        matched = {id(obj) for obj in self._restoration.object_by_node.values()}
        unused = [variable for variable in self._python_variables() if id(variable) not in matched]
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(f"Found {len(unused)} Python objects that were not bound to checkpointed values, "
                                 "likely due to changes in the Python program. Showing "
                                 f"{shown} of {len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_consumed(self) -> CheckpointLoadStatus:
        """As above, and every value in the checkpoint found its object."""
        self.assert_existing_objects_matched()
        graph = self._restoration.graph
        names = object_graph.node_names(graph)
        for node_id, node in enumerate(graph.nodes):
            waiting = node_id in self._restoration.deferred_slots   # TensorFlow does not count those
            if node.attributes and node_id not in self._restoration.object_by_node and not waiting:
                raise AssertionError(f"Unresolved object in checkpoint {names[node_id]}: {node}")
        if self._restoration.unused_attributes:
            lines = [f"{names[node_id]} ({self._restoration.object_by_node[node_id]}): {attributes}"
                     for node_id, attributes in self._restoration.unused_attributes.items()]
            raise AssertionError("Unused attributes in these objects (the attributes exist in the checkpoint but "
                                 "were not restored):\n" + "\n".join(lines))
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Something besides the root matched."""
        if len(self._restoration.object_by_node) <= 1:
            matched = {id(obj) for obj in self._restoration.object_by_node.values()}
            unused = [obj for obj in self._python_objects() if id(obj) not in matched]
            if unused:
                raise AssertionError("Nothing except the root object matched a checkpointed value. Typically this "
                                     "means that the checkpoint does not match the Python program. The following "
                                     f"objects have no matching checkpointed value: {unused}")
            raise AssertionError(f"Nothing to load. No dependencies have been added to {self._checkpoint._graph()[0]} "
                                 "yet.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences the warnings about unmatched values (webflow prints none)."""
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""


class InitializationOnlyStatus:
    """`restore(None)`: nothing restored; the assertions say so."""

    _MESSAGE = "No checkpoint specified (save_path=None); nothing is being restored."

    def assert_consumed(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def assert_existing_objects_matched(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def assert_nontrivial_match(self) -> Any:
        raise AssertionError(self._MESSAGE)

    def expect_partial(self) -> InitializationOnlyStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: eager variables are initialized when made."""
