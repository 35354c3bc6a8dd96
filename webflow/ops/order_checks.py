"""`tf.math.is_non_decreasing` / `is_strictly_increasing` (also TF1's `tf.debugging.*` and top-level names) and
`tf.debugging.assert_same_float_dtype`, with TensorFlow's rules and messages.

The order checks compare the flattened x's neighbours: x[1:] >= x[:-1] (or >) everywhere. TensorFlow guards the
comparison with a cond for fewer than two elements; here both slices are then empty and reduce_all of nothing is
True, the same answer without the cond.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.framework import dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.ops import array_ops, logic_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.rank_checks import is_numeric_tensor
from webflow.ops.reduction_ops import reduce_all


def _neighbours_hold(x: Any, compare: Callable, name: str | None, default: str) -> Any:
    with name_scope_v1(name, default):
        x = array_ops.reshape(convert_to_tensor(x), [-1])
        if not is_numeric_tensor(x):
            raise TypeError(f"Expected x to be numeric, instead found: {x!s}")
        return reduce_all(compare(x[1:], x[:-1]))


def is_non_decreasing(x: Any, name: str | None = None) -> Any:
    """True when every element of flattened x is >= the one before it (True for fewer than two elements)."""
    return _neighbours_hold(x, logic_ops.greater_equal, name, "is_non_decreasing")


def is_strictly_increasing(x: Any, name: str | None = None) -> Any:
    """True when every element of flattened x is > the one before it (True for fewer than two elements)."""
    return _neighbours_hold(x, logic_ops.greater, name, "is_strictly_increasing")


def _label(item: Any) -> str:
    try:
        return item.name  # (an eager tensor has none: TensorFlow then shows str(item))
    except AttributeError:
        return str(item)


def _same_base_type(items: list, expected: Any = None) -> Any:
    """The one base dtype of `items` (None entries skipped), or ValueError naming the first that differs."""
    found = expected
    for item in items:
        if item is None:
            continue
        if not found:
            found, first = item.dtype.base_dtype, _label(item)
        elif item.dtype.base_dtype != found:
            shown = f" as {first}" if not expected else ""
            raise ValueError(f"{_label(item)}, type={item.dtype.base_dtype}, must be of the same type ({found})"
                             f"{shown}.")
    return found


def assert_same_float_dtype(tensors: Any = None, dtype: Any = None) -> Any:
    """The float dtype all `tensors` share (and `dtype`, if given); float32 when neither is given. ValueError when
    they differ or the type is not floating point."""
    if tensors:
        dtype = _same_base_type(list(tensors), dtype)
    if not dtype:
        return dtypes.float32
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype
