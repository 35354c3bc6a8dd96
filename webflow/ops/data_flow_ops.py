"""TF1 queue ops: FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 (each outputs a scalar resource: its queue)
and the ops on a queue: QueueEnqueueV2, QueueEnqueueManyV2, QueueDequeueV2, QueueDequeueManyV2, QueueDequeueUpToV2,
QueueCloseV2, QueueSizeV2, QueueIsClosedV2.

In a graph a queue lives in the session's resource store, made the first time its op runs (so each session has
its own, and ops with one `shared_name` share one); eagerly the handle tensor holds it. Waiting, closing and the
shuffle order are queue_state.py's; the Python classes (`tf.FIFOQueue` ...) are queues.py. None of these ops is
differentiable: TensorFlow registers NotDifferentiable for the V1 op types only ("QueueDequeue" ...), so
differentiating through a V2 op raises LookupError there, and here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import dtypes
from webflow.framework.errors import CancelledError, OpError
from webflow.ops.dataset_elements import to_int
from webflow.ops.functional_ops import kernel_result
from webflow.ops.queue_state import (
    PaddingFIFOQueueState,
    QueueState,
    RandomShuffleQueueState,
    Waiter,
    resource_key,
    resource_name,
)
from webflow.ops.registry import output_spec, register_op
from webflow.ops.shapes import no_outputs

_CREATE = threading.Lock()  # two threads running a queue op for the first time make one queue


def located(error: OpError, context: Any, op_type: str) -> OpError:
    """A kernel's error ending as TensorFlow ends it: the node in a graph, the op type eagerly. An error that
    already names its node (an op run inside this one, by a cooperative queue runner) keeps that innermost one."""
    if "\n\t [[{{node " in error.message or " [Op:" in error.message:
        return error
    where = f" [Op:{op_type}]" if context.op_name is None else f"\n\t [[{{{{node {context.op_name}}}}}]]"
    return type(error)(None, None, error.message + where)


def kept_resource(context: Any, shared_name: str, make: Callable[[str, str], Any]) -> Any:
    """The queue (or reader) of this op in the session, made by `make(name, key)` on first use; eagerly a new one."""
    if context.op_name is None:
        return make(shared_name or resource_name("eager", ""), "")
    key = resource_key(context.op_name, shared_name)
    found = context.resources.get(key)
    if found is None:
        with _CREATE:
            if getattr(context.session, "_closed", False):  # a queue runner still running as the session closes
                raise CancelledError(None, None, "Session has been closed.")
            found = context.resources.get(key)
            if found is None:
                found = context.resources[key] = make(resource_name(context.op_name, shared_name), key)
    return found


def _handle(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.resource)


# --- the queues ---------------------------------------------------------------------------------------------------
@register_op("FIFOQueueV2", "fifo_queue", shape=_handle, needs_context=True, stateful=True)
def fifo_queue_kernel(context: Any, *, component_types: list, shapes: list = (), capacity: int = -1,
                      container: str = "", shared_name: str = "") -> Any:
    """A queue whose elements (tuples of `component_types`) leave first in, first out; capacity -1: unbounded."""
    return kept_resource(context, shared_name, lambda name, key: QueueState(
        name, key, component_types, list(shapes), capacity))


@register_op("RandomShuffleQueueV2", "random_shuffle_queue", shape=_handle, needs_context=True, stateful=True)
def random_shuffle_queue_kernel(context: Any, *, component_types: list, shapes: list = (), capacity: int = -1,
                                min_after_dequeue: int = 0, seed: int = 0, seed2: int = 0, container: str = "",
                                shared_name: str = "") -> Any:
    """A queue that gives a uniformly random waiting element, keeping `min_after_dequeue` until it is closed."""
    return kept_resource(context, shared_name, lambda name, key: RandomShuffleQueueState(
        name, key, component_types, list(shapes), capacity, min_after_dequeue, seed, seed2))


@register_op("PaddingFIFOQueueV2", "padding_fifo_queue", shape=_handle, needs_context=True, stateful=True)
def padding_fifo_queue_kernel(context: Any, *, component_types: list, shapes: list = (), capacity: int = -1,
                              container: str = "", shared_name: str = "") -> Any:
    """A FIFO queue of elements of varying sizes; DequeueMany pads each component to the batch's largest."""
    return kept_resource(context, shared_name, lambda name, key: PaddingFIFOQueueState(
        name, key, component_types, list(shapes), capacity))


# --- putting elements in ------------------------------------------------------------------------------------------
def _queue_call(context: Any, queue: QueueState, op_type: str, call: Callable[[Waiter], Any]) -> Any:
    try:
        return call(Waiter.from_context(context, queue.key))
    except OpError as error:
        raise located(error, context, op_type) from None


@register_op("QueueEnqueueV2", "QueueEnqueueV2", inputs=("handle", "*components"), shape=no_outputs,
             needs_context=True, stateful=True)
def queue_enqueue_kernel(context: Any, handle: Any, *components: Any, Tcomponents: list = (),  # noqa: N803
                         timeout_ms: int = -1) -> None:
    """Appends one element (waits while the queue is full); CancelledError if the queue is closed."""
    _queue_call(context, handle, "QueueEnqueueV2", lambda waiter: handle.enqueue(list(components), waiter))


@register_op("QueueEnqueueManyV2", "QueueEnqueueManyV2", inputs=("handle", "*components"), shape=no_outputs,
             needs_context=True, stateful=True)
def queue_enqueue_many_kernel(context: Any, handle: Any, *components: Any, Tcomponents: list = (),  # noqa: N803
                              timeout_ms: int = -1) -> None:
    """Appends components[:][i] for each i along dimension 0, one element at a time as room appears."""
    _queue_call(context, handle, "QueueEnqueueManyV2", lambda waiter: handle.enqueue_many(list(components), waiter))


# --- taking elements out ------------------------------------------------------------------------------------------
def _dequeued(inputs: list, attrs: dict) -> list:
    return [output_spec(None, dtype) for dtype in attrs["component_types"]]


@register_op("QueueDequeueV2", "QueueDequeueV2", inputs=("handle",), shape=_dequeued, needs_context=True,
             stateful=True)
def queue_dequeue_kernel(context: Any, handle: Any, *, component_types: list, timeout_ms: int = -1) -> Any:
    """The next element (waits while none is available); OutOfRangeError once the queue is closed and empty."""
    return kernel_result(_queue_call(context, handle, "QueueDequeueV2", handle.dequeue))


@register_op("QueueDequeueManyV2", "QueueDequeueManyV2", inputs=("handle", "n"), shape=_dequeued,
             needs_context=True, stateful=True)
def queue_dequeue_many_kernel(context: Any, handle: Any, n: Any, *, component_types: list,
                              timeout_ms: int = -1) -> Any:
    """`n` elements stacked along a new dimension 0 (waits for all n)."""
    count = to_int(n)
    return kernel_result(_queue_call(context, handle, "QueueDequeueManyV2",
                                     lambda waiter: handle.dequeue_many(count, waiter, allow_smaller=False)))


@register_op("QueueDequeueUpToV2", "QueueDequeueUpToV2", inputs=("handle", "n"), shape=_dequeued,
             needs_context=True, stateful=True)
def queue_dequeue_up_to_kernel(context: Any, handle: Any, n: Any, *, component_types: list,
                               timeout_ms: int = -1) -> Any:
    """As QueueDequeueManyV2, but once the queue is closed it gives what is left (1..n elements)."""
    count = to_int(n)
    return kernel_result(_queue_call(context, handle, "QueueDequeueUpToV2",
                                     lambda waiter: handle.dequeue_many(count, waiter, allow_smaller=True)))


# --- closing and asking -------------------------------------------------------------------------------------------
@register_op("QueueCloseV2", "QueueCloseV2", inputs=("handle",), shape=no_outputs, stateful=True)
def queue_close_kernel(handle: Any, *, cancel_pending_enqueues: bool = False) -> None:
    """No more enqueues; waiting dequeues that can no longer be served fail (and waiting enqueues, if asked)."""
    handle.close(cancel_pending_enqueues)


@register_op("QueueSizeV2", "QueueSizeV2", inputs=("handle",),
             shape=lambda inputs, attrs: output_spec([], dtypes.int32), stateful=True)
def queue_size_kernel(handle: Any) -> Any:
    """The number of elements in the queue now (int32 scalar)."""
    return backend_values.scalar(handle.size(), dtypes.int32)


@register_op("QueueIsClosedV2", "QueueIsClosedV2", inputs=("handle",),
             shape=lambda inputs, attrs: output_spec([], dtypes.bool), stateful=True)
def queue_is_closed_kernel(handle: Any) -> Any:
    """True once the queue has been closed."""
    return backend_values.scalar(handle.closed, dtypes.bool)


__all__ = ["located", "kept_resource"]
