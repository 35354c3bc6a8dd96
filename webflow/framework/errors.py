"""TensorFlow's error classes (`tf.errors.*`), raised at run time; build-time problems are ValueError/TypeError."""

from __future__ import annotations

from typing import Any

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A run-time failure of an op; `node_def`/`op` name where it happened, as in TensorFlow."""

    error_code = UNKNOWN

    def __init__(self, node_def: Any = None, op: Any = None, message: str = "", *args: Any):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self) -> Any:
        return self._op

    @property
    def node_def(self) -> Any:
        return self._node_def

    def __str__(self) -> str:
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, self._op, self._message)


class CancelledError(OpError):
    """The operation was cancelled."""

    error_code = CANCELLED


class UnknownError(OpError):
    """An unknown error."""

    error_code = UNKNOWN


class InvalidArgumentError(OpError):
    """An op got a bad argument at run time (a wrong shape, an index out of range, an unfed placeholder)."""

    error_code = INVALID_ARGUMENT


class DeadlineExceededError(OpError):
    """A deadline expired."""

    error_code = DEADLINE_EXCEEDED


class NotFoundError(OpError):
    """A requested entity (a file, a variable in a checkpoint) was not found."""

    error_code = NOT_FOUND


class AlreadyExistsError(OpError):
    """The entity already exists."""

    error_code = ALREADY_EXISTS


class PermissionDeniedError(OpError):
    """Not permitted."""

    error_code = PERMISSION_DENIED


class UnauthenticatedError(OpError):
    """No valid credentials."""

    error_code = UNAUTHENTICATED


class ResourceExhaustedError(OpError):
    """Out of memory or quota."""

    error_code = RESOURCE_EXHAUSTED


class FailedPreconditionError(OpError):
    """The system is not in a state to run the op (e.g. an uninitialized variable)."""

    error_code = FAILED_PRECONDITION


class AbortedError(OpError):
    """The operation was aborted."""

    error_code = ABORTED


class OutOfRangeError(OpError):
    """Iterated past the end of a dataset or range."""

    error_code = OUT_OF_RANGE


class UnimplementedError(OpError):
    """The operation is not implemented."""

    error_code = UNIMPLEMENTED


class InternalError(OpError):
    """An internal invariant was broken."""

    error_code = INTERNAL


class UnavailableError(OpError):
    """The runtime is unavailable."""

    error_code = UNAVAILABLE


class DataLossError(OpError):
    """Unrecoverable data loss or corruption (e.g. a corrupt record)."""

    error_code = DATA_LOSS


_BY_CODE = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


def exception_type_from_error_code(error_code: int) -> type:
    return _BY_CODE[error_code]


class ShapeError(ValueError):
    """A shape or dtype rule rejected its inputs at graph-build time (TensorFlow raises ValueError)."""
