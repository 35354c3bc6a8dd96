"""TensorFlow's CSV rules (DecodeCSV's kernel, in plain Python): splitting one record into fields and turning a
field into a number, with TensorFlow's error messages.

Splitting: fields are separated by `delim`; with `use_quote_delim`, a field starting with '"' runs to the next '"'
that is followed by the delimiter or the end of the record, and '""' inside it stands for one '"'. Line breaks
between fields are skipped; a record ending in the delimiter has an empty last field; an empty record has no
fields. Numbers: optional spaces and sign around decimal digits (ints), or a decimal / exponent / inf / nan float.
"""

from __future__ import annotations

import re

from webflow.framework.errors import InvalidArgumentError

_INT = re.compile(rb"\s*[+-]?\d+\s*")
_FLOAT = re.compile(rb"\s*[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)\s*", re.IGNORECASE)
_INT_RANGE = {"int32": 1 << 31, "int64": 1 << 63}


def _error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def _quoted(record: bytes, pos: int, delim: int) -> tuple[bytes, int]:
    """(field, position after it) of a quoted field whose opening quote is at pos - 1."""
    field = bytearray()
    last = len(record) - 1
    while pos < last and (record[pos] != 0x22 or record[pos + 1] != delim):
        if record[pos] != 0x22:
            field.append(record[pos])
            pos += 1
            continue
        if record[pos + 1] != 0x22:
            raise _error("Quote inside a string has to be escaped by another quote")
        field.append(0x22)
        pos += 2
    if not (pos < len(record) and record[pos] == 0x22 and (pos == last or record[pos + 1] == delim)):
        raise _error("Quoted field has to end with quote followed by delim or end")
    return bytes(field), pos + 2


def _unquoted(record: bytes, pos: int, delim: int, use_quote_delim: bool) -> tuple[bytes, int]:
    start = pos
    while pos < len(record) and record[pos] != delim:
        if (use_quote_delim and record[pos] == 0x22) or record[pos] in (0x0A, 0x0D):
            raise _error("Unquoted fields cannot have quotes/CRLFs inside")
        pos += 1
    return record[start:pos], pos + 1


def split_record(record: bytes, delim: int, use_quote_delim: bool) -> list:
    """The fields of one CSV record (bytes)."""
    fields: list = []
    pos = 0
    while pos < len(record):
        if record[pos] in (0x0A, 0x0D):
            pos += 1
            continue
        if use_quote_delim and record[pos] == 0x22:
            field, pos = _quoted(record, pos + 1, delim)
        else:
            field, pos = _unquoted(record, pos, delim, use_quote_delim)
        fields.append(field)
    if record and record[-1] == delim:
        fields.append(b"")
    return fields


def convert(field: bytes, dtype_name: str, column: int, record_index: int) -> object:
    """A field as a value of `dtype_name` ("int32", "int64", "float32", "float64" or "string")."""
    if dtype_name == "string":
        return field
    if dtype_name in _INT_RANGE:
        limit = _INT_RANGE[dtype_name]
        if _INT.fullmatch(field) and -limit <= int(field) < limit:
            return int(field)
        raise _error(f"Field {column} in record {record_index} is not a valid {dtype_name}: "
                     f"{field.decode('utf-8', 'backslashreplace')}")
    if _FLOAT.fullmatch(field):
        return float(field)
    what = "float" if dtype_name == "float32" else "double"
    raise _error(f"Field {column} in record {record_index} is not a valid {what}: "
                 f"{field.decode('utf-8', 'backslashreplace')}")
