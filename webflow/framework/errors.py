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

    def __init__(self, node_def: Any, op: Any, message: str, *args: Any):
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


def _error_class(name: str, code: int, doc: str) -> type:
    def __init__(self, node_def: Any = None, op: Any = None, message: str = "", *args: Any):
        OpError.__init__(self, node_def, op, message)

    return type(name, (OpError,), {"__init__": __init__, "error_code": code, "__doc__": doc})


CancelledError = _error_class("CancelledError", CANCELLED, "The operation was cancelled.")
UnknownError = _error_class("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _error_class("InvalidArgumentError", INVALID_ARGUMENT, "An op got a bad argument at run time.")
DeadlineExceededError = _error_class("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _error_class("NotFoundError", NOT_FOUND, "A requested entity (file, variable) was not found.")
AlreadyExistsError = _error_class("AlreadyExistsError", ALREADY_EXISTS, "The entity already exists.")
PermissionDeniedError = _error_class("PermissionDeniedError", PERMISSION_DENIED, "Not permitted.")
UnauthenticatedError = _error_class("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _error_class("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of memory or quota.")
FailedPreconditionError = _error_class(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run the op (e.g. uninitialized variable).")
AbortedError = _error_class("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _error_class("OutOfRangeError", OUT_OF_RANGE, "Iterated past the end of a dataset or range.")
UnimplementedError = _error_class("UnimplementedError", UNIMPLEMENTED, "The operation is not implemented.")
InternalError = _error_class("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _error_class("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _error_class("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption (e.g. a bad record).")

_BY_CODE = {cls.error_code: cls for cls in (
    CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, UnauthenticatedError, ResourceExhaustedError,
    FailedPreconditionError, AbortedError, OutOfRangeError, UnimplementedError, InternalError,
    UnavailableError, DataLossError)}


def exception_type_from_error_code(error_code: int) -> type:
    return _BY_CODE[error_code]
