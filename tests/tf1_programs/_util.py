"""Small helpers the programs share (no framework import: each program receives `tf`)."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

# tf.errors' public classes: with the builtin exceptions, the types a TF1 program can catch by name
TF_ERROR_NAMES = {
    "OpError", "CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError", "NotFoundError",
    "AlreadyExistsError", "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
    "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
    "UnavailableError", "DataLossError",
}


def public_error_name(error: BaseException) -> str:
    """The most specific public class of `error`: a tf.errors class or a builtin exception.

    Private subclasses count as their public base, so TensorFlow's OperatorNotAllowedInGraphError
    is a TypeError and webflow's ShapeError is a ValueError: what `except` clauses in user code see.
    """
    for cls in type(error).__mro__:
        if cls.__name__ in TF_ERROR_NAMES or getattr(builtins, cls.__name__, None) is cls:
            return cls.__name__
    return type(error).__name__


def error_name(function: Callable[[], Any]) -> str:
    """The public class name of the exception `function()` raises, or "no error"."""
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the type's name is the result
        return public_error_name(error)
    return "no error"


def op_names(graph: Any) -> list[str]:
    return [op.name for op in graph.get_operations()]
