"""`tf.train.Coordinator`: lets a set of threads stop together, and brings a thread's exception to the main thread.

Threads poll `should_stop()`; any of them (or the main thread) calls `request_stop(exception)`; the main thread's
`join(threads)` waits for them all, then re-raises the first exception reported (OutOfRangeError, the normal end
of an input pipeline, counts as a clean stop). `LooperThread` runs a function every few seconds until the stop.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from webflow.framework import errors


class Coordinator:
    """`tf.train.Coordinator(clean_stop_exception_types=(tf.errors.OutOfRangeError,))`."""

    def __init__(self, clean_stop_exception_types: Any = None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise: tuple | None = None
        self._joined = False
        self._registered_threads: set = set()

    def _filter_exception(self, ex: Any) -> Any:
        exception = ex[1] if isinstance(ex, tuple) else ex
        return None if isinstance(exception, self._clean_stop_exception_types) else ex

    def request_stop(self, ex: Any = None) -> None:
        """Asks every thread to stop; `ex` (an exception or sys.exc_info() tuple) is re-raised by `join`."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:  # too late for join to report it: raise it here
                if isinstance(ex, tuple):
                    raise ex[1]
                if ex is not None:
                    raise ex
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                self._exc_info_to_raise = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
            self._stop_event.set()

    def clear_stop(self) -> None:
        """Forgets the stop request and the exception, so the coordinator can be used again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            self._stop_event.clear()

    def should_stop(self) -> bool:
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self) -> Iterator[None]:
        """`with coord.stop_on_exception():` an exception in the block becomes `request_stop(exception)`."""
        try:
            yield
        except:  # noqa: E722 - as TensorFlow: even KeyboardInterrupt stops the other threads
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout: float | None = None) -> bool:
        """Waits until a stop is requested (or `timeout` seconds); True if it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread: threading.Thread) -> None:
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads: Any = None, stop_grace_period_secs: float = 120,
             ignore_live_threads: bool = False) -> None:
        """Waits for `threads` (and the registered ones) to end, or for a stop request and then at most
        `stop_grace_period_secs`; re-raises the reported exception, else RuntimeError naming live threads."""
        with self._lock:
            threads = list(self._registered_threads if threads is None else self._registered_threads | set(threads))
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        _wait_for_threads(threads, stop_grace_period_secs)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]
            if stragglers and not ignore_live_threads:
                raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self) -> bool:
        return self._joined

    def raise_requested_exception(self) -> None:
        with self._lock:
            if self._exc_info_to_raise:
                raise self._exc_info_to_raise[1]

    def loop(self, timer_interval_secs: float, target: Callable, args: Any = None, kwargs: Any = None) -> Any:
        """Starts a LooperThread calling `target(*args, **kwargs)` every `timer_interval_secs`."""
        looper = LooperThread(self, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper


def _wait_for_threads(threads: list, grace: float) -> None:
    """Sleeps in doubling steps (1 ms up) while threads are alive, for at most `grace` seconds."""
    step = 0.001
    while any(t.is_alive() for t in threads) and grace >= 0.0:
        time.sleep(step)
        grace -= step
        step = max(min(2 * step, grace), 0.001)


class LooperThread(threading.Thread):
    """A thread that calls `target` (or `run_loop`) every `timer_interval_secs` until the coordinator stops."""

    def __init__(self, coord: Coordinator, timer_interval_secs: float | None, target: Callable | None = None,
                 args: Any = None, kwargs: Any = None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        self._args = args or ()
        self._kwargs = kwargs or {}
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord: Coordinator, timer_interval_secs: float, target: Callable, args: Any = None,
             kwargs: Any = None) -> LooperThread:
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self) -> None:
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:  # run once, until it returns
                self.run_loop()
            else:
                next_time = time.time()
                while not self._coord.wait_for_stop(max(0.0, next_time - time.time())):
                    next_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self) -> None:
        """Called once when the thread starts."""

    def stop_loop(self) -> None:
        """Called once when the thread stops."""

    def run_loop(self) -> None:
        if self._target:
            self._target(*self._args, **self._kwargs)


__all__ = ["Coordinator", "LooperThread"]
