"""Data types with TensorFlow's names and rules (`tf.float32`, `tf.as_dtype`, ...).

NumPy is optional here: `as_numpy_dtype` imports it lazily so that the framework
imports inside Pyodide without NumPy.
"""

from __future__ import annotations

from typing import Any


class DType:
    """One element type, e.g. `float32`; `float32_ref` is its reference twin (TF1 variables)."""

    __slots__ = ("_name", "_enum", "_kind", "_size", "_is_ref")

    def __init__(self, name: str, enum: int, kind: str, size: int, is_ref: bool = False):
        self._name = name
        self._enum = enum
        self._kind = kind  # "float", "int", "uint", "bool", "string", "resource", "variant"
        self._size = size
        self._is_ref = is_ref

    @property
    def name(self) -> str:
        return self._name + "_ref" if self._is_ref else self._name

    @property
    def as_datatype_enum(self) -> int:
        return self._enum + 100 if self._is_ref else self._enum

    @property
    def base_dtype(self) -> DType:
        return _BY_NAME[self._name] if self._is_ref else self

    @property
    def real_dtype(self) -> DType:
        return self.base_dtype

    @property
    def is_ref_dtype(self) -> bool:
        return self._is_ref

    def _as_ref(self) -> DType:
        return _REF_BY_NAME[self._name]

    @property
    def is_floating(self) -> bool:
        return self._kind == "float"

    @property
    def is_integer(self) -> bool:
        return self._kind in ("int", "uint")

    @property
    def is_unsigned(self) -> bool:
        return self._kind == "uint"

    @property
    def is_bool(self) -> bool:
        return self._kind == "bool"

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_numeric(self) -> bool:
        return self._kind in ("float", "int", "uint")

    @property
    def size(self) -> int:
        return self._size

    @property
    def as_numpy_dtype(self) -> Any:
        import numpy  # lazy: the framework must import without NumPy

        if self._kind == "string":
            return numpy.object_
        if self._kind in ("resource", "variant"):
            return numpy.object_
        if self._name == "bfloat16":  # NumPy has none: held as float32 arrays of bfloat16 values (bfloat16.py)
            return numpy.float32
        return numpy.dtype(self._name).type

    @property
    def min(self) -> float | int:
        return _limits(self)[0]

    @property
    def max(self) -> float | int:
        return _limits(self)[1]

    def is_compatible_with(self, other: Any) -> bool:
        return self.base_dtype is as_dtype(other).base_dtype

    def __eq__(self, other: object) -> bool:
        if other is None:
            return False
        if isinstance(other, DType):
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: '{self.name}'>"

    def __reduce__(self):
        return as_dtype, (self.name,)


def _limits(dtype: DType) -> tuple[float | int, float | int]:
    import numpy

    base = dtype.base_dtype
    if base.name == "bfloat16":  # the largest finite bfloat16: 0x7F7F
        return -3.3895313892515355e38, 3.3895313892515355e38
    if base.is_floating:
        info = numpy.finfo(base.as_numpy_dtype)
        return float(info.min), float(info.max)
    if base.is_integer:
        info = numpy.iinfo(base.as_numpy_dtype)
        return int(info.min), int(info.max)
    if base.is_bool:
        return False, True
    raise TypeError(f"Cannot find minimum/maximum value for {base.name}")


# TensorFlow's DataType enum numbers (types.proto), so names and enums round-trip.
float16 = DType("float16", 19, "float", 2)
bfloat16 = DType("bfloat16", 14, "float", 2)  # float32's top 16 bits (framework/bfloat16.py)
float32 = DType("float32", 1, "float", 4)
float64 = DType("float64", 2, "float", 8)
int8 = DType("int8", 6, "int", 1)
int16 = DType("int16", 5, "int", 2)
int32 = DType("int32", 3, "int", 4)
int64 = DType("int64", 9, "int", 8)
uint8 = DType("uint8", 4, "uint", 1)
uint16 = DType("uint16", 17, "uint", 2)
uint32 = DType("uint32", 22, "uint", 4)
uint64 = DType("uint64", 23, "uint", 8)
bool = DType("bool", 10, "bool", 1)  # noqa: A001 - TensorFlow's public name
string = DType("string", 7, "string", 0)
resource = DType("resource", 20, "resource", 0)
variant = DType("variant", 21, "variant", 0)
half = float16
double = float64

_ALL = [float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
        bool, string, resource, variant]
_BY_NAME = {d.name: d for d in _ALL}
_REF_BY_NAME = {d.name: DType(d.name, d._enum, d._kind, d._size, is_ref=True) for d in _ALL}
_BY_ENUM = {d.as_datatype_enum: d for d in _ALL}
_BY_ENUM.update({d.as_datatype_enum: d for d in _REF_BY_NAME.values()})
_ALIASES = {"half": float16, "float": float32, "double": float64, "str": string, "bytes": string}

float32_ref = _REF_BY_NAME["float32"]
float64_ref = _REF_BY_NAME["float64"]
int32_ref = _REF_BY_NAME["int32"]
int64_ref = _REF_BY_NAME["int64"]

FLOATING = (float16, bfloat16, float32, float64)
INTEGER = (int8, int16, int32, int64, uint8, uint16, uint32, uint64)
NUMERIC = FLOATING + INTEGER


def as_dtype(type_value: Any) -> DType:
    """Converts a DType, name, enum, NumPy dtype or Python type into a `DType`."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        if type_value in _BY_NAME:
            return _BY_NAME[type_value]
        if type_value in _ALIASES:
            return _ALIASES[type_value]
        if type_value.endswith("_ref") and type_value[:-4] in _REF_BY_NAME:
            return _REF_BY_NAME[type_value[:-4]]
    if isinstance(type_value, int) and not isinstance(type_value, type(True)) and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    python_types = {float: float32, int: int32, type(True): bool, str: string, bytes: string}
    if isinstance(type_value, type) and type_value in python_types:
        return python_types[type_value]
    numpy_name = _numpy_dtype_name(type_value)
    if numpy_name is not None:
        if numpy_name in _BY_NAME:
            return _BY_NAME[numpy_name]
        if numpy_name in ("object", "str", "bytes") or numpy_name.startswith(("<U", "|S", "str", "bytes")):
            return string
    raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.")


def _numpy_dtype_name(type_value: Any) -> str | None:
    try:
        import numpy
    except ImportError:
        return None
    try:
        numpy_dtype = numpy.dtype(type_value)
    except TypeError:
        return None
    if numpy_dtype.kind in ("U", "S", "O"):
        return "object"
    return numpy_dtype.name
