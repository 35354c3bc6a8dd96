"""What a TensorArray holds while a graph runs: its elements, and TensorFlow's rules and run-time messages on them.

A TensorArrayV3 op's handle value *is* its `TensorArrayState` (as a lookup table's handle is its Table), so the
array lives as long as the run that made it, as TensorFlow keeps a TensorArray in the step's container. The
gradient arrays TensorArrayGradV3 makes hang off their forward array, one per gradient source.

While the While gradient replays a loop (ops/functional_ops.py's `replaying()`), the forward ops run a second
time on the same arrays: a write then overwrites what it wrote before and a read ignores clear_after_read,
instead of raising the errors a second write or read gets otherwise.

The elements are NumPy arrays, or CArrays where NumPy is missing (Pyodide): an array does its few element
operations (stack, concat, split, add, zeros) through the set it was made with, `NUMPY_ELEMENTS` here or
backends/portable/tensor_array_elements.py's `PORTABLE_ELEMENTS`.
"""

from __future__ import annotations

import itertools
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError, UnimplementedError
from webflow.framework.tensor_shape import TensorShape

_handle_ids = itertools.count()


class NumpyElements:
    """The element operations of a TensorArray, on NumPy arrays (the same names as `PortableElements`)."""

    @staticmethod
    def as_array(value: Any) -> Any:
        return np.asarray(value)

    @staticmethod
    def scalar(value: Any, dtype: Any) -> Any:
        return np.array(value, dtypes.as_dtype(dtype).as_numpy_dtype)

    @staticmethod
    def vector(values: list, dtype: Any) -> Any:
        return np.array(values, dtypes.as_dtype(dtype).as_numpy_dtype)

    @staticmethod
    def zeros(shape: Any, dtype: Any) -> Any:
        return np.zeros(shape, dtypes.as_dtype(dtype).as_numpy_dtype)

    @staticmethod
    def add(a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def stack(values: list) -> Any:
        return np.stack(values)

    @staticmethod
    def concat(values: list) -> Any:
        return np.concatenate(values, axis=0)

    @staticmethod
    def rows(value: Any, start: int, stop: int) -> Any:
        return value[start:stop]

    @staticmethod
    def row(value: Any, index: int) -> Any:
        return value[index]


NUMPY_ELEMENTS = NumpyElements()


class TensorArrayState:
    """The elements of one TensorArray (None where not yet written), its size rules and its gradient arrays."""

    dtype = dtypes.resource  # what a tensor holding the handle reports
    shape = ()
    ndim = 0

    def __init__(self, dtype: Any, size: int, *, name: str, dynamic_size: bool = False,
                 clear_after_read: bool = True, element_shape: Any = None, identical_element_shapes: bool = False,
                 multiple_writes_aggregate: bool = False, arrays: Any = NUMPY_ELEMENTS):
        self.arrays = arrays  # NUMPY_ELEMENTS or PORTABLE_ELEMENTS: what the elements are
        self.element_dtype = dtypes.as_dtype(dtype)
        self.name = f"{name}_{next(_handle_ids)}"
        self.elements: list = [None] * size
        self.cleared: set = set()
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.element_shape = TensorShape(element_shape)
        self.identical_element_shapes = identical_element_shapes
        self.multiple_writes_aggregate = multiple_writes_aggregate
        self.gradients: dict[str, TensorArrayState] = {}
        self.closed = False

    def __repr__(self) -> str:
        return f"<TensorArray {self.name}: {self.element_dtype.name} x {len(self.elements)}>"

    # --- writing -----------------------------------------------------------------------------------------
    def write(self, index: int, value: Any, replaying: bool = False) -> None:
        """elements[index] = value (added to it in a gradient array), with TensorFlow's checks."""
        value = self.arrays.as_array(value)
        if dtypes.as_dtype(value.dtype) != self.element_dtype:
            raise InvalidArgumentError(None, None, f"TensorArray dtype is {self.element_dtype.name} but Op is "
                                                   f"trying to write dtype {dtypes.as_dtype(value.dtype).name}.")
        self._make_room(index)
        old = self.elements[index]
        self._check_element_shape(index, value)
        if old is not None and self.multiple_writes_aggregate:
            value = self.arrays.add(old, value)
        elif old is not None and not replaying:
            raise InvalidArgumentError(None, None, f"TensorArray {self.name}: Could not write to TensorArray "
                                                   f"index {index} because it has already been written to.")
        self.elements[index] = value
        self.cleared.discard(index)
        if self.identical_element_shapes and not self.element_shape.is_fully_defined():
            self.element_shape = TensorShape(value.shape)

    def _make_room(self, index: int) -> None:
        if index < 0:
            raise InvalidArgumentError(None, None, f"TensorArray {self.name}: Tried to write to index {index} "
                                                   "but array is not resizeable and size is: "
                                                   f"{len(self.elements)}")
        if index >= len(self.elements):
            if not self.dynamic_size:
                raise InvalidArgumentError(None, None, f"TensorArray {self.name}: Tried to write to index {index} "
                                                       "but array is not resizeable and size is: "
                                                       f"{len(self.elements)}")
            self.elements.extend([None] * (index + 1 - len(self.elements)))

    def _check_element_shape(self, index: int, value: Any) -> None:
        if not self.element_shape.is_compatible_with(TensorShape(value.shape)):
            raise InvalidArgumentError(
                None, None, f"TensorArray {self.name}: Could not write to TensorArray index {index} because the "
                            f"value shape is {_text(value.shape)} which is incompatible with the TensorArray's "
                            f"inferred element shape: {_text(self.element_shape.as_list())} (consider setting "
                            "infer_shape=False).")

    # --- reading -----------------------------------------------------------------------------------------
    def read(self, index: int, replaying: bool = False) -> Any:
        """elements[index]; zeros for an element never written when its shape is known (TF 2's rule)."""
        if index < 0 or index >= len(self.elements):
            raise InvalidArgumentError(None, None, f"Tried to read from index {index} but array size is: "
                                                   f"{len(self.elements)}")
        value = self.elements[index]
        if value is None:
            return self._unwritten(index)
        if index in self.cleared and not replaying:
            raise InvalidArgumentError(None, None, f"TensorArray {self.name}: Could not read index {index} twice "
                                                   "because it was cleared after a previous read (perhaps try "
                                                   "setting clear_after_read = false?).")
        if self.clear_after_read and not self.multiple_writes_aggregate:
            self.cleared.add(index)  # the value stays, so that a gradient replay may read it again
        return value

    def _unwritten(self, index: int) -> Any:
        if self.element_shape.is_fully_defined():
            return self.arrays.zeros(self.element_shape.as_list(), self.element_dtype)
        raise InvalidArgumentError(
            None, None, f"TensorArray {self.name}: Could not read from TensorArray index {index}.  Furthermore, the "
                        f"element shape is not fully defined: {_shape_text(self.element_shape)}.  It is possible "
                        "you are working with a resizeable TensorArray and stop_gradients is not allowing the "
                        "gradients to be written.  If you set the full element_shape property on the forward "
                        "TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.")

    def gather(self, indices: list, element_shape: Any, replaying: bool = False) -> Any:
        """stack of elements[i] for i in indices (TensorArrayGatherV3, and stack())."""
        if not indices:
            shape = TensorShape(element_shape).merge_with(self.element_shape) \
                if TensorShape(element_shape).is_compatible_with(self.element_shape) else self.element_shape
            if not shape.is_fully_defined():
                raise UnimplementedError(None, None, "TensorArray has size zero, but element shape "
                                                     f"{_shape_text(shape)} is not fully defined. Currently only "
                                                     "static shapes are supported when packing zero-size "
                                                     "TensorArrays.")
            return self.arrays.zeros([0] + shape.as_list(), self.element_dtype)
        values = [self.read(int(i), replaying) for i in indices]
        first = values[0].shape
        for i, value in zip(indices, values):
            if value.shape != first:
                raise InvalidArgumentError(None, None, f"TensorArray has inconsistent shapes.  Index 0 has "
                                                       f"(possibly, because of a sequence of gathers) shape: "
                                                       f"{_text(first)} but index {i} has shape: "
                                                       f"{_text(value.shape)}")
        return self.arrays.stack(values)

    def size(self) -> int:
        return len(self.elements)

    def gradient_array(self, source: str) -> TensorArrayState:
        """The gradient array for `source` (made on first use, as TensorArrayGradV3 does): same size and element
        shape, and writes to one index add up."""
        grad = self.gradients.get(source)
        if grad is None:
            grad = TensorArrayState(self.element_dtype, len(self.elements), name=self.name + "@" + source,
                                    dynamic_size=False, clear_after_read=self.clear_after_read,
                                    element_shape=self.element_shape,
                                    identical_element_shapes=self.identical_element_shapes,
                                    multiple_writes_aggregate=True, arrays=self.arrays)
            self.gradients[source] = grad
        return grad


def _text(shape: Any) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _shape_text(shape: TensorShape) -> str:
    return "<unknown>" if shape.rank is None else _text(["?" if d is None else d for d in shape.as_list()])
