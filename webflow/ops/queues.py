"""TF1's queue classes: `tf.QueueBase`, `tf.FIFOQueue`, `tf.RandomShuffleQueue`, `tf.PaddingFIFOQueue` (also
`tf.queue.*`), with TensorFlow's signatures, node names (`fifo_queue_enqueue`, `fifo_queue_Dequeue`,
`fifo_queue_DequeueMany` ...) and build-time checks. Each method adds one op of data_flow_ops.py; they work
eagerly too (an eager queue is owned by its handle tensor), as TF2's queues do.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Any

from webflow.framework import context, dtypes, random_seed
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor_shape import Dimension, TensorShape, as_shape, unknown_shape
from webflow.ops import data_flow_ops  # noqa: F401 - registers the queue ops
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.registry import apply_op

_eager_uids = itertools.count(0)


def _as_type_list(types: Any) -> list:
    return [dtypes.as_dtype(t) for t in (types if isinstance(types, (list, tuple)) else [types])]


def _as_shape_list(shapes: Any, unknown_dim_allowed: bool = False) -> list | None:
    """TF's rules: None, one shape, or a list of shapes; fully defined unless partial shapes are allowed."""
    if unknown_dim_allowed and (not isinstance(shapes, Sequence) or not shapes
                                or any(s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(f"Shapes must be a TensorShape or a list or tuple of TensorShapes, got {type(shapes)} "
                        "instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # one shape, written as a list of dimensions
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.rank is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names: Any, types: list) -> list | None:
    if names is None:
        return None
    names = list(names) if isinstance(names, (list, tuple)) else [names]
    if len(names) != len(types):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return names


def _shared_name(shared_name: str | None) -> str:
    """Eager queues are private to their handle: TF names each with a fresh uid."""
    if context.executing_eagerly():
        return str(next(_eager_uids))
    return shared_name or ""


class QueueBase:
    """A queue of elements, each a tuple (or dict, with `names`) of tensors of `dtypes` (and `shapes`)."""

    def __init__(self, dtypes: list, shapes: list | None, names: list | None, queue_ref: Any):  # noqa: A002
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in dtypes]
        if names is not None and len(names) != len(dtypes):
            raise ValueError("Queue names must have the same length as dtypes")
        self._names = names
        self._queue_ref = queue_ref
        self._name = "Empty" if context.executing_eagerly() else queue_ref.op.name.split("/")[-1]  # TF 2.21 eagerly

    @property
    def queue_ref(self) -> Any:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name if not context.executing_eagerly() else self._name

    @property
    def dtypes(self) -> list:
        return self._dtypes

    @property
    def shapes(self) -> list:
        return self._shapes

    @property
    def names(self) -> list | None:
        return self._names

    # --- putting in -----------------------------------------------------------------------------------------
    def _check_enqueue_dtypes(self, vals: Any) -> list:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"({sorted(vals.keys())}), Queue: ({sorted(self._names)})")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=t, name=f"component_{i}")
                for i, (v, t) in enumerate(zip(vals, self._dtypes))]

    def enqueue(self, vals: Any, name: str | None = None) -> Any:
        """Adds one element; in a graph, the op that does it when run."""
        with name_scope_v1(name, f"{self._name}_enqueue", _scope_values(vals)) as scope:
            tensors = self._check_enqueue_dtypes(vals)
            for tensor, shape in zip(tensors, self._shapes):
                tensor.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", [self._queue_ref] + tensors,
                            {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1},
                            name=scope or None)

    def enqueue_many(self, vals: Any, name: str | None = None) -> Any:
        """Adds one element per row: each component is sliced along its dimension 0."""
        with name_scope_v1(name, f"{self._name}_EnqueueMany", _scope_values(vals)) as scope:
            tensors = self._check_enqueue_dtypes(vals)
            batch = _leading(tensors[0].shape)
            for tensor, shape in zip(tensors, self._shapes):
                batch = batch.merge_with(_leading(tensor.shape))
                if tensor.shape.rank is not None:
                    TensorShape(tensor.shape.as_list()[1:]).assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", [self._queue_ref] + tensors,
                            {"Tcomponents": [t.dtype.base_dtype for t in tensors], "timeout_ms": -1},
                            name=scope or None)

    # --- taking out -----------------------------------------------------------------------------------------
    def _dequeue_return_value(self, tensors: list) -> Any:
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        return tensors[0] if len(tensors) == 1 else tensors

    def _dequeue(self, op_type: str, inputs: list, name: str) -> Any:
        result = apply_op(op_type, [self._queue_ref] + inputs, {"component_types": list(self._dtypes),
                                                                "timeout_ms": -1}, name=name)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        if not context.executing_eagerly():  # the static shapes: the queue's, after the batch dimension if any
            for output, shape in zip(outputs, self._shapes):
                if op_type == "QueueDequeueV2":
                    output.set_shape(shape)
                else:  # DequeueMany: n when known while building; DequeueUpTo: unknown
                    batch = _int_or_none(output.op.inputs[1]) if op_type == "QueueDequeueManyV2" else None
                    output.set_shape(TensorShape([batch]).concatenate(shape))
        return self._dequeue_return_value(outputs)

    def dequeue(self, name: str | None = None) -> Any:
        """Removes and returns one element (waits while the queue is empty)."""
        return self._dequeue("QueueDequeueV2", [], name or f"{self._name}_Dequeue")

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        """Removes `n` elements and returns them stacked along a new dimension 0."""
        return self._dequeue("QueueDequeueManyV2", [n], name or f"{self._name}_DequeueMany")

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        """As dequeue_many, but once the queue is closed it returns the remaining 1..n elements."""
        return self._dequeue("QueueDequeueUpToV2", [n], name or f"{self._name}_DequeueUpTo")

    # --- state ----------------------------------------------------------------------------------------------
    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Any:
        """No more enqueues; `cancel_pending_enqueues` also fails the enqueues waiting for room."""
        return apply_op("QueueCloseV2", [self._queue_ref], {"cancel_pending_enqueues": bool(cancel_pending_enqueues)},
                        name=name or f"{self._name}_Close")

    def is_closed(self, name: str | None = None) -> Any:
        return apply_op("QueueIsClosedV2", [self._queue_ref], {}, name=name or f"{self._name}_Is_Closed")

    def size(self, name: str | None = None) -> Any:
        return apply_op("QueueSizeV2", [self._queue_ref], {}, name=name or f"{self._name}_Size")


def _scope_values(vals: Any) -> list:
    if isinstance(vals, dict):
        return list(vals.values())
    return list(vals) if isinstance(vals, (list, tuple)) else [vals]


def _leading(shape: TensorShape) -> Dimension:
    """Dimension 0 of an enqueue_many component (ValueError for a scalar, as TensorFlow's with_rank_at_least)."""
    if shape.rank is None:
        return Dimension(None)
    return Dimension(shape.with_rank_at_least(1).as_list()[0])


def _int_or_none(tensor: Any) -> int | None:
    value = constant_value(tensor)
    return None if value is None else int(value)


def queue_seeds(seed: int | None, shared_name: str | None) -> tuple:
    """(seed, seed2) of a RandomShuffleQueue: (0, 0) (random) without seeds; with a graph seed, no op seed and a
    shared name, seed2 hashes the two, so that every graph sharing the queue agrees (as TensorFlow does)."""
    seed1, seed2 = random_seed.get_seed(seed)
    if seed1 is None and seed2 is None:
        return 0, 0
    if seed is None and shared_name is not None:
        digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
        seed2 = int(digest[:8], 16) & 0x7FFFFFFF
    return seed1, seed2


def _make_queue(op_type: str, name: str, types: list, shapes: list | None, attrs: dict) -> Any:
    attrs = {"component_types": types, "shapes": shapes or [], **attrs}
    if context.executing_eagerly():
        return apply_op(op_type, [], attrs)
    with context.get_default_graph().control_dependencies(None):  # TF's init_scope: outside any control context
        return apply_op(op_type, [], attrs, name=name)


class FIFOQueue(QueueBase):
    """`tf.FIFOQueue(capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue")`."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any = None, names: Any = None,  # noqa: A002
                 shared_name: str | None = None, name: str = "fifo_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        ref = _make_queue("FIFOQueueV2", name, types, shapes,
                          {"capacity": capacity, "container": "", "shared_name": _shared_name(shared_name)})
        super().__init__(types, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose shapes may have unknown dimensions: `dequeue_many` pads them to the batch's largest."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any, names: Any = None,  # noqa: A002
                 shared_name: str | None = None, name: str = "padding_fifo_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, types)
        if len(types) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received {len(types)} dtypes and "
                             f"{len(shapes)} shapes.")
        ref = _make_queue("PaddingFIFOQueueV2", name, types, shapes,
                          {"capacity": capacity, "container": "", "shared_name": _shared_name(shared_name)})
        super().__init__(types, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order, keeping at least `min_after_dequeue` until closed."""

    def __init__(self, capacity: int, min_after_dequeue: int, dtypes: Any, shapes: Any = None,  # noqa: A002
                 names: Any = None, seed: int | None = None, shared_name: str | None = None,
                 name: str = "random_shuffle_queue"):
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        seed1, seed2 = queue_seeds(seed, shared_name)
        ref = _make_queue("RandomShuffleQueueV2", name, types, shapes,
                          {"capacity": capacity, "min_after_dequeue": min_after_dequeue, "seed": seed1,
                           "seed2": seed2, "container": "", "shared_name": _shared_name(shared_name)})
        super().__init__(types, shapes, names, ref)


__all__ = ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue"]
