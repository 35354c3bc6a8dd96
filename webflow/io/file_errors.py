"""An OSError of the local file system as the TensorFlow error the same failure raises there.

TensorFlow's POSIX file system turns `errno` into a status code (tensorflow/core/platform/errors.cc, ErrnoToCode)
with the message "<path>; <strerror>", e.g. "/tmp/x.png; No such file or directory" (a NotFoundError).
"""

from __future__ import annotations

import errno
import os

from webflow.framework import errors

_CODE_OF_ERRNO = {
    errno.ENOENT: errors.NotFoundError, errno.ENXIO: errors.NotFoundError, errno.ENODEV: errors.NotFoundError,
    errno.EEXIST: errors.AlreadyExistsError,
    errno.EACCES: errors.PermissionDeniedError, errno.EPERM: errors.PermissionDeniedError,
    errno.EROFS: errors.PermissionDeniedError,
    errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EBUSY: errors.FailedPreconditionError,
    errno.ETXTBSY: errors.FailedPreconditionError, errno.ELOOP: errors.FailedPreconditionError,
    errno.EINVAL: errors.InvalidArgumentError, errno.ENAMETOOLONG: errors.InvalidArgumentError,
    errno.ESPIPE: errors.InvalidArgumentError, errno.EBADF: errors.FailedPreconditionError,
    errno.ENOSPC: errors.ResourceExhaustedError, errno.EMFILE: errors.ResourceExhaustedError,
    errno.ENFILE: errors.ResourceExhaustedError, errno.ENOMEM: errors.ResourceExhaustedError,
    errno.EFBIG: errors.OutOfRangeError, errno.EOVERFLOW: errors.OutOfRangeError,
    errno.ENOSYS: errors.UnimplementedError, errno.EAGAIN: errors.UnavailableError,
}


def io_error(path: str, error: OSError) -> errors.OpError:
    """The TensorFlow error for `error` (an OSError about `path`): "<path>; <strerror>"."""
    code = error.errno if error.errno is not None else errno.EIO
    cls = _CODE_OF_ERRNO.get(code, errors.UnknownError)
    return cls(None, None, f"{path}; {os.strerror(code)}")


def path_text(path: object) -> str:
    """A path as TensorFlow's `compat.path_to_str` gives it: str, bytes (UTF-8) or an os.PathLike."""
    path = os.fspath(path)
    return path.decode("utf-8") if isinstance(path, bytes) else path
