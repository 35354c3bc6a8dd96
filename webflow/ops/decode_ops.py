"""Decoding strings into numbers: DecodeRaw and DecodePaddedRaw (`tf.io.decode_raw`: the bytes of each string as
an array of numbers) and DecodeCSV (`tf.io.decode_csv`: one output per column of each CSV record).

The kernels work on flat Python lists (so the same body runs with and without NumPy, `portable=` names it);
the CSV rules themselves are in ops/csv_fields.py. DecodeRaw and DecodePaddedRaw are NotDifferentiable in
TensorFlow; DecodeCSV has no gradient registered there (LookupError when differentiated), so none here either.
"""

from __future__ import annotations

import struct
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.flat_arrays import from_flat
from webflow.backends.arrays.numpy_arrays import dtype_of, np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import csv_fields
from webflow.ops.concat_ops import stack
from webflow.ops.convert import constant_value, convert_to_tensor, is_tensor_like, to_numpy
from webflow.ops.functional_ops import kernel_result
from webflow.ops.parsing_ops import string_input
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op

# struct format characters of the dtypes DecodeRaw reads (TensorFlow also has bfloat16 and complex, which webflow
# lacks; float16 needs NumPy: a CArray has no float16)
_FORMATS = {"float16": "e", "float32": "f", "float64": "d", "int32": "i", "uint16": "H", "uint8": "B", "int16": "h",
            "int8": "b", "int64": "q", "bool": "?"}
_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def _unpack(data: bytes, out_type: Any, little_endian: bool) -> list:
    code = _FORMATS[out_type.name]
    values = list(struct.unpack(("<" if little_endian else ">") + code * (len(data) // out_type.size), data))
    return [bool(v) for v in values] if out_type == dtypes.bool else values


# --- DecodeRaw --------------------------------------------------------------------------------------------------
def _decode_raw_shape(inputs: list, attrs: dict) -> tuple:
    shape = inputs[0].shape
    return output_spec(TensorShape(None) if shape.rank is None else shape.concatenate([None]), attrs["out_type"])


def decode_raw_kernel(bytes: Any, out_type: Any, little_endian: bool = True) -> Any:  # noqa: A002 - TF's input name
    """output[..., i] = the i-th `out_type` number in each string's bytes (little- or big-endian); every string
    must have the same length, a multiple of the number's size."""
    out_type = dtypes.as_dtype(out_type)
    records = [bytes_of(r) for r in backend_values.flat_list(bytes)]
    shape = list(backend_values.shape_of(bytes))
    size = len(records[0]) if records else 0
    for i, record in enumerate(records):
        if len(record) != size:
            raise _error(f"DecodeRaw requires input strings to all be the same size, but element {i} has size "
                         f"{size} != {len(record)}")
    if size % out_type.size:
        raise _error(f"Input to DecodeRaw has length {size} that is not a multiple of {out_type.size}, the size of "
                     f"{out_type.name}")
    flat = [v for record in records for v in _unpack(record, out_type, little_endian)]
    return from_flat(flat, shape + [size // out_type.size], out_type)


def bytes_of(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


@register_op("DecodeRaw", "DecodeRaw", inputs=("bytes",), shape=_decode_raw_shape, portable=decode_raw_kernel)
def decode_raw_numpy(bytes: Any, out_type: Any, little_endian: bool = True) -> Any:  # noqa: A002
    """output[..., i] = the i-th `out_type` number in each string's bytes (NumPy reads them all at once)."""
    out_type = dtypes.as_dtype(out_type)
    records = [bytes_of(r) for r in backend_values.flat_list(bytes)]
    size = len(records[0]) if records else 0
    if any(len(r) != size for r in records) or size % out_type.size:
        return decode_raw_kernel(bytes, out_type, little_endian)  # the error TensorFlow gives
    layout = np.dtype(out_type.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    values = np.frombuffer(b"".join(records), layout).astype(out_type.as_numpy_dtype)
    return values.reshape(tuple(backend_values.shape_of(bytes)) + (size // out_type.size,))
NotDifferentiable("DecodeRaw")


# --- DecodePaddedRaw --------------------------------------------------------------------------------------------
def _decode_padded_raw_shape(inputs: list, attrs: dict) -> tuple:
    shape = inputs[0].shape
    known = constant_value(inputs[1])
    width = None if known is None else int(backend_values.flat_list(known)[0]) // attrs["out_type"].size
    return output_spec(TensorShape(None) if shape.rank is None else shape.concatenate([width]), attrs["out_type"])


def decode_padded_raw_kernel(input_bytes: Any, fixed_length: Any, out_type: Any, little_endian: bool = True) -> Any:
    """Like DecodeRaw, but each string is cut or zero-padded to `fixed_length` bytes first."""
    out_type = dtypes.as_dtype(out_type)
    length = int(backend_values.flat_list(fixed_length)[0])
    if length % out_type.size:
        raise _error(f"fixed_length ({length}) must be a multiple of the size of out_type ({out_type.size})")
    records = [bytes_of(r)[:length].ljust(length, b"\0") for r in backend_values.flat_list(input_bytes)]
    flat = [v for record in records for v in _unpack(record, out_type, little_endian)]
    return from_flat(flat, list(backend_values.shape_of(input_bytes)) + [length // out_type.size], out_type)


register_op("DecodePaddedRaw", "DecodePaddedRaw", inputs=("input_bytes", "fixed_length"),
            shape=_decode_padded_raw_shape, portable=decode_padded_raw_kernel)(decode_padded_raw_kernel)
NotDifferentiable("DecodePaddedRaw")


def decode_raw_v2(input_bytes: Any, out_type: Any, little_endian: bool = True, fixed_length: Any = None,
                  name: str | None = None) -> Any:
    """TF2's `tf.io.decode_raw`: each string's bytes as numbers of `out_type` (a new last dimension)."""
    out_type = dtypes.as_dtype(out_type)
    if out_type.name not in _FORMATS:
        raise TypeError(f"Value passed to parameter 'out_type' has DataType {out_type.name} not in list of allowed "
                        f"values: float16, float32, float64, int32, uint16, uint8, int16, int8, int64, bool")
    if fixed_length is not None:
        return apply_op("DecodePaddedRaw", [string_input(input_bytes), fixed_length],
                        {"out_type": out_type, "little_endian": bool(little_endian)}, name=name)
    return apply_op("DecodeRaw", [string_input(input_bytes)],
                    {"out_type": out_type, "little_endian": bool(little_endian)}, name=name)


def decode_raw(input_bytes: Any = None, out_type: Any = None, little_endian: bool = True, name: str | None = None,
               bytes: Any = None) -> Any:  # noqa: A002 - TF1's deprecated alias of input_bytes
    """TF1's `tf.decode_raw` (`tf.compat.v1.io.decode_raw`)."""
    return decode_raw_v2(bytes if input_bytes is None else input_bytes, out_type, little_endian, None, name)


# --- DecodeCSV --------------------------------------------------------------------------------------------------
def _decode_csv_shape(inputs: list, attrs: dict) -> list:
    return [output_spec(inputs[0].shape, t) for t in attrs["OUT_TYPE"]]


def _csv_fields(record: bytes, index: int, delim: int, use_quote_delim: bool, select_cols: list,
                count: int) -> list:
    fields = csv_fields.split_record(record, delim, use_quote_delim)
    if select_cols:
        fields = [fields[c] for c in select_cols if c < len(fields)]
    if len(fields) != count:
        raise _error(f"Expect {count} fields but have {len(fields)} in record {index}")
    return fields


def decode_csv_kernel(records: Any, *record_defaults: Any, OUT_TYPE: list, field_delim: Any = ",",  # noqa: N803
                      use_quote_delim: bool = True, na_value: Any = "", select_cols: Any = ()) -> Any:
    """output[j][r] = field j of CSV record r as OUT_TYPE[j]; an empty (or `na_value`) field takes
    record_defaults[j], and is an error when that default is empty (the column is required)."""
    delim = bytes_of(field_delim)
    if len(delim) != 1:
        raise _error("field_delim should be only 1 char")
    na = bytes_of(na_value)
    defaults = [backend_values.flat_list(d) for d in record_defaults]
    types = [dtypes.as_dtype(t).name for t in OUT_TYPE]
    columns: list = [[] for _ in types]
    for r, record in enumerate(backend_values.flat_list(records)):
        fields = _csv_fields(bytes_of(record), r, delim[0], use_quote_delim, list(select_cols), len(types))
        for j, field in enumerate(fields):
            if field == b"" or (na and field == na):
                if not defaults[j]:
                    raise _error(f"Field {j} is required but missing in record {r}!")
                columns[j].append(defaults[j][0])
            else:
                columns[j].append(csv_fields.convert(field, types[j], j, r))
    shape = list(backend_values.shape_of(records))
    return kernel_result([from_flat(column, shape, t) for column, t in zip(columns, OUT_TYPE)])


register_op("DecodeCSV", "DecodeCSV", inputs=("records", "*record_defaults"), shape=_decode_csv_shape,
            portable=decode_csv_kernel)(decode_csv_kernel)


def _record_default(value: Any) -> Any:
    """A column's default as a tensor or an array (converted inside the op's name scope); `[]` is float32."""
    if is_tensor_like(value):
        default = convert_to_tensor(value)
    elif isinstance(value, (list, tuple)) and any(is_tensor_like(v) for v in value):
        default = stack(list(value))  # [tf.constant(0, tf.int64)]: packed, keeping the tensor's dtype
    else:
        default = to_numpy(value, dtypes.float32 if isinstance(value, list) and not value else None)
    dtype = default.dtype if is_tensor_like(default) else dtype_of(default)
    if dtype not in _CSV_TYPES:
        raise TypeError(f"Value for attr 'OUT_TYPE' of {dtype.name} is not in the list of allowed values: "
                        f"float, double, int32, int64, string")
    return default, dtype


def decode_csv_v2(records: Any, record_defaults: list, field_delim: str = ",", use_quote_delim: bool = True,
                  na_value: str = "", select_cols: Any = None, name: str | None = None) -> list:
    """TF2's `tf.io.decode_csv`: one tensor per column (each of `records`' shape); `record_defaults[j]` gives
    column j's dtype and the value of an empty field ([] or an empty tensor: the column is required)."""
    select_cols = [] if select_cols is None else list(select_cols)
    if select_cols and any(select_cols[i] >= select_cols[i + 1] for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    defaults, types = zip(*[_record_default(d) for d in record_defaults]) if record_defaults else ((), ())
    attrs = {"OUT_TYPE": list(types), "field_delim": field_delim,
             "use_quote_delim": bool(use_quote_delim), "na_value": na_value, "select_cols": select_cols}
    records = string_input(records)
    outputs = apply_op("DecodeCSV", [records] + list(defaults), attrs, name=name)
    return outputs if isinstance(outputs, list) else [outputs]


def decode_csv(records: Any, record_defaults: list, field_delim: str = ",", use_quote_delim: bool = True,
               name: str | None = None, na_value: str = "", select_cols: Any = None) -> list:
    """TF1's `tf.decode_csv` (`name` before `na_value`)."""
    return decode_csv_v2(records, record_defaults, field_delim, use_quote_delim, na_value, select_cols, name)


__all__ = ["decode_csv", "decode_csv_v2", "decode_raw", "decode_raw_v2"]
