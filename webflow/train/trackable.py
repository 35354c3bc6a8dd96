"""What a TF2 checkpoint saves: a graph of Python objects, each edge named, found by walking attributes.

TensorFlow's `AutoTrackable` (the base of `tf.Module` and `tf.train.Checkpoint`) records an edge each time an
attribute is given a trackable value, in the order of assignment: a variable (a leaf holding one value), another
AutoTrackable, or a container holding some. Re-assigning a name keeps the edge's place; deleting it drops the
edge. Containers are nodes too, as TensorFlow wraps them (ListWrapper, _DictWrapper, _TupleWrapper): a list or a
dict always (even of plain numbers: an empty node), a tuple only when it holds a trackable or a list/dict; their
edges are the positions ("0", "1") or the keys. webflow does not wrap them: a container's edges are read from it
when the checkpoint is written, so `self.layers.append(v)` counts as in TensorFlow.

A TF1 optimizer (train/optimizer.py) is a node too: its edges are its non-slot variables (Adam's beta1_power,
beta2_power); its slot variables hang off the graph separately (object_graph.py).

A restore that finds a name in the checkpoint with no object yet under it leaves a deferred restoration on the
parent: when the attribute is later assigned (or the optimizer makes that variable), the new object is restored
at once (how a lazily built layer, the save counter or an optimizer's state gets its value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.ops.state_ops import VariableTypes
from webflow.train.optimizer import Optimizer

# Attribute names TensorFlow's tf.Module skips when it walks attributes for `variables` (its bookkeeping).
DEPENDENCIES = "_self_unconditional_checkpoint_dependencies"
DEFERRED = "_self_unconditional_deferred_dependencies"
IGNORED_PROPERTIES = frozenset((DEPENDENCIES, DEFERRED))


def is_variable(value: Any) -> bool:
    return isinstance(value, VariableTypes)


def lists_own_edges(value: Any) -> bool:
    """Whether `value` names its edges itself, with `_checkpoint_children()` (a Keras model: tf_keras's
    `layer_with_weights-0` ...; a Keras optimizer: `_variables`, `_iterations` ...)."""
    return hasattr(value, "_checkpoint_children") and not isinstance(value, type)


def is_trackable(value: Any) -> bool:
    """Whether assigning `value` to an attribute of an AutoTrackable makes an edge (TF's wrap_or_unwrap rule)."""
    if is_variable(value) or isinstance(value, (AutoTrackable, Optimizer, list, dict)):
        return True
    if lists_own_edges(value):
        return True
    return type(value) is tuple and any(is_trackable(item) for item in value)


class AutoTrackable:
    """An object whose trackable attributes are the named edges of the checkpoint's object graph."""

    def _dependencies(self) -> list:
        """[(name, value)] in order of first assignment (TensorFlow's _unconditional_checkpoint_dependencies)."""
        if DEPENDENCIES not in self.__dict__:
            object.__setattr__(self, DEPENDENCIES, [])
            object.__setattr__(self, DEFERRED, {})
        return self.__dict__[DEPENDENCIES]

    def _track(self, name: str, value: Any) -> None:
        """Adds (or replaces, in place) the edge `name`; runs a restoration waiting for that name."""
        edges = self._dependencies()
        for i, (existing, _) in enumerate(edges):
            if existing == name:
                edges[i] = (name, value)
                break
        else:
            edges.append((name, value))
        restore = self.__dict__[DEFERRED].pop(name, None)
        if restore is not None:
            restore(value)

    def _defer_restoration(self, name: str, restore: Callable[[Any], None]) -> None:
        """Keeps `restore(value)` to run when an object is tracked under `name`."""
        self._dependencies()
        self.__dict__[DEFERRED][name] = restore

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if is_trackable(value):
            self._track(name, value)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        edges = self._dependencies()
        edges[:] = [(existing, value) for existing, value in edges if existing != name]


def children(value: Any) -> list:
    """[(local name, child)] of one node of the object graph: an AutoTrackable's edges, a container's items, or
    the edges an object lists itself (`_checkpoint_children()`: a Keras model's `layer_with_weights-0` ...)."""
    if lists_own_edges(value):
        return value._checkpoint_children()
    if isinstance(value, AutoTrackable):
        return list(value._dependencies())
    if isinstance(value, Optimizer):
        return value._checkpoint_dependencies()
    if isinstance(value, dict):
        items = [(key, item) for key, item in value.items() if is_trackable(item)]
        for key, _ in items:
            if not isinstance(key, str):
                raise ValueError(f"Unable to save the object {value!r} (a dictionary wrapper constructed "
                                 "automatically on attribute assignment). The wrapped dictionary contains a "
                                 "non-string key which maps to a trackable object or mutable data structure.")
        return items
    if isinstance(value, (list, tuple)):
        return [(str(i), item) for i, item in enumerate(value) if is_trackable(item)]
    return []


def child_named(value: Any, name: str) -> Any:
    """The child of `value` under the edge `name`, or None."""
    return dict(children(value)).get(name)


def can_defer(value: Any) -> bool:
    """Whether `value` runs a restoration left for a child it does not have yet (when that child appears)."""
    return isinstance(value, (AutoTrackable, Optimizer))


def walk(root: Any, attached: list | tuple = ()) -> tuple[list, dict]:
    """Breadth-first from `root`: (the objects in order of discovery, {id(object): path of names from root}).
    `attached`: more (name, child) edges of the root, after its own (a Checkpoint made with `root=`).

    The order gives the node ids of the object graph and the order of the values in the data file; the path (the
    first, hence shortest, way to reach an object) gives its checkpoint key."""
    order = [root]
    paths = {id(root): ()}
    position = 0
    while position < len(order):
        parent = order[position]
        edges = children(parent) + (list(attached) if position == 0 else [])
        position += 1
        for name, child in edges:
            if id(child) not in paths:
                paths[id(child)] = paths[id(parent)] + (name,)
                order.append(child)
    return order, paths
