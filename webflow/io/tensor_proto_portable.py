"""`make_tensor_proto` where NumPy is missing (Pyodide): the same TensorProto tensor_proto.py writes with NumPy, made
from a CArray (a graph's constants there) or from Python numbers, bools, strings and nested lists.

TensorFlow's layout (tensor_proto.py says more): more than one element of a numeric dtype filling the shape goes to
`tensor_content` as little-endian bytes (struct's `<` codes are the same bytes NumPy writes); anything else to
the dtype's typed field. Python values get TensorFlow's dtypes: floats float32, ints int32 (int64 if too large),
bools bool, str/bytes string. float16 needs NumPy (CArrays have no float16), as do NumPy arrays themselves.
"""

from __future__ import annotations

import struct
from typing import Any

from webflow.framework import dtypes
from webflow.io import buffer_values

# struct codes of the dtypes whose values may go to tensor_content (tensor_proto._CONTENT_TYPES without float16)
_STRUCT_CODES = {"float32": "f", "float64": "d", "int8": "b", "int16": "h", "int32": "i", "int64": "q",
                 "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q"}
_INT32 = (-(2 ** 31), 2 ** 31 - 1)


def _inferred(flat: list) -> dtypes.DType:
    """TensorFlow's dtype for Python values: bool, then str/bytes, then int (int32 when every value fits), float."""
    if flat and all(isinstance(v, bool) for v in flat):
        return dtypes.bool
    if flat and all(isinstance(v, (str, bytes, bytearray)) for v in flat):
        return dtypes.string
    if flat and all(isinstance(v, int) for v in flat):
        return dtypes.int32 if all(_INT32[0] <= v <= _INT32[1] for v in flat) else dtypes.int64
    return dtypes.float32


def _elements(values: Any, dtype: dtypes.DType | None, shape: Any, tensor_proto: Any) -> tuple:
    """(flat Python values, their shape, their dtype) of a CArray or a Python value."""
    if buffer_values.is_buffer_array(values):
        return values.reshape(-1).tolist(), list(values.shape), values.dtype.base_dtype
    if values is None:
        raise ValueError("None values not supported.")
    if getattr(values, "graph", None) is not None and hasattr(values, "op"):
        raise TypeError(f"Expected any non-tensor type, but got a tensor instead: {values}")
    dims = tensor_proto._dense_dimensions(values)
    flat = tensor_proto._flatten(values)
    if shape is not None and tensor_proto._product(shape) == 0:
        return [], [int(d) for d in shape], dtype or dtypes.float32
    if len(flat) != tensor_proto._product(dims):
        raise ValueError(f"Expected values {values} to be a dense tensor with shape {dims}, but got a ragged list.")
    return flat, dims, dtype or _inferred(flat)


def _converted(flat: list, source: dtypes.DType, dtype: dtypes.DType, values: Any) -> list:
    """The values as `dtype` holds them; a CArray of another dtype is cast, Python values must fit (TypeError)."""
    if dtype.is_bool:
        expected: tuple = (bool,)
    elif dtype.is_integer:
        expected = (int,)
    elif dtype.is_floating:
        expected = (int, float)
    else:
        expected = (str, bytes, bytearray)
    if not buffer_values.is_buffer_array(values):  # (bool is an int, as numbers.Integral in tensor_proto.py)
        for value in flat:
            if not isinstance(value, expected):
                raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    if dtype.is_bool:
        return [bool(v) for v in flat]
    if dtype.is_integer:
        return [int(v) for v in flat]
    if dtype.is_floating:
        return [float(v) for v in flat]
    return [value.encode("utf-8") if isinstance(value, str) else bytes(value) for value in flat]


def make_tensor_proto(values: Any, dtype: Any, shape: Any, verify_shape: bool, allow_broadcast: bool,
                      tensor_proto: Any) -> Any:
    """tensor_proto.make_tensor_proto without NumPy (`tensor_proto`: that module, for its helpers and fields)."""
    if (dtype is not None and dtype.name == "float16") or hasattr(values, "__array_interface__"):
        tensor_proto.numpy_module()  # raises its ImportError: float16 values need NumPy
    flat, given_shape, source = _elements(values, dtype, shape, tensor_proto)
    target = dtype or source
    flat = _converted(flat, source, target, values)
    size = tensor_proto._product(given_shape)
    if shape is None:
        shape, same_size = given_shape, True
    else:
        shape = [int(dim) for dim in shape]
        same_size = tensor_proto._product(shape) == size
        if allow_broadcast:
            if given_shape not in ([1], []) and not same_size:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {tuple(given_shape)}.")
        else:
            if verify_shape and list(given_shape) != shape:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {tuple(given_shape)}.")
            if size > tensor_proto._product(shape):
                raise ValueError(f"Too many elements provided. Takes at most {tensor_proto._product(shape):d}, "
                                 f"but got {size:d}.")
    proto = tensor_proto._tensor_pb2().TensorProto(dtype=target.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # present even for a scalar, as TensorFlow writes it
    for dim in shape:
        proto.tensor_shape.dim.add(size=dim)
    if same_size and target.name in _STRUCT_CODES and tensor_proto._product(shape) > 1:
        proto.tensor_content = struct.pack(f"<{len(flat)}{_STRUCT_CODES[target.name]}", *flat)
        return proto
    getattr(proto, tensor_proto._VALUE_FIELDS[target.name]).extend(flat)
    return proto
