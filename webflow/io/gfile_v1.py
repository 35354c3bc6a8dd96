"""TF1's `tf.gfile` (`tf.compat.v1.gfile`): the capitalised names of the same functions (gfile.py), with TF1's
argument names; `Open` and `FastGFile` are GFile."""

from __future__ import annotations

import collections.abc
import typing

from webflow.io import gfile
from webflow.io.gfile_stream import GFile

__all__ = ["Copy", "DeleteRecursively", "Exists", "FastGFile", "GFile", "Glob", "IsDirectory", "ListDirectory",
           "MakeDirs", "MkDir", "Open", "Remove", "Rename", "Stat", "Walk"]

Open = GFile


class FastGFile(GFile):
    """Deprecated in TensorFlow ("Use tf.gfile.GFile."): the same file object."""


def Exists(filename: typing.Any) -> bool:  # noqa: N802 - TensorFlow's names
    return gfile.exists(filename)


def IsDirectory(dirname: typing.Any) -> bool:  # noqa: N802
    return gfile.isdir(dirname)


def Stat(filename: typing.Any) -> gfile.FileStatistics:  # noqa: N802
    return gfile.stat(filename)


def Glob(filename: typing.Any) -> list:  # noqa: N802
    return gfile.glob(filename)


def ListDirectory(dirname: typing.Any) -> list:  # noqa: N802
    return gfile.listdir(dirname)


def MkDir(dirname: typing.Any) -> None:  # noqa: N802
    gfile.mkdir(dirname)


def MakeDirs(dirname: typing.Any) -> None:  # noqa: N802
    gfile.makedirs(dirname)


def Remove(filename: typing.Any) -> None:  # noqa: N802
    gfile.remove(filename)


def DeleteRecursively(dirname: typing.Any) -> None:  # noqa: N802
    gfile.rmtree(dirname)


def Rename(oldname: typing.Any, newname: typing.Any, overwrite: bool = False) -> None:  # noqa: N802
    gfile.rename(oldname, newname, overwrite)


def Copy(oldpath: typing.Any, newpath: typing.Any, overwrite: bool = False) -> None:  # noqa: N802
    gfile.copy(oldpath, newpath, overwrite)


def Walk(top: typing.Any, in_order: bool = True) -> collections.abc.Iterator[tuple]:  # noqa: N802
    return gfile.walk(top, topdown=in_order)
