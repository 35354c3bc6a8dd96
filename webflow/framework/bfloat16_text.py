"""How a bfloat16 value prints: as NumPy prints an ml_dtypes bfloat16 array (what TensorFlow's `.numpy()` is).

A bfloat16 tensor holds float32 storage (backends/bfloat16.py), whose own text would show float32 digits
(`3.140625`); TensorFlow's arrays print each element in C++'s default float format, six significant digits
(`3.14062`), unpadded, and end with `dtype=bfloat16`.
"""

from __future__ import annotations

from typing import Any


def element_text(value: float) -> str:
    """One element as ml_dtypes prints it: `%g` (six significant digits, no padding)."""
    return f"{value:g}"


def bfloat16_text(value: Any, is_repr: bool) -> str:
    """The `numpy=` part of a bfloat16 tensor's repr (is_repr) or its str."""
    try:
        import numpy  # lazy: the framework imports without NumPy
    except ImportError:
        return _text_without_numpy(value.tolist(), is_repr)
    array = numpy.asarray(value)
    if array.ndim == 0:
        return repr(float(array)) if is_repr else element_text(float(array))
    if not is_repr:
        return numpy.array2string(array, formatter={"float_kind": element_text})
    body = numpy.array2string(array, separator=", ", prefix="array(", formatter={"float_kind": element_text})
    return f"array({body}, dtype=bfloat16)"


def _text_without_numpy(nested: Any, is_repr: bool) -> str:
    """The same text from nested lists (Pyodide without NumPy; no wrapping of long rows, as small arrays need none)."""
    if not isinstance(nested, list):
        return repr(float(nested)) if is_repr else element_text(nested)
    prefix = "array(" if is_repr else ""
    body = _nested(nested, ", " if is_repr else " ", len(prefix) + 1)
    return f"array({body}, dtype=bfloat16)" if is_repr else body


def _nested(nested: list, separator: str, indent: int) -> str:
    if not nested or not isinstance(nested[0], list):
        return "[" + separator.join(element_text(v) for v in nested) + "]"
    rows = [_nested(row, separator, indent + 1) for row in nested]
    gap = "\n" * (1 if not isinstance(nested[0][0], list) else 2)
    return "[" + (separator.rstrip() + gap + " " * indent).join(rows) + "]"
