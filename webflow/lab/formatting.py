"""Text forms shared by every webflow.lab document: shapes as TensorFlow 1 prints them, dtypes, attrs.

Pure Python, no NumPy: values are only asked for `.shape`, `.dtype`, `.size` and `.tolist()`.
"""

from __future__ import annotations

from typing import Any

MAX_VALUE_ELEMENTS = 10  # a Const attr shows its values only when it is this small (else shape + dtype)


def shape_text(shape: Any) -> str:
    """`(?, 2)`, `(3,)`, `()` or `<unknown>`: TF1's static shape text, whatever the v2 setting is."""
    dims = _dims_of(shape)
    if dims is None:
        return "<unknown>"
    parts = ["?" if d is None else str(d) for d in dims]
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


def _dims_of(shape: Any) -> tuple | None:
    """A TensorShape, a tuple/list of dims, or None (unknown rank) as a tuple of int-or-None."""
    if shape is None:
        return None
    as_tuple = getattr(shape, "as_tuple", None)
    if as_tuple is not None:  # webflow's TensorShape
        return as_tuple()
    return tuple(None if d is None else int(d) for d in shape)


def value_shape(value: Any) -> tuple | None:
    """The shape of a runtime value (ndarray, CArray, EagerTensor, Python number or nested list), or None."""
    shape = getattr(value, "shape", None)
    if shape is not None:
        return _dims_of(shape)
    if isinstance(value, (bool, int, float, complex)):
        return ()
    if isinstance(value, (list, tuple)):
        if not value:
            return (0,)
        inner = value_shape(value[0])
        return None if inner is None else (len(value),) + inner
    return None


def dtype_text(dtype: Any) -> str | None:
    """`float32`, `float32_ref`, ... (a webflow DType or a NumPy dtype); None when there is none."""
    if dtype is None:
        return None
    return str(getattr(dtype, "name", dtype))


def attr_text(value: Any) -> str:
    """An op attribute as the short string the documents carry (TF's `false`/`true` for bools)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, (int, float, str)):
        return str(value)
    if hasattr(value, "as_tuple"):  # TensorShape
        return shape_text(value)
    if hasattr(value, "is_floating") and hasattr(value, "name"):  # DType
        return value.name
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(attr_text(v) for v in value) + "]"
    if hasattr(value, "shape") and hasattr(value, "dtype"):  # an array (Const's value)
        return _array_text(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _array_text(value: Any) -> str:
    size = getattr(value, "size", None)
    dtype = dtype_text(value.dtype)
    dtype = "string" if dtype == "object" else dtype  # a string Const holds a NumPy object array of bytes
    if size is not None and size <= MAX_VALUE_ELEMENTS and hasattr(value, "tolist"):
        text = repr(value.tolist())
        text = text if len(text) <= 80 else text[:77] + "..."  # (long string constants: vocabularies, text)
        return f"{text} {dtype}"
    return f"<{shape_text(value_shape(value))} {dtype}>"


def micros_text(micros: float | None) -> str:
    """12.5 us, 3.20 ms, 1.05 s: a duration in the unit that keeps it readable."""
    if micros is None:
        return "-"
    if micros < 1000:
        return f"{micros:.1f} us"
    if micros < 1_000_000:
        return f"{micros / 1000:.2f} ms"
    return f"{micros / 1_000_000:.2f} s"


__all__ = ["shape_text", "value_shape", "dtype_text", "attr_text", "micros_text"]
