"""Session-run hooks (`tf.train.SessionRunHook`, also `tf.estimator.SessionRunHook`): code run around every
`session.run` of training.

A hook may add fetches to a run (`before_run` returns `SessionRunArgs`), read their values (`after_run`)
and ask the loop to stop (`run_context.request_stop()`).
"""

from __future__ import annotations

import collections
from typing import Any

SessionRunArgs = collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])
SessionRunArgs.__new__.__defaults__ = (None, None)
SessionRunValues = collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])


class SessionRunContext:
    def __init__(self, original_args: Any, session: Any):
        self.original_args, self.session, self.stop_requested = original_args, session, False

    def request_stop(self) -> None:
        self.stop_requested = True


class SessionRunHook:
    """The base class: every method does nothing."""

    def begin(self) -> None:
        pass

    def after_create_session(self, session: Any, coord: Any) -> None:
        pass

    def before_run(self, run_context: SessionRunContext) -> Any:
        return None

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        pass

    def end(self, session: Any) -> None:
        pass
