"""How a CArray prints: exactly as NumPy prints the same values (its default print options), without NumPy.

    print(c)     [[2.012 0.5  ]]                       (str: numpy.array2string)
    repr(c)      array([[2.012, 0.5  ]], dtype=float32)  (repr: numpy.array_repr)
    f"{c0:.3f}"  a 0-d array formats its element; any other array takes only an empty spec

NumPy's rules, followed here (numpy/_core/arrayprint.py, default options):
- each float is its shortest decimal that reads back as the same value *at the array's precision*
  (float32: the same float32, so float32(2.012) prints 2.012, not 2.0119998455047607), at most 8
  fractional digits ("maxprec": longer ones are rounded there, then trailing zeros dropped);
- one layout for the whole array: scientific when a non-zero |value| is >= 1e8 (float32: 1e6, 10 to the
  power of its decimal precision) or < 1e-4 or the
  largest / smallest > 1000, else positional; integer parts right-aligned, fractions left-aligned
  and space-padded ("1.  2.5"), exponents and mantissas zero-padded alike in scientific notation;
- nested brackets, rows wrapped at 75 characters, and above 1000 elements only the first and last 3
  of each axis with "..." between (the layout then chosen from those alone);
- a 0-d array's str is its scalar's str (float: all shortest digits, positional for 1e-4 <= |x| < 1e16,
  < 1e6 for float32).
The float32 shortest-digit search uses exact decimal arithmetic (`decimal`): a candidate must lie inside
the interval of reals that read back as the value (its ends when the value's last bit is even).
"""

from __future__ import annotations

import math
import struct
import sys
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal
from typing import Any

THRESHOLD, EDGE_ITEMS, LINE_WIDTH, PRECISION = 1000, 3, 75, 8
_EXACT = Context(prec=1200)  # enough digits for any float64 (and the midpoints between neighbours), exactly
# the dtypes NumPy's repr leaves implied: float64, bool and its default int (intp: int64 on 64-bit CPython,
# int32 in 32-bit wasm Pyodide)
_IMPLIED = {"float64", "bool", "int64" if sys.maxsize > 2**32 else "int32"}


# --- shortest digits ------------------------------------------------------------------------------------
def _to_f32(value: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _neighbours(value: float, single: bool) -> tuple:
    """The next representable values below and above a positive finite `value` (float32 or float64)."""
    if not single:
        return math.nextafter(value, 0.0), math.nextafter(value, math.inf)
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    below = struct.unpack("<f", struct.pack("<I", bits - 1))[0] if bits else 0.0
    above = struct.unpack("<f", struct.pack("<I", bits + 1))[0]  # (the largest float32's is inf)
    return below, above


def _shortest(value: float, single: bool) -> tuple:
    """(digits, exponent) of the shortest decimal d1.d2d3... x 10^exponent that reads back as the positive
    finite `value` at its precision (the closest such decimal if several), as NumPy's Dragon4 finds it."""
    if not single:  # Python's repr is exactly that for a float64 (round-half-even reading, as Dragon4)
        return _digits(Decimal(repr(value)))
    exact = Decimal(value)
    below, above = _neighbours(value, single)
    low = _EXACT.divide(_EXACT.add(exact, Decimal(below)), 2)
    if not math.isfinite(above):  # the largest float32: its upper margin is as wide as its lower one
        above = value + (value - below)  # (a float64, exact)
    high = _EXACT.divide(_EXACT.add(exact, Decimal(above)), 2)
    even = struct.unpack("<I", struct.pack("<f", value))[0] % 2 == 0  # a tie reads back as the even neighbour

    def inside(candidate: Decimal) -> bool:
        if even:
            return low <= candidate <= high
        return low < candidate < high

    magnitude = exact.adjusted()
    for count in range(1, 18):
        quantum = Decimal(1).scaleb(magnitude - count + 1)
        nearest = exact.quantize(quantum, ROUND_HALF_EVEN, _EXACT)
        others = [exact.quantize(quantum, mode, _EXACT) for mode in (ROUND_FLOOR, ROUND_CEILING)]
        for candidate in [nearest] + [c for c in others if c != nearest]:
            if inside(candidate):
                return _digits(candidate)
    return _digits(exact)


def _digits(number: Decimal) -> tuple:
    sign, digits, exponent = number.normalize(_EXACT).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    return text, exponent + len(digits) - 1


# --- one number, NumPy's Dragon4 outputs ------------------------------------------------------------------
def positional(value: float, single: bool, precision: int | None) -> str:
    """`value` >= 0 (finite) in positional notation, shortest, at most `precision` fractional digits, "1." for whole."""
    if value == 0:
        return "0."
    digits, exponent = _shortest(value, single)
    if precision is not None and len(digits) - 1 - exponent > precision:  # rounded at the cutoff, exactly
        text = format(Decimal(value).quantize(Decimal(1).scaleb(-precision), ROUND_HALF_EVEN, _EXACT), "f")
        whole, _, fraction = text.partition(".")
        return f"{whole}.{fraction.rstrip('0')}"
    if exponent < 0:
        return "0." + "0" * (-exponent - 1) + digits
    if len(digits) <= exponent + 1:
        return digits + "0" * (exponent + 1 - len(digits)) + "."
    return f"{digits[:exponent + 1]}.{digits[exponent + 1:]}"


def scientific(value: float, single: bool, precision: int | None, min_digits: int = 0) -> tuple:
    """(mantissa, exponent) of `value` >= 0 (finite): shortest digits, at most `precision` after the point;
    with fewer than `min_digits`, more digits *of the exact value* (rounded), as NumPy's Dragon4 prints them."""
    if value == 0:
        return "0." + "0" * min_digits, 0
    digits, exponent = _shortest(value, single)
    wanted = precision if precision is not None and len(digits) - 1 > precision else min_digits
    if len(digits) - 1 != wanted and (wanted == precision or len(digits) - 1 < min_digits):
        exact = Decimal(value)  # (digits counted from the exact value's first one, as Dragon4 makes them)
        rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - wanted), ROUND_HALF_EVEN, _EXACT)
        digits, exponent = _digits(rounded)
    return f"{digits[0]}.{digits[1:]}", exponent


def _exponent_text(exponent: int, width: int) -> str:
    return ("-" if exponent < 0 else "+") + str(abs(exponent)).rjust(width, "0")


def scalar_str(value: Any, dtype: Any) -> str:
    """str() of a NumPy scalar: bool/int as Python, floats shortest (positional for 1e-4 <= |x| < 1e16)."""
    if dtype.is_bool:
        return str(bool(value))
    if dtype.name == "string":  # a 0-d object array prints its bytes object: b'hello'
        return str(value)
    if not dtype.is_floating:
        return str(int(value))
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    sign, size = ("-" if math.copysign(1.0, value) < 0 else ""), abs(value)
    single = dtype.name == "float32"
    if size == 0 or 1e-4 <= size < (1e6 if single else 1e16):  # 10 ** (the dtype's decimal precision)
        text = positional(size, single, None)
        return sign + (text + "0" if text.endswith(".") else text)
    mantissa, exponent = scientific(size, single, None)
    return sign + mantissa.rstrip(".") + "e" + _exponent_text(exponent, 2)


# --- one formatter for a whole array (NumPy's FloatingFormat, IntegerFormat, BoolFormat) ------------------
class FloatFormat:
    """Formats every element of `values` (the shown ones) with one shared layout."""

    def __init__(self, values: list, single: bool):
        self.single = single
        finite = [v for v in values if math.isfinite(v)]
        sizes = [abs(v) for v in finite if v != 0]
        self.scientific = False
        if sizes:
            top, bottom = max(sizes), min(sizes)
            ratio = _to_f32(top / bottom) if single else top / bottom
            small = _to_f32(1e-4) if single else 1e-4
            self.scientific = top >= (1e6 if single else 1e8) or bottom < small or ratio > 1000.0
        self.pad_left = self.pad_right = 0
        self.precision, self.exp_size = PRECISION, -1
        if finite and self.scientific:
            parts = [(self._sign(v), *scientific(abs(v), single, PRECISION)) for v in finite]
            self.exp_size = max(len(str(abs(e))) for _, _, e in parts)
            self.exp_size = max(self.exp_size, 2)
            self.precision = max(len(m.partition(".")[2]) for _, m, _ in parts)
            self.pad_left = max(len(s) + 1 for s, _, _ in parts)
            self.pad_right = self.exp_size + 2 + self.precision
        elif finite:
            texts = [self._sign(v) + positional(abs(v), single, PRECISION) for v in finite]
            self.pad_left = max(len(t.partition(".")[0]) for t in texts)
            self.pad_right = max(len(t.partition(".")[2]) for t in texts)
        if len(finite) != len(values):  # room for nan / inf / -inf
            negative_inf = any(math.isinf(v) and v < 0 for v in values)
            offset = self.pad_right + 1
            self.pad_left = max(self.pad_left, 3 - offset, 3 + negative_inf - offset)

    @staticmethod
    def _sign(value: float) -> str:
        return "-" if math.copysign(1.0, value) < 0 else ""

    def __call__(self, value: float) -> str:
        if not math.isfinite(value):
            text = "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
            return text.rjust(self.pad_left + self.pad_right + 1)
        sign = self._sign(value)
        if self.scientific:
            mantissa, exponent = scientific(abs(value), self.single, self.precision, self.precision)
            whole, _, fraction = mantissa.partition(".")
            return ((sign + whole).rjust(self.pad_left) + "." + fraction.ljust(self.precision, "0")
                    + "e" + _exponent_text(exponent, self.exp_size))
        whole, _, fraction = positional(abs(value), self.single, PRECISION).partition(".")
        return (sign + whole).rjust(self.pad_left) + "." + fraction.ljust(self.pad_right)


def _formatter(values: list, dtype: Any, zero_d: bool) -> Any:
    if dtype.name == "string":  # NumPy's object arrays: each element's repr, unpadded
        return repr
    if dtype.is_bool:  # " True" lines up with "False", except alone in a 0-d array
        true = "True" if zero_d else " True"
        return lambda v: true if v else "False"
    if dtype.is_floating:
        return FloatFormat(values, dtype.name == "float32")
    width = max((len(str(v)) for v in (max(values), min(values))), default=0) if values else 0
    return lambda v: str(int(v)).rjust(width)


# --- the nested layout (NumPy's _formatArray) -------------------------------------------------------------
def _shown(flat: list, shape: tuple, summarise: bool) -> list:
    """The elements that will be printed (all, or the edge items of every axis when summarising)."""
    if not summarise or not shape:
        return flat
    step = math.prod(shape[1:])
    rows = range(shape[0])
    if shape[0] > 2 * EDGE_ITEMS:
        rows = list(range(EDGE_ITEMS)) + list(range(shape[0] - EDGE_ITEMS, shape[0]))
    return [v for i in rows for v in _shown(flat[i * step:(i + 1) * step], shape[1:], summarise)]


def _extend_line(text: str, line: str, word: str, width: int, indent: str) -> tuple:
    if len(line) + len(word) > width and len(line) > len(indent):
        text += line.rstrip() + "\n"
        line = indent
    return text, line + word


def _format_nested(flat: list, shape: tuple, format_one: Any, width: int, indent: str, separator: str,
                   summarise: bool) -> str:
    if not shape:
        return format_one(flat[0])
    length, step = shape[0], math.prod(shape[1:])
    inner_indent, inner_width = indent + " ", width - 1
    show_summary = summarise and 2 * EDGE_ITEMS < length
    leading = range(EDGE_ITEMS) if show_summary else range(0)
    trailing = range(length - EDGE_ITEMS, length) if show_summary else range(length)

    def item(i: int) -> str:
        return _format_nested(flat[i * step:(i + 1) * step], shape[1:], format_one, inner_width, inner_indent,
                              separator, summarise)

    indices = list(leading) + ([None] if show_summary else []) + list(trailing)
    if len(shape) == 1:
        text, line = "", indent
        element_width = width - max(len(separator.rstrip()), 1)
        for position, i in enumerate(indices):
            last = position == len(indices) - 1
            word = "..." if i is None else item(i)
            text, line = _extend_line(text, line, word, element_width, indent)
            if not last:
                line += separator
        text += line
    else:
        line_separator = separator.rstrip() + "\n" * (len(shape) - 1)
        parts = [indent + ("..." if i is None else item(i)) for i in indices]
        text = line_separator.join(parts)
    return "[" + text[len(indent):] + "]"


def array_to_string(array: Any, separator: str = " ", prefix: str = "", suffix: str = "") -> str:
    """numpy.array2string(array, separator=..., prefix=..., suffix=...) with the default print options."""
    if array.size == 0:
        return "[]"
    flat = array.data.tolist()
    summarise = array.size > THRESHOLD
    format_one = _formatter(_shown(flat, array.shape, summarise), array.dtype, not array.shape)
    return _format_nested(flat, array.shape, format_one, LINE_WIDTH - len(suffix), " " + " " * len(prefix),
                          separator, summarise)


def array_str(array: Any) -> str:
    if not array.shape:
        return scalar_str(array.data[0], array.dtype)
    return array_to_string(array)


def array_repr(array: Any) -> str:
    prefix = "array("
    body = array_to_string(array, ", ", prefix, ")")
    extras = []
    if (array.size == 0 and array.shape != (0,)) or array.size > THRESHOLD:
        extras.append(f"shape={array.shape}")
    if array.dtype.name not in _IMPLIED or array.size == 0:
        extras.append(f"dtype={'object' if array.dtype.name == 'string' else array.dtype.name}")
    if not extras:
        return prefix + body + ")"
    head, tail = prefix + body + ",", ", ".join(extras) + ")"
    last_line = len(head) - (head.rfind("\n") + 1)
    spacer = "\n" + " " * len(prefix) if last_line + len(tail) + 1 > LINE_WIDTH else " "
    return head + spacer + tail


def array_format(array: Any, spec: str) -> str:
    """format(array, spec): a 0-d array formats its element (as a Python scalar); others only take ''."""
    if not array.shape:
        return format(array.item(), spec)
    return object.__format__(array, spec)


__all__ = ["array_str", "array_repr", "array_format", "array_to_string", "scalar_str", "positional", "scientific"]
