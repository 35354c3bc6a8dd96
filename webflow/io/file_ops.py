"""Whole files as string tensors: the ReadFile op (`tf.io.read_file`, TF1's `tf.read_file`) and WriteFile
(`tf.io.write_file`, TF1's `tf.write_file`), as TensorFlow's io_ops have them.

They live in io/, not ops/, because a failed open is the TensorFlow error of io/file_errors.py ("<path>; No such
file or directory", a NotFoundError). WriteFile creates the missing parent directories, as TensorFlow does, and
writes to a temporary file renamed into place, so a reader never sees a half-written file. The kernels are plain
Python, so they also run without NumPy. Neither op has a gradient in TensorFlow (LookupError when differentiated).
"""

from __future__ import annotations

import os
from typing import Any

from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.io.file_errors import io_error
from webflow.ops.parsing_ops import string_input
from webflow.ops.registry import apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs


def _path(filename: Any) -> str:
    shape = tuple(filename.shape)
    if shape != ():
        raise InvalidArgumentError(None, None, f"Input filename tensor must be scalar, but had shape: "
                                               f"[{','.join(str(d) for d in shape)}]")
    path = filename.item()
    return path.decode("utf-8") if isinstance(path, bytes) else str(path)


def _read_file_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.string)


def read_file_kernel(filename: Any) -> Any:
    """contents = the bytes of the file `filename` (a scalar string)."""
    path = _path(filename)
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise io_error(path, error) from None
    return string_input(data)  # a scalar string array of this process's storage


register_op("ReadFile", "ReadFile", inputs=("filename",), shape=_read_file_shape,
            portable=read_file_kernel)(read_file_kernel)


def write_file_kernel(filename: Any, contents: Any) -> None:
    """Writes `contents` (a scalar string) to the file `filename`, creating its directory; nothing comes out."""
    path = _path(filename)
    data = contents.item()
    data = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    temporary = f"{path}.tmp{os.getpid()}"
    try:
        directory = os.path.dirname(path)
        if directory:
            _make_directories(directory)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except OSError as error:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise io_error(path if error.filename in (None, temporary) else error.filename, error) from None


def _make_directories(directory: str) -> None:
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as error:
        raise io_error(error.filename or directory, error) from None


register_op("WriteFile", "WriteFile", inputs=("filename", "contents"), shape=no_outputs, stateful=True,
            portable=write_file_kernel)(write_file_kernel)


def read_file(filename: Any, name: str | None = None) -> Any:
    """`tf.io.read_file`: the whole file as a scalar string tensor."""
    return apply_op("ReadFile", [string_input(filename)], name=name)


def write_file(filename: Any, contents: Any, name: str | None = None) -> Any:
    """`tf.io.write_file`: writes `contents` to `filename` (an op in a graph; done at once eagerly)."""
    return apply_op("WriteFile", [string_input(filename), string_input(contents)], name=name)


__all__ = ["read_file", "write_file"]
