"""What a TF1 queue holds and how its operations wait: the state behind FIFOQueueV2, RandomShuffleQueueV2 and
PaddingFIFOQueueV2 (their op stanzas are data_flow_ops.py).

A queue is a list of elements (an element: one array per component) guarded by one `threading.Condition`.
An enqueue waits for room, a dequeue for elements; both wake when another thread's `Session.run` changes the
queue, when the run's deadline passes (RunOptions.timeout_in_ms: DeadlineExceededError), or when the session
closes (CancelledError). As in TensorFlow's queue_base.cc, a DequeueMany takes elements as they arrive, so a
batch larger than the capacity still fills, and puts them back if the queue closes before the batch is full.

Without threads (Pyodide) nothing could ever wake a waiting op. There, queue runners started with
`tf.train.start_queue_runners` register cooperative "pump" steps (train/queue_runner.py); a dequeue that would
wait runs those steps in its own thread until it has its elements. With no pump, it raises at once, naming
tf.data as the thread-free alternative.
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import string_values
from webflow.backends.arrays import values as backend_values
from webflow.framework import dtypes
from webflow.framework.errors import (
    CancelledError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    OutOfRangeError,
)
from webflow.framework.philox import MASK32, PhiloxGenerator, philox4x32
from webflow.ops import dataset_elements as elements

# False in Pyodide: no other thread can ever enqueue while an op waits (tests set it to simulate Pyodide).
THREADS_AVAILABLE = sys.platform != "emscripten"
# The session resource under which train/queue_runner.py keeps cooperative pump steps: {queue key: Pumps}.
COOPERATIVE_RUNNERS = "__cooperative_queue_runners__"
# The session resource holding what to call when Ctrl-C interrupts a Session.run: each started QueueRunner's stop.
ON_INTERRUPT = "__on_interrupt__"
# Unshared resources are named "_<n>_<op name>", n counting up in the process (TF's ResourceMgr unique ids).
_unique_ids = itertools.count()
_WAIT_SLICE = 0.25  # seconds: a waiting op re-checks for cancellation at least this often


def resource_name(op_name: str | None, shared_name: str) -> str:
    """The name a queue or reader is known by in error messages: shared_name, else "_<n>_<op name>"."""
    if shared_name:
        return shared_name
    return f"_{next(_unique_ids)}_{op_name or 'eager'}"


def resource_key(op_name: str, shared_name: str) -> str:
    """Where a graph's queue/reader lives in the session's resource store: ops sharing a name share it."""
    return "__resource__/" + (shared_name or op_name)


class Waiter:
    """How long an op may wait (deadline from RunOptions) and what to run instead of waiting (a pump)."""

    __slots__ = ("deadline", "pump")

    def __init__(self, deadline: float | None = None, pump: Callable[[], bool] | None = None):
        self.deadline = deadline
        self.pump = pump

    @classmethod
    def from_context(cls, context: Any, key: str) -> Waiter:
        run_state = getattr(context, "run_state", None) or {}
        runners = context.resources.get(COOPERATIVE_RUNNERS)
        pumps = runners.get(key) if runners else None
        return cls(run_state.get("deadline"), pumps.step if pumps else None)


class Pumps:
    """A queue's cooperative enqueue steps: `step()` runs the next one; a step returns False once finished."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], bool]] = []
        self._next = 0

    def add(self, step: Callable[[], bool]) -> None:
        self.steps.append(step)

    def step(self) -> bool:
        """Runs one step (round robin); False when no step is left to run."""
        while self.steps:
            index = self._next % len(self.steps)
            if self.steps[index]():
                self._next = index + 1
                return True
            del self.steps[index]
        return False


class QueueState:
    """A FIFO queue: elements leave in the order they came."""

    kind = "FIFOQueue"
    dequeue_kind = "FIFOQueue"  # PaddingFIFOQueue's single Dequeue is FIFOQueue's, and says so in its errors
    dtype = dtypes.resource  # a scalar resource value, as an eager handle tensor holds it
    shape = ()
    ndim = 0

    def __init__(self, name: str, key: str, component_types: list, shapes: list, capacity: int):
        self.name = name  # as in TF's messages: "_0_fifo_queue" or the shared name
        self.key = key
        self.component_types = [dtypes.as_dtype(t) for t in component_types]
        self.shapes = [_as_tuple(s) for s in shapes] if shapes else None  # None: no shapes given
        self.capacity = capacity if capacity >= 0 else sys.maxsize  # -1: unbounded
        self.elements: deque = deque()
        self.closed = False
        self.cancelled = False  # the session closed
        self.enqueue_cancels = 0  # close(cancel_pending_enqueues=True) calls so far
        self.condition = threading.Condition()

    # --- the ops ------------------------------------------------------------------------------------------
    def enqueue(self, components: list, waiter: Waiter) -> None:
        self._check_components(components, batch=None)
        self._put([list(components)], waiter)

    def enqueue_many(self, components: list, waiter: Waiter) -> None:
        count = self._check_components(components, batch=True)
        rows = [[elements.row(c, i) for c in components] for i in range(count)]
        self._put(rows, waiter)

    def dequeue(self, waiter: Waiter) -> list:
        with self.condition:
            def ready() -> bool:
                return self.cancelled or self._available() > 0 or (self.closed and not self.elements)
            self._wait(waiter, ready, "Dequeue")
            if not self.elements:
                raise self._insufficient(1, 0, self.dequeue_kind)
            element = self._take()
            self.condition.notify_all()
        return element

    def dequeue_many(self, count: int, waiter: Waiter, allow_smaller: bool) -> list:
        """`count` elements stacked (fewer, when allowed, once the queue closes: DequeueUpTo)."""
        what = "DequeueUpToOp" if allow_smaller else "DequeueManyOp"
        if count < 0:
            raise InvalidArgumentError(None, None, f"{what} requested {count} < 0 elements")
        self._check_batchable()
        taken: list = []
        with self.condition:
            try:
                taken = self._take_many(count, taken, waiter, allow_smaller)
            except BaseException:
                self._restore(taken)  # a timeout or cancellation loses no element
                raise
        return self._batch(taken)

    def _take_many(self, count: int, taken: list, waiter: Waiter, allow_smaller: bool) -> list:
        """Fills `taken` (in place) up to `count` elements as they arrive; returns the elements to batch."""
        while len(taken) < count:
            self._wait(waiter, lambda: self.cancelled or self.closed or self._available() > 0, "Dequeue")
            if self.closed and len(self.elements) < count - len(taken):
                size, missing = len(self.elements), count - len(taken)  # TF reports what is still missing
                self._restore(taken)
                taken.clear()
                if allow_smaller and self.elements:
                    count = len(self.elements)
                else:
                    raise self._insufficient(missing, size, self.kind)
            while len(taken) < count and self._available() > 0:
                taken.append(self._take())
            self.condition.notify_all()
        return taken

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self.condition:
            self.closed = True
            if cancel_pending_enqueues:
                self.enqueue_cancels += 1
            self.condition.notify_all()

    def size(self) -> int:
        return len(self.elements)

    def cancel_waiting_ops(self) -> None:
        """The session closed: every op waiting on this queue raises CancelledError."""
        with self.condition:
            self.cancelled = True
            self.condition.notify_all()

    # --- waiting ------------------------------------------------------------------------------------------
    def _put(self, rows: list, waiter: Waiter) -> None:
        with self.condition:
            if self.closed:
                raise CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            cancels = self.enqueue_cancels
            for row in rows:
                def ready() -> bool:
                    return self.cancelled or self.enqueue_cancels != cancels or len(self.elements) < self.capacity
                # a cooperative runner (no threads) may overfill: its consumer is waiting for it right now
                if not ready() and not (waiter.pump is not None and not THREADS_AVAILABLE):
                    self._wait(Waiter(waiter.deadline), ready, "Enqueue")
                if self.enqueue_cancels != cancels:
                    raise CancelledError(None, None, "Enqueue operation was cancelled")
                self.elements.append(row)
                self.condition.notify_all()

    def _wait(self, waiter: Waiter, ready: Callable[[], bool], what: str) -> None:
        """Returns (holding the condition) once `ready()`; raises on cancellation, deadline, or deadlock."""
        while not ready():
            if waiter.pump is not None:
                self.condition.release()
                try:
                    progressed = waiter.pump()
                finally:
                    self.condition.acquire()
                if not progressed and not ready():
                    raise self._would_block(what, "its queue runners have finished")
                continue
            if not THREADS_AVAILABLE and what == "Enqueue":
                raise self._would_block(what, "nothing can dequeue from it meanwhile")
            if not THREADS_AVAILABLE:
                raise self._would_block(what, "no queue runner feeds it (start them with tf.train."
                                              "start_queue_runners: they then run on demand in this thread)")
            timeout = _WAIT_SLICE
            if waiter.deadline is not None:
                timeout = min(timeout, waiter.deadline - time.monotonic())
                if timeout <= 0:
                    raise DeadlineExceededError(None, None, "Timed out waiting for notification")
            self.condition.wait(timeout)
        if self.cancelled:
            raise CancelledError(None, None, f"{what} operation was cancelled")

    def _would_block(self, what: str, why: str) -> FailedPreconditionError:
        state = "full" if what == "Enqueue" else "empty"
        return FailedPreconditionError(
            None, None, f"{self.kind} '{self.name}' is {state} and this Python has no threads (as in Pyodide), so "
                        f"the {what} would wait forever: {why}. tf.data input pipelines need no threads.")

    def _insufficient(self, requested: int, size: int, kind: str) -> OutOfRangeError:
        return OutOfRangeError(None, None, f"{kind} '{self.name}' is closed and has insufficient elements "
                                           f"(requested {requested}, current size {size})")

    # --- what differs between queue kinds -----------------------------------------------------------------
    def _available(self) -> int:
        """How many elements a dequeue may take now."""
        return len(self.elements)

    def _take(self) -> list:
        return self.elements.popleft()

    def _restore(self, taken: list) -> None:
        """A DequeueMany the closing queue cannot fill gives back what it took, in order, at the front."""
        self.elements.extendleft(reversed(taken))

    def _check_batchable(self) -> None:
        if self.shapes is None or any(s is None or None in s for s in self.shapes):
            raise InvalidArgumentError(None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the "
                                                   "components to have specified shapes.")

    def _batch(self, taken: list) -> list:
        if not taken:
            return [_empty_batch(t, s) for t, s in zip(self.component_types, self.shapes)]
        return [elements.stack([row[i] for row in taken]) for i in range(len(self.component_types))]

    # --- validation ---------------------------------------------------------------------------------------
    def _check_components(self, components: list, batch: bool | None) -> int:
        """Checks each component's shape against the queue's; returns the batch size of an EnqueueMany."""
        count = -1
        for index, value in enumerate(components):
            shape = tuple(backend_values.shape_of(value))
            if batch:
                if not shape:
                    raise InvalidArgumentError(None, None, f"Shape mismatch in tuple component {index}. Expected "
                                                           f"{_text((0,) + tuple(self._shape(index) or ()))}, got []")
                if count >= 0 and shape[0] != count:
                    raise InvalidArgumentError(None, None, f"Shape mismatch in tuple component {index}. Expected "
                                                           f"{_text((count,) + shape[1:])}, got {_text(shape)}")
                count = shape[0]
            expected = self._shape(index)
            element_shape = shape[1:] if batch else shape
            if expected is not None and not _compatible(expected, element_shape):
                lead = (shape[0],) if batch else ()
                raise InvalidArgumentError(None, None, f"Shape mismatch in tuple component {index}. Expected "
                                                       f"{_text(lead + expected)}, got {_text(shape)}")
        return count

    def _shape(self, index: int) -> tuple | None:
        return None if self.shapes is None else self.shapes[index]


class RandomShuffleQueueState(QueueState):
    """Elements leave in a random order, once more than `min_after_dequeue` are waiting (until closed).

    The order is TensorFlow's for a given (seed, seed2): each dequeue draws one uint32 from Philox (single-sample
    adapter), takes element `draw % size`, moves the last element into its place (random_shuffle_queue_op.cc)."""

    kind = dequeue_kind = "RandomShuffleQueue"

    def __init__(self, name: str, key: str, component_types: list, shapes: list, capacity: int,
                 min_after_dequeue: int, seed: int, seed2: int):
        super().__init__(name, key, component_types, shapes, capacity)
        self.min_after_dequeue = min_after_dequeue
        self.generator = PhiloxGenerator(seed, seed2)
        self.draws: list = []

    def _available(self) -> int:
        return len(self.elements) - (0 if self.closed else self.min_after_dequeue)

    def _take(self) -> list:
        index = self._draw() % len(self.elements)
        chosen = self.elements[index]
        self.elements[index] = self.elements[-1]
        self.elements.pop()
        return chosen

    def _restore(self, taken: list) -> None:
        self.elements.extend(taken)

    def _draw(self) -> int:
        """The next uint32 of the Philox stream, four per 128-bit block, in word order."""
        if not self.draws:
            counter = self.generator.counter
            words = philox4x32(self.generator.key, tuple((counter >> (32 * i)) & MASK32 for i in range(4)))
            self.draws = list(reversed(words))
            self.generator.skip(1)
        return int(self.draws.pop())


class PaddingFIFOQueueState(QueueState):
    """A FIFO queue whose components may vary in size: DequeueMany pads each to the batch's largest (zeros, or
    empty strings)."""

    kind = "PaddingFIFOQueue"

    def _check_batchable(self) -> None:
        return None

    def _batch(self, taken: list) -> list:
        batch = []
        for index, dtype in enumerate(self.component_types):
            rows = [row[index] for row in taken]
            shapes = [tuple(backend_values.shape_of(r)) for r in rows]
            spec = self.shapes[index]
            if not rows:
                batch.append(_empty_batch(dtype, tuple(0 if d is None else d for d in spec)))
                continue
            largest = tuple(max(s[axis] for s in shapes) for axis in range(len(spec)))
            padding = b"" if dtype == dtypes.string else 0
            batch.append(elements.stack([elements.pad_to(r, largest, padding) for r in rows]))
        return batch


def _empty_batch(dtype: Any, shape: tuple) -> Any:
    full_shape = (0,) + tuple(shape)
    if dtype == dtypes.string:
        return string_values.strings([], full_shape)
    return backend_values.full(full_shape, 0, dtype)


def _as_tuple(shape: Any) -> tuple | None:
    """A shape attr (TensorShape or list, None dims unknown) as a tuple; None for an unknown rank."""
    if hasattr(shape, "as_tuple"):
        return shape.as_tuple()
    return None if shape is None else tuple(None if d is None or d < 0 else int(d) for d in shape)


def _compatible(expected: tuple, shape: tuple) -> bool:
    return len(expected) == len(shape) and all(e is None or e == d for e, d in zip(expected, shape))


def _text(shape: tuple) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


__all__ = ["QueueState", "RandomShuffleQueueState", "PaddingFIFOQueueState", "Waiter", "Pumps",
           "COOPERATIVE_RUNNERS", "THREADS_AVAILABLE", "resource_name", "resource_key"]
