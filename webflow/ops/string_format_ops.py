"""StringFormat (`tf.strings.format`): a template whose placeholders are replaced by tensors printed as TensorFlow
prints them in `tf.print`: numbers in the shortest of C's %g forms that reads back exactly, bools as 1 / 0,
strings in double quotes with C escapes, nested brackets, and only the first and last `summarize` entries of each
long dimension (`...` between). The kernel runs with or without NumPy; it is not differentiable.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from webflow.backends.arrays.string_values import elements, strings
from webflow.framework import dtypes
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op

_ESCAPES = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}


def _float_text(value: float, single: bool) -> str:
    """TensorFlow's StrCat of a float: %g with 6 (float) or 15 (double) digits if that reads back, else 9 / 17."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    short, long = (6, 9) if single else (15, 17)
    text = f"{value:.{short}g}"
    back = float(text)
    if single:
        back = struct.unpack("f", struct.pack("f", back))[0]
    return text if back == value else f"{value:.{long}g}"


def _string_text(value: bytes) -> str:
    """In double quotes, C escapes: named ones, octal for the other control bytes; bytes from 0x80 stay as they
    are (UTF-8 text prints as text). Texts here are bytes read as latin-1, one character per byte."""
    out = []
    for byte in value:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte >= 0x20 and byte != 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _element_text(dtype: Any) -> Any:
    if dtype is dtypes.string:
        return _string_text
    if dtype.is_bool:
        return lambda v: "1" if v else "0"
    if dtype.is_floating:
        single = dtype is not dtypes.float64
        return lambda v: _float_text(float(v), single)
    return lambda v: str(int(v))


def tensor_text(items: list, shape: tuple, dtype: Any, summarize: int) -> str:
    """A tensor's values as tf.print shows them."""
    text = _element_text(dtype)
    if not shape:
        return text(items[0])
    if math.prod(shape) == 0:
        return "[]"
    return _nested(items, tuple(shape), text, summarize, 0)


def _nested(items: list, shape: tuple, text: Any, summarize: int, depth: int) -> str:
    count, inner = shape[0], math.prod(shape[1:])
    shown = list(range(count))
    if 0 <= summarize and 2 * summarize < count:
        shown = list(range(summarize)) + [None] + list(range(count - summarize, count))
    if len(shape) == 1:
        return "[" + " ".join("..." if i is None else text(items[i]) for i in shown) + "]"
    parts = ["..." if i is None else _nested(items[i * inner:(i + 1) * inner], shape[1:], text, summarize, depth + 1)
             for i in shown]
    return "[" + ("\n" * (len(shape) - 1) + " " * (depth + 1)).join(parts) + "]"


@register_op("StringFormat", "StringFormat", inputs=("*inputs",), shape=lambda inputs, attrs: output_spec(
    [], dtypes.string))
def string_format_kernel(*inputs: Any, T: list, template: str, placeholder: str = "{}",  # noqa: N803
                         summarize: int = 3) -> Any:
    """output = template with its i-th placeholder replaced by inputs[i] printed as tf.print prints it."""
    pieces = [piece.encode().decode("latin-1") for piece in template.split(placeholder)]  # (bytes as latin-1)
    texts = [tensor_text(*elements(x), dtypes.as_dtype(dtype), summarize) for x, dtype in zip(inputs, T)]
    out = pieces[0] + "".join(t + piece for t, piece in zip(texts, pieces[1:]))
    return strings([out.encode("latin-1")], ())


def string_format(template: str, inputs: Any, placeholder: str = "{}", summarize: int = 3,
                  name: str | None = None) -> Any:
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    tensors = [convert_to_tensor(x) for x in inputs]
    expected = template.count(placeholder)
    if expected != len(tensors):
        raise ValueError(f"The template expects {expected} tensors, but the inputs only has {len(tensors)}. Please "
                         "ensure the number of placeholders in template matches inputs length.")
    attrs = {"T": [t.dtype.base_dtype for t in tensors], "template": template, "placeholder": placeholder,
             "summarize": int(summarize)}
    return apply_op("StringFormat", tensors, attrs, name=name)


NotDifferentiable("StringFormat")
