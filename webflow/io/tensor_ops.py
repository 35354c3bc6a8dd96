"""Tensors as bytes: SerializeTensor (`tf.io.serialize_tensor`: a serialized TensorProto, the form TFRecord tutorials
store whole arrays in a BytesList) and ParseTensor (`tf.io.parse_tensor`: the array back, of a declared dtype).

The TensorProto is written as TensorFlow's kernel writes it (summary_ops.tensor_proto: dtype, shape, the values as
little-endian tensor_content, strings in string_val) and read with make_ndarray (io/tensor_proto.py), so each engine
reads the other's bytes. They live in io/ because ParseTensor reads TensorProtos with io/'s reader. Both are
NotDifferentiable, as in TensorFlow; they need NumPy and protobuf.
"""

from __future__ import annotations

import base64
from typing import Any

from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.io.tensor_proto import make_ndarray, numpy_module
from webflow.ops.parsing_ops import string_input
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op
from webflow.ops.summary_ops import tensor_proto

_TF_NAMES = {"float32": "float", "float64": "double", "float16": "half"}  # TensorFlow's DataTypeString, if not .name


def _type_name(dtype: Any) -> str:
    return _TF_NAMES.get(dtype.name, dtype.name)


def _serialize_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.string)


@register_op("SerializeTensor", "SerializeTensor", inputs=("tensor",), shape=_serialize_shape)
def serialize_tensor_kernel(tensor: Any, T: Any = None) -> Any:  # noqa: N803 - TensorFlow's attr name
    """serialized = TensorProto{dtype, shape, values} of `tensor`, as bytes (a scalar string)."""
    numpy = numpy_module()
    out = numpy.empty((), dtype=object)
    out[()] = tensor_proto(tensor).SerializeToString()
    return out


NotDifferentiable("SerializeTensor")


def _parse_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(TensorShape(None), attrs["out_type"])


@register_op("ParseTensor", "ParseTensor", inputs=("serialized",), shape=_parse_shape)
def parse_tensor_kernel(serialized: Any, out_type: Any) -> Any:
    """output = the array a serialized TensorProto holds; its dtype must be `out_type`."""
    from google.protobuf.message import DecodeError

    from webflow.protos import tensor_pb2

    numpy = numpy_module()
    serialized = numpy.asarray(serialized)
    if serialized.shape != ():
        raise InvalidArgumentError(None, None, f"Expected `serialized` to be a scalar, got shape: "
                                               f"[{','.join(str(d) for d in serialized.shape)}]")
    data = bytes(serialized[()])
    try:
        proto = tensor_pb2.TensorProto.FromString(data)
        parsed = dtypes.as_dtype(proto.dtype)
    except (DecodeError, TypeError, ValueError):
        raise InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto, base64: "
                                               f"{base64.b64encode(data).decode()}") from None
    out_type = dtypes.as_dtype(out_type)
    if parsed != out_type:
        raise InvalidArgumentError(None, None, f"Type mismatch between parsed tensor ({_type_name(parsed)}) and "
                                               f"dtype ({_type_name(out_type)})")
    try:
        return make_ndarray(proto)
    except (MemoryError, ValueError):  # a forged shape (2**40 elements) or content of the wrong size, as in TF
        raise InvalidArgumentError(None, None, f"Could not parse `serialized` as TensorProto, base64: "
                                               f"{base64.b64encode(data).decode()}") from None


NotDifferentiable("ParseTensor")


def serialize_tensor(tensor: Any, name: str | None = None) -> Any:
    """`tf.io.serialize_tensor`: the tensor as one serialized TensorProto (a scalar string)."""
    return apply_op("SerializeTensor", [tensor], name=name)


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Any:
    """`tf.io.parse_tensor`: the tensor a serialized TensorProto holds (dtype `out_type`, shape known when run)."""
    return apply_op("ParseTensor", [string_input(serialized)], {"out_type": dtypes.as_dtype(out_type)}, name=name)


__all__ = ["parse_tensor", "serialize_tensor"]
