"""The default-session stack used by `Tensor.eval()` and `Operation.run()` (`with sess.as_default():`)."""

from __future__ import annotations

import threading
from typing import Any


class _SessionStack(threading.local):
    def __init__(self) -> None:
        self.stack: list[Any] = []


_sessions = _SessionStack()


def push_session(session: Any) -> None:
    _sessions.stack.append(session)


def pop_session(session: Any) -> None:
    if _sessions.stack and _sessions.stack[-1] is session:
        _sessions.stack.pop()
    elif session in _sessions.stack:
        _sessions.stack.remove(session)


def get_default_session() -> Any:
    return _sessions.stack[-1] if _sessions.stack else None


def session_for(graph: Any, session: Any, what: str) -> Any:
    """The session to run `what` with, checking that it belongs to `graph` (as TF's eval/run do)."""
    session = session or get_default_session()
    if session is None:
        raise ValueError(
            f"Cannot evaluate tensor using `{what}`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
    if session.graph is not graph:
        raise ValueError(
            "Cannot use the given session to evaluate tensor: the tensor's graph is different from "
            "the session's graph.")
    return session
