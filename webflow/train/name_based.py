"""A TF1 checkpoint (no object graph: tf.compat.v1.train.Saver's) read by a TF2 `tf.train.Checkpoint`.

TensorFlow then matches by global name, not by path: each variable reachable from the checkpoint's objects gets
the value stored under its name without ":0" (a variable made with `name="dense/kernel"` reads `dense/kernel`).
The save counter may be missing; any other variable left without a value makes the status's assertions fail.
Variables made after the restore are not restored (TensorFlow restores those too, when they are tracked).
"""

from __future__ import annotations

from typing import Any

from webflow.train import object_graph
from webflow.train.trackable import is_variable, walk


class NameBasedRestoration:
    """Restores the variables of a Checkpoint's objects by name; remembers which ones got a value."""

    def __init__(self, reader: Any):
        self.reader = reader
        self.restored: set = set()

    def restore(self, root: Any, attached: list) -> None:
        variables = [obj for obj in walk(root, attached)[0] if is_variable(obj)]
        loads = [(v, object_graph.full_name(v)) for v in variables if self.reader.has_tensor(object_graph.full_name(v))]
        checked = [(v, self._value_for(v, name)) for v, name in loads]   # all checked before any is assigned
        for variable, value in checked:
            variable.assign(value)
            self.restored.add(id(variable))

    def _value_for(self, variable: Any, name: str) -> Any:
        try:
            return object_graph.checked_value(self.reader, variable, name)
        except ValueError as error:   # TensorFlow names the variable by its checkpoint name here
            raise ValueError(str(error).replace(f"and name {variable.name}.", f"and name {name}.")) from None


class NameBasedSaverStatus:
    """The status of a name-based restore: every variable but the save counter must have found its value."""

    def __init__(self, restoration: NameBasedRestoration, checkpoint: Any):
        self._restoration = restoration
        self._checkpoint = checkpoint

    def _check(self) -> NameBasedSaverStatus:
        optional = {id(self._checkpoint._save_counter)}
        unrestored = [obj for obj in walk(*self._checkpoint._graph())[0]
                      if is_variable(obj) and id(obj) not in self._restoration.restored and id(obj) not in optional]
        if unrestored:
            raise AssertionError("Some objects had attributes which were not restored: "
                                 + "".join(f"\n    {obj}: {[object_graph.full_name(obj)]}" for obj in unrestored))
        return self

    def assert_consumed(self) -> NameBasedSaverStatus:
        return self._check()

    def assert_existing_objects_matched(self) -> NameBasedSaverStatus:
        return self._check()

    def assert_nontrivial_match(self) -> NameBasedSaverStatus:
        return self._check()

    def expect_partial(self) -> NameBasedSaverStatus:
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""

    def initialize_or_restore(self, session: Any = None) -> None:
        """Nothing to run: values are assigned eagerly."""
