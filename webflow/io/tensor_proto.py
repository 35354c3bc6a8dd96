"""`tf.make_tensor_proto` and `tf.make_ndarray`: NumPy values <-> TensorFlow's TensorProto, as TensorFlow writes them.

A TensorProto holds its dtype (TensorFlow's DataType number, the same as webflow's `DType.as_datatype_enum`), its
shape, and its values in one of two ways (tensorflow/python/framework/tensor_util.py):
- `tensor_content`: the raw little-endian bytes of a numeric array, used when the array has more than one element
  and exactly as many as the shape says (not for bool or string);
- otherwise a typed repeated field: `float_val`, `double_val`, `int_val` (int8/16/32, uint8/16), `int64_val`,
  `uint32_val`, `uint64_val`, `bool_val`, `string_val`, `half_val` (float16 bits as integers). Given fewer values
  than the shape holds, the reader repeats the last one: `make_tensor_proto(0.0, shape=[2, 3])` stores one float.

Needs the `protobuf` package, imported only when called, and NumPy (a clear ImportError says so), except
`make_tensor_proto`, which without NumPy (Pyodide) makes the same proto in tensor_proto_portable.py.
"""

from __future__ import annotations

import numbers
from typing import Any

from webflow.framework import bfloat16_bits, dtypes

# dtypes stored as tensor_content when the array fills its shape and has more than one element (TF's
# _TENSOR_CONTENT_TYPES, restricted to webflow's dtypes)
_CONTENT_TYPES = frozenset(["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
                            "uint8", "uint16", "uint32", "uint64"])
# the typed repeated field each dtype's values go to otherwise (float16 stores its bits, see _field_values)
_VALUE_FIELDS = {"float16": "half_val", "bfloat16": "half_val", "float32": "float_val", "float64": "double_val",
                 "int8": "int_val", "int16": "int_val", "int32": "int_val", "uint8": "int_val", "uint16": "int_val",
                 "int64": "int64_val", "uint32": "uint32_val", "uint64": "uint64_val", "bool": "bool_val",
                 "string": "string_val"}


def numpy_module() -> Any:
    """NumPy, or an ImportError that says what needs it."""
    try:
        import numpy
    except ImportError:
        raise ImportError("TensorProto values as arrays (tf.make_ndarray, imported GraphDef constants, float16) "
                          "need NumPy, which is not installed: pip install numpy") from None
    return numpy


def _have_numpy() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


def _tensor_pb2() -> Any:
    from webflow.protos import tensor_pb2

    return tensor_pb2


def as_bytes(value: Any) -> bytes:
    """TensorFlow's compat.as_bytes: str as UTF-8, bytes as they are."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _dense_dimensions(values: Any) -> list:
    """The shape nested Python lists describe, following first elements (TF's _GetDenseDimensions)."""
    if not isinstance(values, (list, tuple)):
        return []
    if not values:
        return [0]
    return [len(values)] + _dense_dimensions(values[0])


def _flatten(values: Any) -> list:
    if isinstance(values, (list, tuple)):
        return [leaf for inner in values for leaf in _flatten(inner)]
    return [values]


def _check_compatible(values: Any, dtype: dtypes.DType | None) -> None:
    """TypeError for a Python value that does not fit `dtype` (TF's _AssertCompatible), e.g. "a" as float32."""
    if dtype is None:
        return
    numpy = numpy_module()
    if dtype.is_bool:
        expected: tuple = (bool,)
    elif dtype.is_integer:
        expected = (numbers.Integral, numpy.integer)
    elif dtype.is_floating:
        expected = (numbers.Real, numpy.integer, numpy.floating)
    else:  # string
        expected = (str, bytes, bytearray)
    for value in _flatten(values):
        if isinstance(value, numpy.ndarray) and issubclass(value.dtype.type, expected):
            continue
        if not isinstance(value, expected):
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")


def _as_array(values: Any, dtype: dtypes.DType | None, shape: Any) -> Any:
    """The NumPy array make_tensor_proto stores, with TensorFlow's dtype inference for Python values."""
    numpy = numpy_module()
    if hasattr(values, "numpy") and callable(values.numpy):  # an EagerTensor
        values = values.numpy()
    numpy_type = dtype.as_numpy_dtype if dtype is not None else None
    if isinstance(values, (numpy.ndarray, numpy.generic)):
        return values.astype(numpy_type) if numpy_type is not None else values
    if values is None:
        raise ValueError("None values not supported.")
    if getattr(values, "graph", None) is not None and hasattr(values, "op"):
        raise TypeError(f"Expected any non-tensor type, but got a tensor instead: {values}")
    if shape is not None and _product(shape) == 0:
        return numpy.empty(shape, dtype=numpy_type)
    _check_compatible(values, dtype)
    array = numpy.array(values, dtype=numpy_type)
    if list(array.shape) != _dense_dimensions(values):
        raise ValueError(f"Expected values {values} to be a dense tensor with shape {_dense_dimensions(values)}, "
                         f"but got shape {list(array.shape)}.")
    if dtype is None and array.dtype == numpy.float64:  # Python floats are float32 in TensorFlow
        array = array.astype(numpy.float32)
    elif dtype is None and array.dtype == numpy.int64:  # and Python ints int32 where they fit
        narrow = array.astype(numpy.int32)
        if numpy.array_equal(narrow, array):
            array = narrow
    return array


def _product(shape: Any) -> int:
    result = 1
    for dim in shape:
        result *= int(dim)
    return result


def _field_values(array: Any, name: str) -> list:
    """The flattened values of `array` as the typed field of dtype `name` holds them."""
    numpy = numpy_module()
    flat = array.ravel()
    if name == "float16":
        return flat.astype(numpy.float16).view(numpy.uint16).tolist()
    if name == "string":
        return [as_bytes(value) for value in flat.tolist()]
    return flat.tolist()


def make_tensor_proto(values: Any, dtype: Any = None, shape: Any = None, verify_shape: bool = False,
                      allow_broadcast: bool = False) -> Any:
    """A TensorProto holding `values` (a Python value, NumPy array or scalar, EagerTensor) as TensorFlow writes it.

    `dtype` converts the values (TensorFlow's inference when None: Python floats float32, Python ints int32 when they
    fit); `shape` may hold more elements than the values (the reader repeats the last value), never fewer.
    """
    tensor_pb2 = _tensor_pb2()
    if isinstance(values, tensor_pb2.TensorProto):
        return values
    if allow_broadcast and verify_shape:
        raise ValueError("allow_broadcast and verify_shape are not both allowed.")
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype.name not in _VALUE_FIELDS:
            raise TypeError(f"Element type not supported in TensorProto: {dtype.name}.")
    if not _have_numpy():  # Pyodide: the same proto from a CArray or Python values (tensor_proto_portable.py)
        from webflow.io import tensor_proto, tensor_proto_portable

        return tensor_proto_portable.make_tensor_proto(values, dtype, shape, verify_shape, allow_broadcast,
                                                       tensor_proto)
    array = _as_array(values, dtype, shape)
    array_dtype = dtypes.as_dtype(array.dtype)
    if dtype is dtypes.bfloat16:  # float32 storage (framework/bfloat16_bits.py): stored as 16-bit patterns
        array, array_dtype = bfloat16_bits.high_halves(array), dtype
    if dtype is not None and dtype is not array_dtype:
        raise TypeError(f"`dtype` {dtype!r} is not compatible with {values} of dtype {array.dtype}.")
    if shape is None:
        shape = list(array.shape)
        same_size = True
    else:
        shape = [int(dim) for dim in shape]
        size = _product(shape)
        same_size = size == array.size
        if allow_broadcast:
            if array.shape not in ((1,), ()) and not same_size:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
        else:
            if verify_shape and tuple(array.shape) != tuple(shape):
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {array.shape}.")
            if array.size > size:
                raise ValueError(f"Too many elements provided. Takes at most {size:d}, but got {array.size:d}.")
    proto = tensor_pb2.TensorProto(dtype=array_dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # present even for a scalar, as TensorFlow writes it
    for dim in shape:
        proto.tensor_shape.dim.add(size=dim)
    if same_size and array_dtype.name in _CONTENT_TYPES and _product(shape) > 1:  # (bfloat16: 2 bytes each)
        proto.tensor_content = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        return proto
    if array_dtype == dtypes.string and not isinstance(values, numpy_module().ndarray):
        strings = [as_bytes(value) for value in _flatten(values)]  # not through NumPy, which trims trailing NULs
        proto.string_val.extend(strings)
        return proto
    getattr(proto, _VALUE_FIELDS[array_dtype.name]).extend(_field_values(array, array_dtype.name))
    return proto


def make_ndarray(tensor: Any) -> Any:
    """The NumPy array a TensorProto holds (tensor_content, or a typed field whose last value fills the shape)."""
    numpy = numpy_module()
    shape = [dim.size for dim in tensor.tensor_shape.dim]
    count = _product(shape)
    dtype = dtypes.as_dtype(tensor.dtype)
    if dtype.name not in _VALUE_FIELDS:
        raise TypeError(f"Unsupported tensor type: {tensor.dtype}.")
    numpy_type = numpy.dtype(dtype.as_numpy_dtype)
    if tensor.tensor_content and dtype.name == "bfloat16":
        return bfloat16_bits.from_high_halves(numpy.frombuffer(tensor.tensor_content, "<u2")).reshape(shape)
    if tensor.tensor_content:
        return numpy.frombuffer(tensor.tensor_content, dtype=numpy_type.newbyteorder("<")).astype(
            numpy_type).reshape(shape)
    if dtype == dtypes.string:
        strings = list(tensor.string_val)
        if count > len(strings):
            strings.extend([strings[-1] if strings else b""] * (count - len(strings)))
        result = numpy.empty(len(strings), dtype=object)
        result[:] = strings
        return result.reshape(shape)
    field = list(getattr(tensor, _VALUE_FIELDS[dtype.name]))
    if dtype.name == "float16":
        values = numpy.array(field, dtype=numpy.uint16).view(numpy.float16)
    elif dtype.name == "bfloat16":
        values = bfloat16_bits.from_high_halves(numpy.array(field, dtype=numpy.uint16))
    else:
        values = numpy.array(field, dtype=numpy_type)
    if values.size == 0:
        return numpy.zeros(shape, numpy_type)
    if values.size != count:
        values = numpy.pad(values, (0, count - values.size), "edge")
    return values.reshape(shape)


def shape_proto(shape: Any) -> Any:
    """A TensorShapeProto of a TensorShape, list (None for an unknown dimension) or None (unknown rank)."""
    from webflow.protos import tensor_shape_pb2

    proto = tensor_shape_pb2.TensorShapeProto()
    if hasattr(shape, "as_list"):  # a TensorShape
        dims = None if shape.rank is None else shape.as_list()
    else:
        dims = None if shape is None else list(shape)
    if dims is None:
        proto.unknown_rank = True
        return proto
    for dim in dims:
        dim = getattr(dim, "value", dim)
        proto.dim.add(size=-1 if dim is None else int(dim))
    return proto


def shape_from_proto(proto: Any) -> Any:
    """The dimensions a TensorShapeProto describes: a list (None for -1), or None for an unknown rank."""
    if proto.unknown_rank:
        return None
    return [None if dim.size < 0 else dim.size for dim in proto.dim]
