"""What a strided slice selects: TensorFlow's StridedSlice masks read as Python index items, and its static shape.

`x[1:, ..., None]` becomes StridedSlice(begin, end, strides) plus five bit masks (begin, end, ellipsis,
new_axis, shrink_axis). These functions turn them back into index items and compute the result's shape
at graph-build time; the kernels of every backend use the same items, so all agree on what is selected.
Plain Python on TensorShape: no NumPy, nothing from ops/.
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.framework.errors import ShapeError
from webflow.framework.tensor_shape import TensorShape


def index_items(begin: Any, end: Any, strides: Any, attrs: dict) -> list:
    """The NumPy index items the vectors and masks stand for: int, slice, None (new axis) or Ellipsis.

    Unknown (non-constant) begin/end values appear as the marker `UNKNOWN` inside slices.
    """
    count = len(strides)
    items: list = []
    for i in builtins.range(count):
        bit = 1 << i
        if attrs["ellipsis_mask"] & bit:
            items.append(Ellipsis)
        elif attrs["new_axis_mask"] & bit:
            items.append(None)
        elif attrs["shrink_axis_mask"] & bit:
            items.append(_entry(begin, i))
        else:
            if strides[i] is not UNKNOWN and int(strides[i]) == 0:
                raise ShapeError(f"strides[{i}] must be non-zero")
            start = None if attrs["begin_mask"] & bit else _entry(begin, i)
            stop = None if attrs["end_mask"] & bit else _entry(end, i)
            items.append(builtins.slice(start, stop, strides[i] if strides[i] is UNKNOWN else int(strides[i])))
    return items


class _Unknown:
    def __repr__(self) -> str:
        return "?"


UNKNOWN = _Unknown()


def _entry(vector: Any, i: int) -> Any:
    return UNKNOWN if vector is None else int(vector[i])


def expand_items(items: list, rank: int) -> list:
    """Pairs (item, input dim index or None): `...` becomes full slices; missing trailing dims too."""
    if sum(item is Ellipsis for item in items) > 1:
        raise ShapeError("Multiple ellipses in slice spec not allowed")
    consuming = sum(item is not None and item is not Ellipsis for item in items)
    if consuming > rank:
        raise ShapeError(f"Index out of range using input dim {rank}; input has only {rank} dims")
    if Ellipsis not in items:
        items = items + [Ellipsis]
    pairs, dim = [], 0
    for item in items:
        if item is Ellipsis:
            for _ in builtins.range(rank - consuming):
                pairs.append((builtins.slice(None), dim))
                dim += 1
        elif item is None:
            pairs.append((None, None))
        else:
            pairs.append((item, dim))
            dim += 1
    return pairs


def _slice_length(item: builtins.slice, size: int | None) -> int | None:
    if size is None or UNKNOWN in (item.start, item.stop, item.step):
        return None
    return len(builtins.range(*item.indices(size)))


def sliced_shape(shape: TensorShape, items: list) -> TensorShape:
    """The static shape of x[items] (partial shapes: unknown sizes and unknown bounds give None)."""
    if shape.rank is None:
        return TensorShape(None)
    dims = shape.as_tuple()
    result = []
    for item, dim in expand_items(items, len(dims)):
        if item is None:
            result.append(1)
        elif isinstance(item, builtins.slice):
            result.append(_slice_length(item, dims[dim]))
        elif item is not UNKNOWN and dims[dim] is not None and not -dims[dim] <= item < dims[dim]:
            raise ShapeError(f"slice index {item} of dimension {dim} out of bounds.")
    return TensorShape(result)
