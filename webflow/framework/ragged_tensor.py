"""`RaggedTensor`: rows of different lengths, as a flat `values` tensor cut by `row_splits`.

    rt = tf.RaggedTensor.from_row_splits(values=[3, 1, 4, 1, 5], row_splits=[0, 2, 2, 5])
    rt.to_list()      # [[3, 1], [], [4, 1, 5]]: row i is values[row_splits[i]:row_splits[i + 1]]

A minimal, honest version of TensorFlow's (one ragged dimension, 1-D values): `tf.strings.split` returns one.
The methods that build ops (`from_row_splits`, `to_tensor`, `to_sparse`, `nrows`, `row_lengths`) are
ops/ragged_ops.py, installed here when it is imported (framework/ sits below ops/, as for SparseTensor).
`Session.run` fetches one as a `RaggedTensorValue` (NumPy values and row_splits, with `to_list()`).
"""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor_shape import TensorShape

_OPS: dict = {}  # name -> function, installed by ops/ragged_ops.py


def install_ops(functions: dict) -> None:
    """Called by ops/ragged_ops.py on import: the op-building methods of RaggedTensor."""
    _OPS.update(functions)


def _rows(values: list, splits: list) -> list:
    return [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]


class RaggedTensorValue:
    """A fetched RaggedTensor: `values` and `row_splits` arrays."""

    def __init__(self, values: Any, row_splits: Any):
        self.values = values
        self.row_splits = row_splits

    def to_list(self) -> list:
        return _rows(list(self.values.tolist()), [int(s) for s in self.row_splits.tolist()])

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self.values!r}, row_splits={self.row_splits!r})"


class RaggedTensor:
    """Row i of the ragged tensor is values[row_splits[i] : row_splits[i + 1]]."""

    def __init__(self, values: Any, row_splits: Any):
        self._values = values
        self._row_splits = row_splits

    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        return _OPS["from_row_splits"](values, row_splits, name, validate)

    values = property(lambda self: self._values)
    flat_values = values
    row_splits = property(lambda self: self._row_splits)
    dtype = property(lambda self: self._values.dtype)
    ragged_rank = 1

    @property
    def shape(self) -> TensorShape:
        splits = self._row_splits.shape.as_tuple()
        rows = None if splits is None or splits[0] is None else splits[0] - 1
        return TensorShape([rows, None])

    def get_shape(self) -> TensorShape:
        return self.shape

    def nrows(self, out_type: Any = None, name: str | None = None) -> Any:
        return _OPS["nrows"](self, out_type, name)

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        return _OPS["row_lengths"](self, name)

    def to_tensor(self, default_value: Any = None, name: str | None = None, shape: Any = None) -> Any:
        return _OPS["to_tensor"](self, default_value, name)

    def to_sparse(self, name: str | None = None) -> Any:
        return _OPS["to_sparse"](self, name)

    def to_list(self) -> list:
        """The rows as Python lists (eager tensors only; fetch a graph one with Session.run)."""
        values, splits = self._values.numpy(), self._row_splits.numpy()
        return RaggedTensorValue(values, splits).to_list()

    def numpy(self) -> Any:
        """As TensorFlow: a 2-D array when every row has one length, else a 1-D object array of row arrays."""
        import numpy  # (eager tensors only, and only where NumPy exists)

        values, splits = self._values.numpy(), self._row_splits.numpy().tolist()
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return numpy.zeros((0, 0), dtype=values.dtype)
        ragged = any(len(row) != len(rows[0]) for row in rows)
        if not ragged:
            return numpy.array(rows)
        out = numpy.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    def _fetch_components(self) -> tuple:
        return [self._values, self._row_splits], RaggedTensorValue

    def __repr__(self) -> str:
        if not hasattr(self._values, "numpy"):
            return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"
        try:
            import numpy
        except ImportError:
            return f"<tf.RaggedTensor {self.to_list()}>"
        with numpy.printoptions(formatter={"all": _formatter}):  # TensorFlow's layout: rows as lists, ", " between
            return f"<tf.RaggedTensor {_formatter(self.numpy())}>"


def _formatter(value: Any) -> str:
    import numpy

    if isinstance(value, numpy.ndarray):
        return numpy.array2string(value, separator=", ") if value.size else repr(value.tolist())
    return str(value)


__all__ = ["RaggedTensor", "RaggedTensorValue", "install_ops"]
