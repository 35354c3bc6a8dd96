"""A TF2 checkpoint's object graph, both ways: Python objects -> (TrackableObjectGraph, keyed values), and a
checkpoint's graph matched back onto Python objects to restore their variables.

Writing walks the objects breadth-first from the root (trackable.walk): node ids in order of discovery; a
variable's value is stored under its first path's names joined by "/" (a "." in a name written "..", a "/"
written ".S", as TensorFlow escapes them) plus `/.ATTRIBUTES/VARIABLE_VALUE`. The values go to the data file in
node order and the serialized graph last, as the string tensor `_CHECKPOINTABLE_OBJECT_GRAPH` - the order
TensorFlow writes them in, so the files are byte-identical.

An optimizer's slot variables (Adam's m and v of each variable) are nodes appended after the walk, in
TensorFlow's order (optimizers in node order, slot names sorted, variables in node order); the optimizer's node
lists them as slot_variables, and each is keyed `<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot name>`.

Reading starts with the root on node 0 and follows the edges by name; a name the checkpoint has but the
Python object lacks (yet) becomes a deferred restoration on that object (trackable.py), and so does a slot the
optimizer has not made yet (it is restored when the optimizer's first step makes it).
"""

from __future__ import annotations

import functools
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import errors
from webflow.framework.tensor_shape import TensorShape
from webflow.train import checkpoint_values
from webflow.train.optimizer import Optimizer
from webflow.train.trackable import can_defer, child_named, children, is_variable, walk

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"
# TensorFlow's C++ names of dtypes (DataTypeString), which its restore errors print.
_CPP_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def escape(local_name: str) -> str:
    return local_name.replace(".", "..").replace("/", ".S")


def object_path(path: tuple) -> str:
    return "/".join(escape(name) for name in path)


def checkpoint_key(prefix: str) -> str:
    return prefix + "/.ATTRIBUTES/" + VARIABLE_VALUE


def slot_variables(order: list) -> list:
    """[(optimizer's index, slot name, variable's index, slot variable)] for the objects in `order`."""
    found = []
    for optimizer_index, optimizer in enumerate(order):
        if not isinstance(optimizer, Optimizer):
            continue
        for slot_name in optimizer.get_slot_names():
            for variable_index, variable in enumerate(order):
                slot = optimizer.get_slot(variable, slot_name) if is_variable(variable) else None
                if slot is not None:
                    found.append((optimizer_index, slot_name, variable_index, slot))
    return found


def full_name(variable: Any) -> str:
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


def serialize(root: Any, attached: list | tuple = ()) -> tuple[Any, list]:
    """(the TrackableObjectGraph of everything reachable from `root` (and its `attached` edges),
    [(checkpoint key, NumPy value)])."""
    from webflow.protos import trackable_object_graph_pb2

    order, paths = walk(root, attached)
    node_ids = {id(obj): i for i, obj in enumerate(order)}
    prefixes = [object_path(paths[id(obj)]) for obj in order]
    slots = slot_variables(order)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    for node_id, obj in enumerate(order):
        node = graph.nodes.add()
        for name, child in children(obj) + (list(attached) if node_id == 0 else []):
            node.children.add(node_id=node_ids[id(child)], local_name=name)
    for optimizer_index, slot_name, variable_index, _ in slots:
        graph.nodes[optimizer_index].slot_variables.add(original_variable_node_id=variable_index,
                                                         slot_name=slot_name, slot_variable_node_id=len(prefixes))
        graph.nodes.add()
        prefixes.append(f"{prefixes[variable_index]}/.OPTIMIZER_SLOT/{prefixes[optimizer_index]}/"
                        f"{escape(slot_name)}")
    values = []
    for node_id, obj in enumerate(order + [slot for *_, slot in slots]):
        if is_variable(obj):
            key = checkpoint_key(prefixes[node_id])
            graph.nodes[node_id].attributes.add(name=VARIABLE_VALUE, full_name=full_name(obj), checkpoint_key=key)
            # (no copy: assignments replace a value, never change it; bfloat16: its 16-bit values)
            values.append((key, checkpoint_values.saved(np.asarray(obj), obj.dtype)))
    for node_id, has_values in enumerate(_with_values(graph)):
        graph.nodes[node_id].has_checkpoint_values.value = has_values
    return graph, values


def _with_values(graph: Any) -> list:
    """For each node: whether it (or a node it reaches) holds a value or slot variables (TensorFlow's
    has_checkpoint_values)."""
    parents: dict = {}
    for node_id, node in enumerate(graph.nodes):
        for ref in node.children:
            parents.setdefault(ref.node_id, []).append(node_id)
    marked = [bool(node.attributes or node.slot_variables) for node in graph.nodes]
    pending = [i for i, mark in enumerate(marked) if mark]
    while pending:
        for parent in parents.get(pending.pop(), []):
            if not marked[parent]:
                marked[parent] = True
                pending.append(parent)
    return marked


def graph_damage(graph: Any) -> str | None:
    """What is wrong with a TrackableObjectGraph read from a checkpoint, or None: a damaged file must raise
    DataLossError up front, not an IndexError from a node id past the end in the middle of a restore."""
    count = len(graph.nodes)
    if count == 0:
        return "no nodes"
    for node_id, node in enumerate(graph.nodes):
        for ref in node.children:
            if not 0 <= ref.node_id < count:
                return f"node {node_id} has a child {ref.node_id} of {count} nodes"
        for ref in node.slot_variables:
            ids = (ref.original_variable_node_id, ref.slot_variable_node_id)
            if not all(0 <= i < count for i in ids) or not graph.nodes[ref.slot_variable_node_id].attributes:
                return f"node {node_id} has a slot variable {ids} that is no variable of {count} nodes"
    return None


def node_names(graph: Any) -> dict:
    """{node id: "(root).model.dense"}: the first path to each node, as TensorFlow's error messages name them."""
    names = {0: "(root)"}
    queue = [0]
    while queue:
        node_id = queue.pop(0)
        for ref in graph.nodes[node_id].children:
            if ref.node_id not in names:
                names[ref.node_id] = names[node_id] + "." + ref.local_name
                queue.append(ref.node_id)
    for node_id, node in enumerate(graph.nodes):
        for ref in node.slot_variables:
            names[ref.slot_variable_node_id] = (f"{names.get(node_id)}'s state '{ref.slot_name}' for "
                                                f"{names.get(ref.original_variable_node_id)}")
    return names


def _first_child(owners: list, name: str) -> Any:
    for owner in owners:
        child = child_named(owner, name)
        if child is not None:
            return child
    return None


class Restoration:
    """One restore: which Python object each checkpoint node matched, and what was left over."""

    def __init__(self, reader: Any, graph: Any):
        self.reader = reader
        self.graph = graph
        self.object_by_node: dict = {}
        self.unused_attributes: dict = {}
        self.pending_slots: list = []      # (optimizer, SlotVariableReference) whose variable is not matched yet
        self.deferred_slots: set = set()   # slot nodes waiting for their optimizer to make the slot

    def bind(self, obj: Any, node_id: int, attached_to: Any = None) -> None:
        """Matches `obj` to node `node_id` and its subtree, then loads the matched variables (all checked
        first: a mismatch raises before any variable changes). `attached_to`: the Checkpoint whose own edges
        extend the root's (made with `root=`)."""
        queue = [(obj, node_id, [obj] if attached_to is None else [obj, attached_to])]
        loads = []
        while queue:
            obj, node_id, owners = queue.pop(0)
            if node_id in self.object_by_node:
                continue
            self.object_by_node[node_id] = obj
            node = self.graph.nodes[node_id]
            if node.attributes:
                if is_variable(obj) and node.attributes[0].name == VARIABLE_VALUE:
                    loads.append((obj, node.attributes[0].checkpoint_key))
                else:
                    self.unused_attributes[node_id] = list(node.attributes)
            if isinstance(obj, Optimizer):
                self.pending_slots.extend((obj, ref) for ref in node.slot_variables)
            for ref in node.children:
                child = _first_child(owners, ref.local_name)
                if child is not None:
                    queue.append((child, ref.node_id, [child]))
                elif ref.node_id not in self.object_by_node:
                    for owner in owners:   # whichever gets an attribute of that name first is restored
                        if can_defer(owner):
                            owner._defer_restoration(ref.local_name,
                                                     functools.partial(self.bind, node_id=ref.node_id))
        loads += self._match_slots()
        checked = [(variable, checked_value(self.reader, variable, key)) for variable, key in loads]
        for variable, value in checked:
            variable.assign(value)

    def _match_slots(self) -> list:
        """[(slot, key)] for the pending slots whose variable is now matched and whose slot exists; the others
        of a matched variable are left to the optimizer, restored when it makes them."""
        loads, still_pending = [], []
        for optimizer, ref in self.pending_slots:
            variable = self.object_by_node.get(ref.original_variable_node_id)
            if variable is None:
                still_pending.append((optimizer, ref))
                continue
            slot = optimizer.get_slot(variable, ref.slot_name)
            if slot is None:
                self.deferred_slots.add(ref.slot_variable_node_id)
                optimizer._defer_slot_restoration(variable, ref.slot_name,
                                                  functools.partial(self.bind, node_id=ref.slot_variable_node_id))
            elif ref.slot_variable_node_id not in self.object_by_node:
                self.object_by_node[ref.slot_variable_node_id] = slot
                loads.append((slot, self.graph.nodes[ref.slot_variable_node_id].attributes[0].checkpoint_key))
        self.pending_slots = still_pending
        return loads


def checked_value(reader: Any, variable: Any, key: str) -> Any:
    """The value stored under `key` for `variable`, with TensorFlow's errors for another dtype or shape."""
    if not reader.has_tensor(key):
        raise errors.NotFoundError(None, None, f"Key {key} not found in checkpoint")
    stored = reader.dtype(key)
    wanted = variable.dtype.base_dtype
    if stored != wanted:
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {key}; expected dtype {_CPP_DTYPE_NAMES.get(wanted.name, wanted.name)} "
                        f"does not equal original dtype {_CPP_DTYPE_NAMES.get(stored.name, stored.name)}")
    value = reader.tensor(key)
    if not variable.shape.is_compatible_with(value.shape):
        raise ValueError(f"Received incompatible tensor with shape {TensorShape(value.shape)} when attempting "
                         f"to restore variable with shape {variable.shape} and name {variable.name}.")
    return value
