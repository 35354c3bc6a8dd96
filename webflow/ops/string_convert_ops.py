"""Numbers to strings and strings to numbers: AsString (printf formatting), StringToNumber (strtod / strtol rules),
and the hash buckets StringToHashBucketFast (FarmHash Fingerprint64), StringToHashBucketStrong (SipHash-2-4) and
the legacy StringToHashBucket (TensorFlow's Hash64); the hashes themselves are string_hashes.py.

As string_ops.py, each kernel is written once against backends/arrays/string_values.py and runs with or
without NumPy. None is differentiable (TensorFlow declares them NotDifferentiable).
"""

from __future__ import annotations

import re
import struct
from typing import Any

from webflow.backends.arrays.string_values import elements, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.registry import NotDifferentiable, apply_op, register_op
from webflow.ops.shapes import same_shape_as_input_with_dtype
from webflow.ops.string_hashes import fingerprint64, legacy_hash64, siphash24

STRING = (dtypes.string,)
AS_STRING_TYPES = dtypes.NUMERIC + (dtypes.bool, dtypes.string)
FILL_FLAGS = " +-0#"  # the printf flags TensorFlow accepts as `fill`


# --- AsString ----------------------------------------------------------------------------------------------
def _as_string_format(dtype: Any, precision: int, scientific: bool, shortest: bool, width: int, fill: str) -> str:
    """The printf format TensorFlow's AsString kernel builds, with its argument checks."""
    name = dtype.base_dtype.name
    if scientific and shortest:
        raise InvalidArgumentError(None, None, "Cannot select both scientific and shortest notation")
    if len(fill) > 1:
        raise InvalidArgumentError(None, None, "Fill string must be one or fewer characters")
    if fill and fill not in FILL_FLAGS:
        raise InvalidArgumentError(None, None, f'Fill argument not supported: "{fill}"')
    floating = dtype.base_dtype.is_floating
    if not floating and (scientific or shortest):
        raise InvalidArgumentError(None, None, f"scientific and shortest format not supported for datatype "
                                               f"{_tf_name(name)}")
    if not floating and precision > -1:
        raise InvalidArgumentError(None, None, f"precision not supported for datatype {_tf_name(name)}")
    spec = "%" + fill + (str(width) if width > -1 else "") + (f".{precision}" if precision > -1 else "")
    if floating:
        return spec + ("e" if scientific else "g" if shortest else "f")
    return spec + ("s" if name == "string" else "d")


def _tf_name(name: str) -> str:
    return {"float32": "float", "float64": "double"}.get(name, name)


@register_op("AsString", "AsString", inputs=("input",), shape=same_shape_as_input_with_dtype(dtypes.string),
             allowed=AS_STRING_TYPES)
def as_string_kernel(x: Any, *, precision: int = -1, scientific: bool = False, shortest: bool = False,
                     width: int = -1, fill: str = "") -> Any:
    """y[i] = printf("%<fill><width>.<precision><d|f|e|g>", x[i]); bools are "true" / "false"."""
    dtype = _dtype(x)
    form = _as_string_format(dtype, precision, scientific, shortest, width, fill)
    items, shape = elements(x)
    if dtype.is_bool:
        return strings([b"true" if v else b"false" for v in items], shape)
    if dtype.name == "string":
        return strings([(form % v.decode("latin-1")).encode("latin-1") for v in items], shape)
    return strings([(form % v).encode() for v in items], shape)


def _dtype(x: Any) -> Any:
    return dtypes.as_dtype(x.dtype)  # (a CArray's webflow DType, or a NumPy dtype: object means string)


def as_string(input: Any, precision: int = -1, scientific: bool = False, shortest: bool = False,  # noqa: A002
              width: int = -1, fill: str = "", name: str | None = None) -> Any:
    attrs = {"precision": int(precision), "scientific": bool(scientific), "shortest": bool(shortest),
             "width": int(width), "fill": fill}
    return apply_op("AsString", [input], attrs, name=name)


# --- StringToNumber ------------------------------------------------------------------------------------------
NUMBER_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)
_INTEGER = re.compile(rb"[+-]?[0-9]+")
_HEX = re.compile(rb"[+-]?0[xX][0-9a-fA-F]*\.?[0-9a-fA-F]*([pP][+-]?[0-9]+)?")
_FLOAT32_MAX = 3.4028234663852886e38


def _string_to_number_shape(inputs: list, attrs: dict) -> tuple:
    return same_shape_as_input_with_dtype(attrs.get("out_type", dtypes.float32))(inputs, attrs)


@register_op("StringToNumber", "StringToNumber", inputs=("string_tensor",), shape=_string_to_number_shape,
             allowed=STRING)
def string_to_number_kernel(x: Any, *, out_type: Any = dtypes.float32) -> Any:
    """y[i] = the number x[i] spells (strtod for floats: decimal, exponent, hex, inf, nan; decimal digits for
    integers), surrounding whitespace allowed; anything else is an InvalidArgumentError."""
    out_type = dtypes.as_dtype(out_type)
    items, shape = elements(x)
    parse = _parse_float if out_type.is_floating else _parse_integer
    return numbers([parse(text, out_type) for text in items], shape, out_type)


def _bad_number(text: bytes) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, "StringToNumberOp could not correctly convert string: "
                                            + text.decode("utf-8", "replace"))


def _parse_float(text: bytes, out_type: Any) -> float:
    body = text.strip()
    try:
        if b"_" in body:  # Python allows digit separators, strtod does not
            raise ValueError
        value = float(body)
    except ValueError:
        try:
            if not _HEX.fullmatch(body):
                raise ValueError
            value = float.fromhex(body.decode("ascii"))  # strtod reads C99 hex floats: 0x10, 0x1p-3
        except ValueError:
            raise _bad_number(text) from None
    if out_type.name == "float32":
        if abs(value) > _FLOAT32_MAX and value == value:
            return value * float("inf")  # past float32's range: +-inf, as strtof
        return struct.unpack("f", struct.pack("f", value))[0]
    return value


def _parse_integer(text: bytes, out_type: Any) -> int:
    body = text.strip()
    if not _INTEGER.fullmatch(body):
        raise _bad_number(text)
    value = int(body)
    low, high = _integer_range(out_type)
    if not low <= value <= high:
        raise _bad_number(text)
    return value


def _integer_range(dtype: Any) -> tuple:
    bits = dtype.size * 8
    if dtype.name.startswith("uint"):
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def string_to_number(string_tensor: Any, out_type: Any = dtypes.float32, name: str | None = None) -> Any:
    out_type = dtypes.as_dtype(out_type)
    if out_type not in NUMBER_TYPES:
        allowed = ", ".join(_tf_name(d.name) for d in NUMBER_TYPES)
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in list of allowed "
                        f"values: {allowed}")
    return apply_op("StringToNumber", [string_tensor], {"out_type": out_type}, name=name)


def to_number(input: Any, out_type: Any = dtypes.float32, name: str | None = None) -> Any:  # noqa: A002
    return string_to_number(input, out_type, name)


# --- hash buckets ---------------------------------------------------------------------------------------------
def _buckets(x: Any, num_buckets: int, hash_function: Any) -> Any:
    items, shape = elements(x)
    return numbers([hash_function(text) % num_buckets for text in items], shape, dtypes.int64)


@register_op("StringToHashBucketFast", "StringToHashBucketFast", inputs=("input",),
             shape=same_shape_as_input_with_dtype(dtypes.int64), allowed=STRING)
def string_to_hash_bucket_fast_kernel(x: Any, *, num_buckets: int) -> Any:
    """y[i] = Fingerprint64(x[i]) mod num_buckets (FarmHash; stable across processes and versions)."""
    return _buckets(x, num_buckets, fingerprint64)


@register_op("StringToHashBucketStrong", "StringToHashBucketStrong", inputs=("input",),
             shape=same_shape_as_input_with_dtype(dtypes.int64), allowed=STRING)
def string_to_hash_bucket_strong_kernel(x: Any, *, num_buckets: int, key: list) -> Any:
    """y[i] = SipHash-2-4 under key (key[0], key[1]) of x[i], mod num_buckets."""
    return _buckets(x, num_buckets, lambda text: siphash24((key[0], key[1]), text))


@register_op("StringToHashBucket", "StringToHashBucket", inputs=("string_tensor",),
             shape=same_shape_as_input_with_dtype(dtypes.int64), allowed=STRING)
def string_to_hash_bucket_kernel(x: Any, *, num_buckets: int) -> Any:
    """y[i] = TensorFlow's Hash64(x[i]) mod num_buckets (the legacy, slower hash)."""
    return _buckets(x, num_buckets, legacy_hash64)


def _check_buckets(num_buckets: Any, op_type: str) -> int:
    num_buckets = int(num_buckets)
    if num_buckets < 1:
        raise InvalidArgumentError(None, None, f"Value for attr 'num_buckets' of {num_buckets} must be at least "
                                               f"minimum 1\n\t; NodeDef: {{{{node {op_type}}}}}")
    return num_buckets


def to_hash_bucket_fast(input: Any, num_buckets: int, name: str | None = None) -> Any:  # noqa: A002
    attrs = {"num_buckets": _check_buckets(num_buckets, "StringToHashBucketFast")}
    return apply_op("StringToHashBucketFast", [input], attrs, name=name)


def to_hash_bucket_strong(input: Any, num_buckets: int, key: Any, name: str | None = None) -> Any:  # noqa: A002
    key = [int(k) for k in key]
    if len(key) != 2:
        raise ValueError(f"Key must have 2 elements, got {len(key)}")
    attrs = {"num_buckets": _check_buckets(num_buckets, "StringToHashBucketStrong"), "key": key}
    return apply_op("StringToHashBucketStrong", [input], attrs, name=name)


def to_hash_bucket(input: Any, num_buckets: int, name: str | None = None) -> Any:  # noqa: A002
    attrs = {"num_buckets": _check_buckets(num_buckets, "StringToHashBucket")}
    return apply_op("StringToHashBucket", [input], attrs, name=name)


def string_to_hash_bucket(string_tensor: Any, num_buckets: int, name: str | None = None) -> Any:
    return to_hash_bucket(string_tensor, num_buckets, name)


for _op_type in ("AsString", "StringToNumber", "StringToHashBucketFast", "StringToHashBucketStrong",
                 "StringToHashBucket"):
    NotDifferentiable(_op_type)
