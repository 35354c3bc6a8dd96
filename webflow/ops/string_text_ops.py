"""String ops on the characters of each string: Substr (bytes or UTF-8 characters, TensorFlow's pos/len rules),
StringLength, StringLower / StringUpper (ASCII, or unicode with encoding="utf-8"), StringStrip.

As string_ops.py: each kernel is written once on backends/arrays/string_values.py and runs with or without NumPy;
none is differentiable.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.string_values import broadcast, elements, expand, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import broadcast_shapes, same_as_input, same_shape_as_input_with_dtype

STRING = (dtypes.string,)


# --- Substr -------------------------------------------------------------------------------------------------
def _substr_shape(inputs: list, attrs: dict) -> tuple:
    x, pos, length = inputs
    if not pos.shape.is_compatible_with(length.shape):
        raise ShapeError(f"Shapes must be equal rank, but are {pos.shape.rank} and {length.shape.rank}")
    return output_spec(broadcast_shapes(x.shape, pos.shape), dtypes.string)


@register_op("Substr", "Substr", inputs=("input", "pos", "len"), shape=_substr_shape, same_dtype=(1, 2))
def substr_kernel(x: Any, pos: Any, length: Any, *, unit: str = "BYTE") -> Any:
    """y[i] = x[i][pos[i] : pos[i] + len[i]] in bytes or UTF-8 characters; a negative pos counts from the end,
    a negative len takes the rest; |pos| beyond the string is an error."""
    items, x_shape = elements(x)
    starts, pos_shape = elements(pos)
    lengths, _ = elements(length)
    shape = broadcast([x_shape, pos_shape])
    texts, starts, lengths = (expand(v, s, shape) for v, s in ((items, x_shape), (starts, pos_shape),
                                                                (lengths, pos_shape)))
    return strings([_substring(t, int(p), int(n), unit, i) for i, (t, p, n) in
                    enumerate(zip(texts, starts, lengths))], shape)


def _substring(text: bytes, pos: int, length: int, unit: str, index: int) -> bytes:
    chars = text.decode("utf-8", "replace") if unit == "UTF8_CHAR" else text
    size = len(chars)
    if pos > size or pos < -size:
        shown = "" if unit == "UTF8_CHAR" else f" b'{text.decode('latin-1')}'"
        raise InvalidArgumentError(None, None, f"pos {pos} out of range for string{shown} at index {index}")
    pos = pos + size if pos < 0 else pos
    piece = chars[pos:] if length < 0 else chars[pos:pos + length]
    return piece.encode() if unit == "UTF8_CHAR" else piece


def substr(input: Any, pos: Any, len: Any, unit: str = "BYTE", name: str | None = None) -> Any:  # noqa: A002
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be one of 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return apply_op("Substr", [input, pos, len], {"unit": unit}, name=name)


def substr_v1(input: Any, pos: Any, len: Any, name: str | None = None, unit: str = "BYTE") -> Any:  # noqa: A002
    return substr(input, pos, len, unit, name)


# --- length, case, whitespace ----------------------------------------------------------------------------------
@register_op("StringLength", "StringLength", inputs=("input",), shape=same_shape_as_input_with_dtype(dtypes.int32),
             allowed=STRING)
def string_length_kernel(x: Any, *, unit: str = "BYTE") -> Any:
    """y[i] = the number of bytes of x[i], or of UTF-8 characters (bytes that do not continue a character)."""
    items, shape = elements(x)
    if unit == "UTF8_CHAR":
        return numbers([sum(1 for b in text if b & 0xC0 != 0x80) for text in items], shape, dtypes.int32)
    return numbers([len(text) for text in items], shape, dtypes.int32)


def length(input: Any, unit: str = "BYTE", name: str | None = None) -> Any:  # noqa: A002
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError(f"unit must be one of 'BYTE' or 'UTF8_CHAR', got {unit!r}")
    return apply_op("StringLength", [input], {"unit": unit}, name=name)


def length_v1(input: Any, name: str | None = None, unit: str = "BYTE") -> Any:  # noqa: A002
    return length(input, unit, name)


def _recase(x: Any, encoding: str, method: str) -> Any:
    items, shape = elements(x)
    if encoding == "":  # ASCII letters only, as TensorFlow's default
        return strings([getattr(text, method)() for text in items], shape)
    return strings([getattr(text.decode(encoding), method)().encode(encoding) for text in items], shape)


@register_op("StringLower", "StringLower", inputs=("input",), shape=same_as_input, allowed=STRING)
def string_lower_kernel(x: Any, *, encoding: str = "") -> Any:
    """y[i] = x[i] in lower case (ASCII letters, or every letter when encoding='utf-8')."""
    return _recase(x, encoding, "lower")


@register_op("StringUpper", "StringUpper", inputs=("input",), shape=same_as_input, allowed=STRING)
def string_upper_kernel(x: Any, *, encoding: str = "") -> Any:
    """y[i] = x[i] in upper case (ASCII letters, or every letter when encoding='utf-8')."""
    return _recase(x, encoding, "upper")


def lower(input: Any, encoding: str = "", name: str | None = None) -> Any:  # noqa: A002
    return apply_op("StringLower", [input], {"encoding": encoding}, name=name)


def upper(input: Any, encoding: str = "", name: str | None = None) -> Any:  # noqa: A002
    return apply_op("StringUpper", [input], {"encoding": encoding}, name=name)


@register_op("StringStrip", "StringStrip", inputs=("input",), shape=same_as_input, allowed=STRING)
def string_strip_kernel(x: Any) -> Any:
    """y[i] = x[i] without leading and trailing ASCII whitespace (space, \\t, \\n, \\v, \\f, \\r)."""
    items, shape = elements(x)
    return strings([text.strip() for text in items], shape)


def strip(input: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("StringStrip", [input], name=name)


for _op_type in ("Substr", "StringLength", "StringLower", "StringUpper", "StringStrip"):
    NotDifferentiable(_op_type)
