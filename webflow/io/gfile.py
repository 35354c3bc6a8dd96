"""`tf.io.gfile` of TF2 (also `tf.compat.v1.io.gfile`): files and folders on the local file system with TensorFlow's
behaviour and errors. TF1's capitalised `tf.gfile` names are gfile_v1.py; the GFile class is gfile_stream.py.

Errors as TensorFlow's POSIX file system raises them (file_errors.py): "<path>; No such file or directory"
(NotFoundError), "file already exists" (AlreadyExistsError from rename/copy without overwrite), "Could not find
directory <path>" (listdir), "<path> is not a directory" (makedirs through a file).
"""

from __future__ import annotations

import fnmatch
import os
import shutil
from collections.abc import Iterator
from typing import Any

from webflow.framework import errors
from webflow.io.file_errors import io_error, path_text
from webflow.io.gfile_stream import GFile

__all__ = ["GFile", "copy", "exists", "glob", "isdir", "join", "listdir", "makedirs", "mkdir", "remove", "rename",
           "rmtree", "stat", "walk"]


class FileStatistics:
    """What `stat` returns: length in bytes, mtime_nsec (whole seconds, in nanoseconds, as TensorFlow's POSIX
    file system reports it) and is_directory."""

    def __init__(self, length: int = 0, mtime_nsec: int = 0, is_directory: bool = False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def exists(path: Any) -> bool:
    """True when `path` (a file or a folder) exists."""
    return os.path.exists(path_text(path))


def isdir(path: Any) -> bool:
    return os.path.isdir(path_text(path))


def stat(path: Any) -> FileStatistics:
    path = path_text(path)
    try:
        info = os.stat(path)
    except OSError as error:
        raise io_error(path, error) from None
    return FileStatistics(info.st_size, int(info.st_mtime) * 1_000_000_000, os.path.isdir(path))


def listdir(path: Any) -> list:
    """The names in folder `path` (no "." or ".."), in the file system's order."""
    path = path_text(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def mkdir(path: Any) -> None:
    """Creates folder `path`; its parent must exist. Nothing happens when `path` exists (as in TensorFlow)."""
    path = path_text(path)
    try:
        os.mkdir(path)
    except FileExistsError:
        pass
    except OSError as error:
        raise io_error(path, error) from None


def makedirs(path: Any) -> None:
    """Creates folder `path` and every missing parent; a file on the way is a FailedPreconditionError."""
    path = path_text(path)
    parts = path.split(os.sep)
    for end in range(1, len(parts) + 1):
        prefix = os.sep.join(parts[:end])
        if not prefix:
            continue
        if os.path.exists(prefix):
            if not os.path.isdir(prefix):
                raise errors.FailedPreconditionError(None, None, f"{prefix} is not a directory")
            continue
        mkdir(prefix)


def remove(path: Any) -> None:
    """Deletes file `path` (a folder is a FailedPreconditionError: "<path>; Is a directory")."""
    path = path_text(path)
    try:
        os.unlink(path)
    except OSError as error:
        raise io_error(path, error) from None


def rmtree(path: Any) -> None:
    """Deletes `path`, a folder with everything under it or a single file."""
    path = path_text(path)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError as error:
        raise io_error(getattr(error, "filename", None) or path, error) from None


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Moves `src` to `dst`; without `overwrite` an existing `dst` is an AlreadyExistsError."""
    src, dst = path_text(src), path_text(dst)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.rename(src, dst)
    except OSError as error:
        raise io_error(src, error) from None


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies file `src` to `dst`; without `overwrite` an existing `dst` is an AlreadyExistsError."""
    src, dst = path_text(src), path_text(dst)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if os.path.isdir(src):  # TensorFlow opens the folder, creates the target, then sendfile() fails: EINVAL
        _open_for_writing(dst).close()
        raise errors.InvalidArgumentError(None, None, f"{dst}; Invalid argument")
    try:
        source = open(src, "rb")  # noqa: SIM115 - closed below
    except OSError as error:
        raise io_error(src, error) from None
    with source, _open_for_writing(dst) as target:
        shutil.copyfileobj(source, target)


def _open_for_writing(path: str) -> Any:
    try:
        return open(path, "wb")  # noqa: SIM115 - the caller closes it
    except OSError as error:
        raise io_error(path, error) from None


def glob(pattern: Any) -> list:
    """The paths matching `pattern` (or any of a list of patterns): "*", "?" and "[...]" within one path component
    (fnmatch without special dot files, as TensorFlow's MatchPath); a missing folder matches nothing."""
    if isinstance(pattern, (list, tuple)):
        return [match for one in pattern for match in glob(one)]
    pattern = path_text(pattern)
    parts = pattern.split(os.sep)
    first = next((i for i, part in enumerate(parts) if _has_wildcard(part)), None)
    if first is None:
        return [pattern] if os.path.exists(pattern) else []
    candidates = [os.sep.join(parts[:first]) or (os.sep if pattern.startswith(os.sep) else "")]
    for part in parts[first:]:
        candidates = [path for base in candidates for path in _matches_in(base, part)]
    return candidates


def _has_wildcard(part: str) -> bool:
    return any(c in part for c in "*?[")


def _matches_in(base: str, part: str) -> list:
    if not _has_wildcard(part):
        path = _join_component(base, part)
        return [path] if os.path.exists(path) else []
    folder = base if base else "."
    if not os.path.isdir(folder):
        return []
    return [_join_component(base, name) for name in os.listdir(folder) if fnmatch.fnmatchcase(name, part)]


def _join_component(base: str, name: str) -> str:
    if base == "" and name:
        return name
    return base + name if base.endswith(os.sep) else base + os.sep + name


def walk(top: Any, topdown: bool = True, onerror: Any = None) -> Iterator[tuple]:
    """(folder, subfolder names, file names) for `top` and every folder below it; a missing `top` yields nothing
    (`onerror` is called with the NotFoundError first)."""
    top = path_text(top)
    try:
        listing = listdir(top)
    except errors.NotFoundError as error:
        if onerror is not None:
            onerror(error)
        return
    subdirs = [name for name in listing if isdir(os.path.join(top, name))]
    files = [name for name in listing if name not in subdirs]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(os.path.join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path: Any, *paths: Any) -> str:
    """`os.path.join` for local paths; "scheme://" paths are joined with "/"."""
    path = path_text(path)
    if "://" in path[1:]:
        return "/".join([path.rstrip("/")] + [path_text(p).strip("/") for p in paths])
    return os.path.join(path, *(path_text(p) for p in paths))
