"""TF1's queue-based input pipelines (`tf.train.string_input_producer`, `batch`, `shuffle_batch` ...).

Each producer or batcher builds a queue (ops/queues.py), the enqueue ops that fill it and a QueueRunner
(queue_runner.py) that runs them in threads once `tf.train.start_queue_runners` is called; the graph it builds
(node names, summaries, the `epochs` local variable of `limit_epochs`) is TensorFlow's. tf.data is the modern
replacement, and the one that needs no threads.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import TensorBase
from webflow.framework.tensor_shape import TensorShape, as_shape
from webflow.ops import array_ops, io_ops, math_ops, random_ops, sequence_ops, summary_ops
from webflow.ops.binary_math_ops import maximum
from webflow.ops.constants import constant
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.counter_ops import count_up_to
from webflow.ops.gather_ops import boolean_mask, gather
from webflow.ops.manip_ops import expand_dims
from webflow.ops.queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from webflow.ops.state_ops import RefVariable
from webflow.train.queue_runner import QueueRunner, add_queue_runner

_EAGER_MESSAGE = ("Input pipelines based on Queues are not supported when eager execution is enabled. Please use "
                  "tf.data to ingest data into your model instead.")


def _no_eager(error: type = RuntimeError) -> None:
    if context.executing_eagerly():
        raise error(_EAGER_MESSAGE)


# --- producers ----------------------------------------------------------------------------------------------------
def limit_epochs(tensor: Any, num_epochs: int | None = None, name: str | None = None) -> Any:
    """`tensor`, which raises OutOfRangeError once it has been evaluated `num_epochs` times (a local variable
    `epochs` counts: run `tf.local_variables_initializer()` first)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope_v1(name, "limit_epochs", [tensor]) as scope:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = RefVariable(zero64, name="epochs", trainable=False, collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with context.get_default_graph().control_dependencies([counter]):
            return array_ops.identity(tensor, name=scope)


def input_producer(input_tensor: Any, element_shape: Any = None, num_epochs: int | None = None,
                   shuffle: bool = True, seed: int | None = None, capacity: int = 32,
                   shared_name: str | None = None, summary_name: str | None = None, name: str | None = None,
                   cancel_op: Any = None) -> Any:
    """A FIFOQueue fed with the rows of `input_tensor` (shuffled each epoch if `shuffle`) by a QueueRunner."""
    _no_eager()
    with name_scope_v1(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = TensorShape(input_tensor.shape.as_list()[1:] if input_tensor.shape.rank else None) \
            .merge_with(as_shape(element_shape) if element_shape is not None else TensorShape(None))
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        queue = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype], shapes=[element_shape],
                          shared_name=shared_name, name=name)
        enqueue = queue.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(queue, [enqueue], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(summary_name, math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        return queue


def string_input_producer(string_tensor: Any, num_epochs: int | None = None, shuffle: bool = True,
                          seed: int | None = None, capacity: int = 32, shared_name: str | None = None,
                          name: str | None = None, cancel_op: Any = None) -> Any:
    """A queue of the strings (file names) of `string_tensor`, `num_epochs` times (None: forever)."""
    if not isinstance(string_tensor, TensorBase) and not string_tensor:
        raise ValueError("string_input_producer requires a non-null input tensor")
    with name_scope_v1(name, "input_producer", [string_tensor]) as scope:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=scope,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit: Any, num_epochs: int | None = None, shuffle: bool = True, seed: int | None = None,
                         capacity: int = 32, shared_name: str | None = None, name: str | None = None) -> Any:
    """A queue of the integers 0 .. limit - 1."""
    with name_scope_v1(name, "input_producer", [limit]) as scope:
        range_tensor = sequence_ops.range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              f"fraction_of_{capacity}_full", scope)


def slice_input_producer(tensor_list: list, num_epochs: int | None = None, shuffle: bool = True,
                         seed: int | None = None, capacity: int = 32, shared_name: str | None = None,
                         name: str | None = None) -> list:
    """One row of every tensor of `tensor_list` at a time (the same row of each)."""
    with name_scope_v1(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


def match_filenames_once(pattern: Any, name: str | None = None) -> Any:
    """A local variable holding the files matching `pattern` when it is initialized."""
    with name_scope_v1(name, "matching_filenames", [pattern]) as scope:
        return RefVariable(io_ops.matching_files(pattern), name=scope, trainable=False, validate_shape=False,
                           collections=[GraphKeys.LOCAL_VARIABLES])


# --- batching -----------------------------------------------------------------------------------------------------
def _as_tensor_list(tensors: Any) -> list:
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return list(tensors)


def _as_original_type(original: Any, dequeued: Any) -> Any:
    if isinstance(original, dict):
        if len(original) == 1:
            dequeued = [dequeued]  # a one-component queue dequeues a bare tensor
        return {k: dequeued[i] for i, k in enumerate(sorted(original, key=str))}
    return dequeued


def _validate(tensor_list: list) -> list:
    tensor_list = [convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _shapes(tensor_list_list: list, shapes: Any, enqueue_many: bool) -> list:
    """The queue's component shapes: `shapes`, else the tensors' static shapes (less dimension 0 if many)."""
    if shapes is not None:
        return shapes
    merged = []
    for index in range(len(tensor_list_list[0])):
        shape = None
        for tensors in tensor_list_list:
            static = tensors[index].shape
            if static.rank is None:
                raise ValueError(f"Cannot infer Tensor's rank: {tensors[index]}")
            static = TensorShape(static.with_rank_at_least(1).as_list()[1:]) if enqueue_many else static
            shape = static if shape is None else shape.merge_with(static)
        merged.append(shape.as_list())
    return merged


def _dtypes(tensor_list_list: list) -> list:
    types = [t.dtype.base_dtype for t in tensor_list_list[0]]
    for tensors in tensor_list_list[1:]:
        if [t.dtype.base_dtype for t in tensors] != types:
            raise TypeError(f"Expected types to be {types}, got {[t.dtype.base_dtype for t in tensors]}")
    return types


def _validate_keep_input(keep_input: Any, enqueue_many: bool) -> Any:
    keep = convert_to_tensor(keep_input, dtype=dtypes.bool)
    if keep.shape.rank is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep.shape.rank == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep.shape.rank > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep


def _kept(tensors: list, keep: Any, enqueue_many: bool) -> tuple:
    """(tensors to enqueue, enqueue them as many?): only the elements `keep` selects. TensorFlow enqueues a kept
    scalar case under a cond; masking the element as a batch of one enqueues the same elements."""
    static = constant_value(keep) if keep.shape.rank == 0 else None
    if static is not None and bool(static):
        return tensors, enqueue_many  # always kept: TF's smart_cond builds the plain enqueue
    if keep.shape.rank == 1:
        return [boolean_mask(t, keep) for t in tensors], True
    if enqueue_many:
        return [boolean_mask(t, array_ops.fill(array_ops.shape(t)[:1], keep)) for t in tensors], True
    return [boolean_mask(expand_dims(t, 0), array_ops.reshape(keep, [1])) for t in tensors], True


def _enqueue_ops(queue: Any, tensor_list_list: list, enqueue_many: bool, keep: Any, copies: int = 1) -> list:
    ops = []
    for tensors in tensor_list_list:
        tensors, many = _kept(tensors, keep, enqueue_many)
        ops.append((queue.enqueue_many if many else queue.enqueue)(tensors))
    if len(ops) == 1:
        return ops * copies  # num_threads threads run one op, as in TensorFlow
    return ops


def _dequeue(queue: Any, batch_size: Any, allow_smaller_final_batch: bool, name: str) -> Any:
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _batch(tensors_list: list, original: Any, batch_size: Any, keep_input: Any, num_threads: int, capacity: int,
           enqueue_many: bool, shapes: Any, dynamic_pad: bool, allow_smaller_final_batch: bool,
           shared_name: str | None, name: str | None, default_name: str) -> Any:
    _no_eager(ValueError)
    lists = [_as_tensor_list(t) for t in tensors_list]
    with name_scope_v1(name, default_name, [t for tensors in lists for t in tensors]) as scope:
        lists = [_validate(tensors) for tensors in lists]
        keep = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(lists)
        shapes = _shapes(lists, shapes, enqueue_many)
        queue_class = PaddingFIFOQueue if dynamic_pad else FIFOQueue
        queue = queue_class(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
        add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, lists, enqueue_many, keep, num_threads)))
        summary_ops.scalar(f"fraction_of_{capacity}_full",
                           math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))
        return _as_original_type(original, _dequeue(queue, batch_size, allow_smaller_final_batch, scope))


def _shuffle_batch(tensors_list: list, original: Any, batch_size: Any, capacity: int, min_after_dequeue: int,
                   keep_input: Any, num_threads: int, seed: int | None, enqueue_many: bool, shapes: Any,
                   allow_smaller_final_batch: bool, shared_name: str | None, name: str | None,
                   default_name: str) -> Any:
    _no_eager(ValueError)
    lists = [_as_tensor_list(t) for t in tensors_list]
    with name_scope_v1(name, default_name, [t for tensors in lists for t in tensors]) as scope:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue {min_after_dequeue}.")
        lists = [_validate(tensors) for tensors in lists]
        keep = _validate_keep_input(keep_input, enqueue_many)
        types = _dtypes(lists)
        shapes = _shapes(lists, shapes, enqueue_many)
        queue = RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, seed=seed, dtypes=types,
                                   shapes=shapes, shared_name=shared_name)
        add_queue_runner(QueueRunner(queue, _enqueue_ops(queue, lists, enqueue_many, keep, num_threads)))
        full = math_ops.cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
            1.0 / (capacity - min_after_dequeue))
        summary_ops.scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full", full)
        return _as_original_type(original, _dequeue(queue, batch_size, allow_smaller_final_batch, scope))


def batch(tensors: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32, enqueue_many: bool = False,
          shapes: Any = None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
          shared_name: str | None = None, name: str | None = None) -> Any:
    """`batch_size` elements of `tensors` (a list or dict) at a time, filled by `num_threads` threads."""
    return _batch([tensors], tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name, "batch")


def maybe_batch(tensors: Any, keep_input: Any, batch_size: Any, num_threads: int = 1, capacity: int = 32,
                enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
                allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                name: str | None = None) -> Any:
    """As `batch`, enqueuing only the elements `keep_input` (a bool scalar, or a vector with enqueue_many) keeps."""
    return _batch([tensors], tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name, "batch")


def batch_join(tensors_list: list, batch_size: Any, capacity: int = 32, enqueue_many: bool = False,
               shapes: Any = None, dynamic_pad: bool = False, allow_smaller_final_batch: bool = False,
               shared_name: str | None = None, name: str | None = None) -> Any:
    """As `batch`, from several lists of tensors (one thread each), e.g. several readers."""
    return _batch(tensors_list, tensors_list[0], batch_size, True, 1, capacity, enqueue_many, shapes, dynamic_pad,
                  allow_smaller_final_batch, shared_name, name, "batch_join")


def maybe_batch_join(tensors_list: list, keep_input: Any, batch_size: Any, capacity: int = 32,
                     enqueue_many: bool = False, shapes: Any = None, dynamic_pad: bool = False,
                     allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                     name: str | None = None) -> Any:
    return _batch(tensors_list, tensors_list[0], batch_size, keep_input, 1, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name, "batch_join")


def shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int, num_threads: int = 1,
                  seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                  allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                  name: str | None = None) -> Any:
    """Batches of elements drawn at random from a RandomShuffleQueue holding at least `min_after_dequeue`."""
    return _shuffle_batch([tensors], tensors, batch_size, capacity, min_after_dequeue, True, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch")


def maybe_shuffle_batch(tensors: Any, batch_size: Any, capacity: int, min_after_dequeue: int, keep_input: Any,
                        num_threads: int = 1, seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                        allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                        name: str | None = None) -> Any:
    return _shuffle_batch([tensors], tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch")


def shuffle_batch_join(tensors_list: list, batch_size: Any, capacity: int, min_after_dequeue: int,
                       seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                       allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                       name: str | None = None) -> Any:
    """As `shuffle_batch`, from several lists of tensors (one thread each)."""
    return _shuffle_batch(tensors_list, tensors_list[0], batch_size, capacity, min_after_dequeue, True, 1, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch_join")


def maybe_shuffle_batch_join(tensors_list: list, batch_size: Any, capacity: int, min_after_dequeue: int,
                             keep_input: Any, seed: int | None = None, enqueue_many: bool = False, shapes: Any = None,
                             allow_smaller_final_batch: bool = False, shared_name: str | None = None,
                             name: str | None = None) -> Any:
    return _shuffle_batch(tensors_list, tensors_list[0], batch_size, capacity, min_after_dequeue, keep_input, 1, seed,
                          enqueue_many, shapes, allow_smaller_final_batch, shared_name, name, "shuffle_batch_join")


__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer", "slice_input_producer",
           "match_filenames_once", "batch", "batch_join", "shuffle_batch", "shuffle_batch_join", "maybe_batch",
           "maybe_batch_join", "maybe_shuffle_batch", "maybe_shuffle_batch_join"]
