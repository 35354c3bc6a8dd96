"""Dataset values that group elements: batch, padded_batch, unbatch, window (TensorFlow's kernels of those names)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework.errors import InvalidArgumentError
from webflow.ops import dataset_elements as elements
from webflow.ops.dataset_values import INFINITE, DatasetValue, ListValue


def _groups(source: Iterator[list], size: int, drop_remainder: bool) -> Iterator[list]:
    group: list = []
    for element in source:
        group.append(element)
        if len(group) == size:
            yield group
            group = []
    if group and not drop_remainder:
        yield group


def _batched_cardinality(inner: int, size: int, drop_remainder: bool) -> int:
    if inner < 0:
        return inner
    return inner // size if drop_remainder else -(-inner // size)


class BatchValue(DatasetValue):
    def __init__(self, source: DatasetValue, batch_size: int, drop_remainder: bool):
        if batch_size < 1:
            raise InvalidArgumentError(None, None, f"Batch size must be greater than zero, got {batch_size}")
        self.source, self.batch_size, self.drop_remainder = source, batch_size, drop_remainder

    def elements(self, context: Any = None) -> Iterator[list]:
        for group in _groups(self.source.elements(context), self.batch_size, self.drop_remainder):
            yield [self._stack([element[i] for element in group], i) for i in range(len(group[0]))]

    @staticmethod
    def _stack(rows: list, component: int) -> Any:
        shapes = {tuple(backend_values.shape_of(r)) for r in rows}
        if len(shapes) > 1:
            first, other = sorted(shapes)[:2]
            raise InvalidArgumentError(None, None, "Cannot add tensor to the batch: number of elements does not "
                                       f"match. Shapes are: [tensor]: {list(first)}, [batch]: {list(other)} "
                                       f"(component {component})")
        return elements.stack(rows)

    def cardinality(self) -> int:
        return _batched_cardinality(self.source.cardinality(), self.batch_size, self.drop_remainder)


class PaddedBatchValue(DatasetValue):
    """Batches, padding each component at the end of each dimension: to `padded_shapes` where known (-1: the
    batch's largest), with `padding_values` (one scalar per component)."""

    def __init__(self, source: DatasetValue, batch_size: int, padded_shapes: list, padding_values: list,
                 drop_remainder: bool):
        self.source, self.batch_size, self.drop_remainder = source, batch_size, drop_remainder
        self.padded_shapes, self.padding_values = padded_shapes, padding_values

    def elements(self, context: Any = None) -> Iterator[list]:
        for group in _groups(self.source.elements(context), self.batch_size, self.drop_remainder):
            yield [self._pad_and_stack([e[i] for e in group], i) for i in range(len(group[0]))]

    def _pad_and_stack(self, rows: list, component: int) -> Any:
        wanted = self.padded_shapes[component]
        shapes = [tuple(backend_values.shape_of(r)) for r in rows]
        target = []
        for axis, size in enumerate(wanted):
            largest = max(s[axis] for s in shapes)
            if size >= 0 and largest > size:
                raise InvalidArgumentError(None, None, f"Attempted to pad to a smaller size than the input "
                                           f"element. Component {component}, dimension {axis}: {largest} > {size}")
            target.append(size if size >= 0 else largest)
        padding = backend_values.flat_list(self.padding_values[component])[0]
        return elements.stack([elements.pad_to(r, tuple(target), padding) for r in rows])

    def cardinality(self) -> int:
        return _batched_cardinality(self.source.cardinality(), self.batch_size, self.drop_remainder)


class UnbatchValue(DatasetValue):
    def __init__(self, source: DatasetValue):
        self.source = source

    def elements(self, context: Any = None) -> Iterator[list]:
        for element in self.source.elements(context):
            sizes = {elements.leading_dim(c) for c in element}
            if len(sizes) > 1:
                raise InvalidArgumentError(None, None, "Input element must have the same batch size in each "
                                           f"component. Component 0 had size {elements.leading_dim(element[0])}")
            for i in range(sizes.pop()):
                yield [elements.row(c, i) for c in element]


class WindowValue(DatasetValue):
    """Elements are windows: per component, a dataset of `size` consecutive input elements; the next window
    starts `shift` elements later, and takes every `stride`-th element."""

    def __init__(self, source: DatasetValue, size: int, shift: int, stride: int, drop_remainder: bool):
        for name, value in (("size", size), ("shift", shift), ("stride", stride)):
            if value < 1:
                raise InvalidArgumentError(None, None, f"Window {name} must be greater than zero, but got {value}.")
        self.source, self.size, self.shift, self.stride = source, size, shift, stride
        self.drop_remainder = drop_remainder

    def elements(self, context: Any = None) -> Iterator[list]:
        span = (self.size - 1) * self.stride + 1
        pending: list = []
        skip = 0  # a shift longer than the window skips input elements
        for element in self.source.elements(context):
            if skip:
                skip -= 1
                continue
            pending.append(element)
            if len(pending) == span:
                yield self._window(pending)
                skip = max(0, self.shift - span)
                pending = pending[self.shift:]
        while pending and not self.drop_remainder:
            yield self._window(pending)
            pending = pending[self.shift:]

    def _window(self, pending: list) -> list:
        picked = pending[:(self.size - 1) * self.stride + 1:self.stride]
        return [ListValue([[e[i]] for e in picked]) for i in range(len(picked[0]))]

    def cardinality(self) -> int:
        inner = self.source.cardinality()
        if inner < 0:
            return inner if inner != INFINITE else INFINITE
        if self.drop_remainder:
            span = (self.size - 1) * self.stride + 1
            return 0 if inner < span else (inner - span) // self.shift + 1
        return -(-inner // self.shift)


__all__ = ["BatchValue", "PaddedBatchValue", "UnbatchValue", "WindowValue"]
