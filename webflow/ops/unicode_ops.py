"""Strings to code points and back: UnicodeDecode (`tf.strings.unicode_decode`: a RaggedTensor of int32 code
points per string) and UnicodeEncode (`tf.strings.unicode_encode`), in UTF-8, UTF-16-BE or UTF-32-BE, with
TensorFlow's error modes: "strict" raises, "replace" puts `replacement_char` for each bad sequence or code point,
"ignore" drops it. Plus `tf.strings.unicode_split` (the two composed) and `tf.strings.bytes_split` (StringSplit
with an empty delimiter).

Python's codecs do the work, so the kernels run with or without NumPy; neither op is differentiable.
"""

from __future__ import annotations

import codecs
from typing import Any

from webflow.backends.arrays.string_values import elements, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.ragged_tensor import RaggedTensor
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import NotDifferentiable, apply_op, op_scope, output_spec, register_op

ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
ERROR_MODES = ("strict", "replace", "ignore")
MAX_CODE_POINT = 0x10FFFF


def _codec(encoding: str) -> str:
    if encoding not in ENCODINGS:
        raise InvalidArgumentError(None, None, f"Could not create converter for input encoding: {encoding}")
    return ENCODINGS[encoding]


# A bad sequence decodes to a lone surrogate, which no valid text decodes to: the kernel then replaces or drops it.
# Python reports each maximal bad subsequence once, as ICU (TensorFlow's decoder) does.
BAD_SEQUENCE = "\udfff"
codecs.register_error("webflow_mark_bad", lambda error: (BAD_SEQUENCE, error.end))


def _is_control(code: int) -> bool:
    return code < 0x20  # (the C0 controls: TensorFlow keeps DEL and the C1 range)


# --- UnicodeDecode --------------------------------------------------------------------------------------------
def _decode_shape(inputs: list, attrs: dict) -> list:
    rows = inputs[0].shape.num_elements()
    return [output_spec([None if rows is None else rows + 1], attrs.get("Tsplits", dtypes.int64)),
            output_spec([None], dtypes.int32)]


@register_op("UnicodeDecode", "UnicodeDecode", inputs=("input",), shape=_decode_shape, allowed=(dtypes.string,))
def unicode_decode_kernel(x: Any, *, input_encoding: str, errors: str = "replace", replacement_char: int = 65533,
                          replace_control_characters: bool = False, Tsplits: Any = dtypes.int64) -> list:  # noqa: N803
    """row_splits, char_values: the code points of every string of x (flattened), string i's being
    char_values[row_splits[i]:row_splits[i + 1]]; an invalid sequence is an error, `replacement_char`, or dropped."""
    codec = _codec(input_encoding)
    splits, values = [0], []
    for text in elements(x)[0]:
        try:
            decoded = text.decode(codec, "strict" if errors == "strict" else "webflow_mark_bad")
        except UnicodeDecodeError:
            raise InvalidArgumentError(None, None, "Invalid formatting on input string") from None
        codes = []
        for char in decoded:
            code = ord(char)
            if char == BAD_SEQUENCE:
                if errors == "ignore":
                    continue
                code = replacement_char
            elif replace_control_characters and _is_control(code):
                code = replacement_char
            codes.append(code)
        values.extend(codes)
        splits.append(len(values))
    return [numbers(splits, (len(splits),), Tsplits), numbers(values, (len(values),), dtypes.int32)]


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Any:
    """A vector of strings -> a RaggedTensor of code points; a scalar -> a vector of code points."""
    from webflow.ops.array_ops import reshape

    if errors not in ERROR_MODES:
        raise ValueError(f"errors must be one of {ERROR_MODES}, got {errors!r}")
    with op_scope(name or "UnicodeDecode"):
        input = convert_to_tensor(input, dtype=dtypes.string)  # noqa: A001
        if input.shape.rank not in (0, 1):
            raise NotImplementedError("webflow's unicode_decode takes a scalar or a vector of strings")
        attrs = {"input_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char),
                 "replace_control_characters": bool(replace_control_characters), "Tsplits": dtypes.int64}
        splits, codes = apply_op("UnicodeDecode", [reshape(input, [-1])], attrs)
        return codes if input.shape.rank == 0 else RaggedTensor(codes, splits)


# --- UnicodeEncode --------------------------------------------------------------------------------------------
def _encode_shape(inputs: list, attrs: dict) -> tuple:
    splits = inputs[1].shape.num_elements()
    return output_spec([None if splits is None else splits - 1], dtypes.string)


@register_op("UnicodeEncode", "UnicodeEncode", inputs=("input_values", "input_splits"), shape=_encode_shape)
def unicode_encode_kernel(codes: Any, splits: Any, *, output_encoding: str, errors: str = "replace",
                          replacement_char: int = 65533, Tsplits: Any = dtypes.int64) -> Any:  # noqa: N803
    """y[i] = the code points input_values[input_splits[i]:input_splits[i + 1]] encoded; a code point past
    U+10FFFF, negative or a surrogate is an error, `replacement_char`, or dropped."""
    codec = _codec(output_encoding)
    values, bounds = elements(codes)[0], [int(s) for s in elements(splits)[0]]
    out = []
    for start, stop in zip(bounds, bounds[1:]):
        chars = []
        for code in values[start:stop]:
            if not 0 <= code <= MAX_CODE_POINT or 0xD800 <= code <= 0xDFFF:
                if errors == "strict":
                    raise InvalidArgumentError(None, None, "Code point is out of range for Unicode, or is a surrogate.")
                if errors == "ignore":
                    continue
                code = replacement_char
            chars.append(chr(code))
        out.append("".join(chars).encode(codec))
    return strings(out, (len(out),))


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, name: str | None = None) -> Any:
    """A RaggedTensor (or matrix) of code points -> one string per row; a vector -> one string."""
    from webflow.ops.array_ops import reshape, shape
    from webflow.ops.concat_ops import concat
    from webflow.ops.math_ops import cast

    if output_encoding not in ENCODINGS:
        raise ValueError(f"output_encoding must be one of {tuple(ENCODINGS)}, got {output_encoding!r}")
    with op_scope(name or "UnicodeEncode"):
        attrs = {"output_encoding": output_encoding, "errors": errors, "replacement_char": int(replacement_char),
                 "Tsplits": dtypes.int64}
        if isinstance(input, RaggedTensor):
            return apply_op("UnicodeEncode", [input.values, input.row_splits], attrs)
        codes = convert_to_tensor(input, dtype=dtypes.int32)
        if codes.shape.rank == 1:  # one row: splits [0, length]
            splits = concat([convert_to_tensor([0], dtype=dtypes.int64), cast(shape(codes), dtypes.int64)], 0)
            return reshape(apply_op("UnicodeEncode", [codes, splits], attrs), [])
        if codes.shape.rank == 2 and codes.shape.is_fully_defined():
            rows, width = codes.shape.as_list()
            splits = convert_to_tensor([i * width for i in range(rows + 1)], dtype=dtypes.int64)
            return apply_op("UnicodeEncode", [reshape(codes, [-1]), splits], attrs)
        raise NotImplementedError("webflow's unicode_encode takes a RaggedTensor, a vector or a static matrix")


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Each string cut into its characters (each one a string in the same encoding): decoded to code points, then
    every code point encoded on its own (a bad sequence becomes the replacement character, where TensorFlow keeps
    its bytes)."""
    from webflow.ops.sequence_ops import range as range_op

    with op_scope(name or "UnicodeSplit"):
        decoded = unicode_decode(input, input_encoding, errors, replacement_char)
        codes = decoded.values if isinstance(decoded, RaggedTensor) else decoded
        attrs = {"output_encoding": input_encoding, "errors": errors, "replacement_char": int(replacement_char),
                 "Tsplits": dtypes.int64}
        one_each = range_op(0, _count(codes) + 1, 1, dtype=dtypes.int64)
        chars = apply_op("UnicodeEncode", [codes, one_each], attrs)
        return RaggedTensor(chars, decoded.row_splits) if isinstance(decoded, RaggedTensor) else chars


def _count(codes: Any) -> Any:
    from webflow.ops.array_ops import shape

    return shape(codes, out_type=dtypes.int64)[0]


def bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Each string of a vector cut into single bytes: a RaggedTensor (a scalar gives a vector)."""
    from webflow.ops.manip_ops import expand_dims
    from webflow.ops.string_ops import string_split

    input = convert_to_tensor(input, dtype=dtypes.string)  # noqa: A001
    if input.shape.rank == 0:
        return string_split(expand_dims(input, 0), "", name=name).values
    return string_split(input, "", result_type="RaggedTensor", name=name)


for _op_type in ("UnicodeDecode", "UnicodeEncode"):
    NotDifferentiable(_op_type)
