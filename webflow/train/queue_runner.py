"""`tf.train.QueueRunner`, `add_queue_runner`, `start_queue_runners`: threads that keep a queue filled.

A QueueRunner holds a queue and the enqueue ops that feed it; `create_threads(sess, coord)` starts one thread per
enqueue op, each running its op in a loop until the coordinator stops or the op's input runs out
(OutOfRangeError: the last thread to finish closes the queue, so its consumers see the end too), plus one
thread that cancels pending enqueues once the coordinator stops.

Without threads (Pyodide, or `queue_state.THREADS_AVAILABLE = False`), `create_threads` starts nothing: each
enqueue op becomes a cooperative step that a dequeue waiting on the queue runs in its own thread (see
ops/queue_state.py). The same programs then run unchanged, one thread doing all the work.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from webflow.framework import context, errors
from webflow.framework.default_session import get_default_session
from webflow.framework.graph import GraphKeys
from webflow.ops import queue_state

_log = logging.getLogger("webflow")


class QueueRunner:
    """`tf.train.QueueRunner(queue, enqueue_ops, close_op=None, cancel_op=None, queue_closed_exception_types=None)`."""

    def __init__(self, queue: Any = None, enqueue_ops: list | None = None, close_op: Any = None,
                 cancel_op: Any = None, queue_closed_exception_types: Any = None, queue_runner_def: Any = None,
                 import_scope: str | None = None):
        if context.executing_eagerly():
            raise RuntimeError("QueueRunners are not supported when eager execution is enabled. Instead, please "
                               "use tf.data to get data into your model.")
        if queue_runner_def is not None:
            raise NotImplementedError("QueueRunner(queue_runner_def=...) is not supported by webflow")
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op if close_op is not None else queue.close()
        self._cancel_op = cancel_op if cancel_op is not None else queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = tuple(queue_closed_exception_types or (errors.OutOfRangeError,))
        self._lock = threading.Lock()
        self._runs_per_session: dict = {}
        self._exceptions_raised: list = []

    @property
    def queue(self) -> Any:
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        return self._enqueue_ops

    @property
    def close_op(self) -> Any:
        return self._close_op

    @property
    def cancel_op(self) -> Any:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list:
        """Exceptions the threads raised when they had no coordinator to report them to."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        return self._queue.name

    # --- running ----------------------------------------------------------------------------------------------
    def _enqueue_step(self, sess: Any, enqueue_op: Any, coord: Any, reraise: bool = False) -> Callable[[], bool]:
        """One run of `enqueue_op`: True to go on; False once it is done (input exhausted, or a stop). Another
        error goes to the coordinator, and is raised too if `reraise` (a cooperative step: the waiting dequeue
        that ran it reports it, rather than a vaguer "nothing left to run")."""
        def step() -> bool:
            if coord is not None and coord.should_stop():
                return False
            try:
                sess.run(enqueue_op)
                return True
            except self._queue_closed_exception_types:
                self._finish(sess, close=True)
                return False
            except Exception as error:
                self._finish(sess, close=False)
                if coord is None:
                    with self._lock:
                        self._exceptions_raised.append(error)
                    raise
                coord.request_stop(error)
                if reraise:
                    raise
                return False
        return step

    def _finish(self, sess: Any, close: bool) -> None:
        """One enqueue loop ended; the last one to end by running out of input closes the queue."""
        with self._lock:
            self._runs_per_session[sess] -= 1
            last = self._runs_per_session[sess] == 0
        if close and last:
            try:
                sess.run(self._close_op)
            except Exception as error:  # noqa: BLE001 - as TensorFlow: a failing close is only logged
                _log.debug("Ignored exception: %s", error)

    def _run(self, sess: Any, enqueue_op: Any, coord: Any) -> None:
        step = self._enqueue_step(sess, enqueue_op, coord)
        try:
            while step():
                pass
        except Exception as error:  # noqa: BLE001 - reported above; the thread just ends
            _log.error("Exception in QueueRunner: %s", error)

    def _close_on_stop(self, sess: Any, coord: Any) -> None:
        coord.wait_for_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as error:  # noqa: BLE001 - the session may be closed already
            _log.debug("Ignored exception: %s", error)

    def _stop(self, sess: Any, coord: Any) -> None:
        """Ctrl-C interrupted a run of `sess`: stop the coordinator, and fail this runner's waiting enqueues."""
        if coord is not None:
            coord.request_stop()
        try:
            sess.run(self._cancel_op)
        except Exception as error:  # noqa: BLE001 - the session may be closed already
            _log.debug("Ignored exception: %s", error)

    def create_threads(self, sess: Any, coord: Any = None, daemon: bool = False, start: bool = False) -> list:
        """The threads running this runner's enqueue ops in `sess` (none if they already run there)."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        if not queue_state.THREADS_AVAILABLE:
            self._add_cooperative_steps(sess, coord)
            return []
        sess._resources.setdefault(queue_state.ON_INTERRUPT, []).append(lambda: self._stop(sess, coord))
        threads = [threading.Thread(target=self._run, args=(sess, op, coord),
                                    name=f"QueueRunnerThread-{self.name}-{op.name}") for op in self._enqueue_ops]
        if coord is not None:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for thread in threads:
            if coord is not None:
                coord.register_thread(thread)
            thread.daemon = daemon
            if start:
                thread.start()
        return threads

    def _add_cooperative_steps(self, sess: Any, coord: Any) -> None:
        """No threads: hand the enqueue steps to the queue, whose waiting dequeues run them (queue_state.py)."""
        op = self._queue.queue_ref.op
        key = queue_state.resource_key(op.name, op.get_attr("shared_name") or "")
        pumps = sess._resources.setdefault(queue_state.COOPERATIVE_RUNNERS, {})  # the session's resource store
        for enqueue_op in self._enqueue_ops:
            pumps.setdefault(key, queue_state.Pumps()).add(self._enqueue_step(sess, enqueue_op, coord, reraise=True))


def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Adds `qr` to the graph's `queue_runners` collection, which `start_queue_runners` starts."""
    context.get_default_graph().add_to_collection(collection, qr)


def start_queue_runners(sess: Any = None, coord: Any = None, daemon: bool = True, start: bool = True,
                        collection: str = GraphKeys.QUEUE_RUNNERS) -> list:
    """Starts every QueueRunner of the graph's collection in `sess` (default: the default session); returns
    the threads (none without threads: the runners then run on demand, see this module's docstring)."""
    if context.executing_eagerly():
        raise RuntimeError("Queues are not compatible with eager execution.")
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not hasattr(sess, "run") or not hasattr(sess, "graph"):
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    runners = sess.graph.get_collection(collection)
    if not runners:
        _log.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined. You can "
                     "safely remove the call to this deprecated function.")
    threads = []
    with sess.graph.as_default():
        for runner in runners:
            threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


__all__ = ["QueueRunner", "add_queue_runner", "start_queue_runners"]
