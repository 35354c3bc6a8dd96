"""Assert, Print and PrintV2: the ops that check or show values while a graph runs.

- `Assert(condition, data)`: no output; when `condition` is false it fails with InvalidArgumentError
  "assertion failed: [..] [..]", each data tensor summarized as TensorFlow's Tensor::SummarizeValue does
  (the first `summarize` elements in row-major order, nested brackets, "..." when cut short).
- `Print(input, data)` (TF1's `tf.Print`): returns `input` and writes `message` + each data tensor in brackets
  to stderr, the first `first_n` times it runs (-1: always).
- `PrintV2(input)` (`tf.print`): writes a string scalar, formatted by StringFormat (string_format_ops.py), to
  stdout, stderr, Python's "tensorflow" logger or a `file://` path, followed by `end`.
All three are stateful, so the executor runs them even when nothing reads them (runtime/executor.py
`_KEPT_FOR_EFFECT`) and a `wf.function` runs them on every call, in program order. Their kernels work on
backends/arrays/string_values.py's elements, with or without NumPy. The Python API is assert_ops.py.
"""

from __future__ import annotations

import logging
import sys
import threading
import weakref
from typing import Any

from webflow.backends.arrays.string_values import elements
from webflow.framework import dtypes
from webflow.ops.registry import apply_op, register_gradient, register_op
from webflow.ops.shapes import no_outputs, same_as_input

# one element as TensorFlow's StrCat prints it (the same text tf.print's StringFormat uses)
from webflow.ops.string_format_ops import _element_text as element_text
from webflow.ops.string_format_ops import _string_text as string_text


# --- Tensor::SummarizeValue (TensorFlow's legacy, non-tf.print format) -----------------------------------
def summarize_value(value: Any, dtype: Any, max_entries: int) -> str:
    """`value` as TensorFlow's Tensor::SummarizeValue(max_entries) prints it: the first `max_entries` elements
    (all when negative), space-separated, in nested brackets by dimension, "..." when some are left out."""
    items, shape = elements(value)
    count = len(items)
    limit = count if max_entries < 0 else min(max_entries, count)
    if dtype.is_complex:  # TF prints "?" for the types it has no printer for
        return " ".join("?" * limit) + ("..." if limit < count else "")
    if dtype.is_bool and limit == 0:  # (TF's bool case prints nothing at all then, not even "...")
        return ""
    text = _plain_string if dtype is dtypes.string else element_text(dtype)
    if not shape:
        return " ".join(text(items[i]) for i in range(limit)) + ("..." if count > limit else "")
    out: list = []
    _one_dim(0, tuple(shape), limit, items, [0], text, out)
    return "".join(out) + ("..." if count > limit else "")


def _plain_string(value: bytes) -> str:
    """A string element without quotes, C-escaped; UTF-8 text stays text (string_text works on latin-1 chars)."""
    return string_text(value)[1:-1].encode("latin-1").decode("utf-8", "replace")


def _one_dim(dim: int, shape: tuple, limit: int, items: list, index: list, text: Any, out: list) -> None:
    """TensorFlow's PrintOneDim: brackets for every dimension but the last; stops once `limit` elements are out."""
    if index[0] >= limit:
        return
    if dim == len(shape) - 1:
        for i in range(shape[dim]):
            if index[0] >= limit:
                if dim != 0:
                    out.append("...")
                return
            if i > 0:
                out.append(" ")
            out.append(text(items[index[0]]))
            index[0] += 1
        return
    for _ in range(shape[dim]):
        opened = index[0] < limit
        if opened:
            out.append("[")
        _one_dim(dim + 1, shape, limit, items, index, text, out)
        if index[0] < limit or opened:
            out.append("]")


def _bracketed(data: list, types: list, summarize: int) -> list:
    return ["[" + summarize_value(x, dtypes.as_dtype(t), summarize) + "]" for x, t in zip(data, types)]


# --- Assert --------------------------------------------------------------------------------------------
@register_op("Assert", "Assert", inputs=("condition", "*data"), shape=no_outputs, stateful=True)
def assert_kernel(condition: Any, *data: Any, T: list, summarize: int = 3) -> None:  # noqa: N803
    """Nothing when `condition` holds; else InvalidArgumentError "assertion failed: [d0] [d1] ...". """
    flat, shape = elements(condition)
    if shape:
        raise ValueError("In[0] should be a scalar: [" + ",".join(str(d) for d in shape) + "]")
    if not flat[0]:
        raise ValueError("assertion failed: " + " ".join(_bracketed(list(data), T, summarize)))


# --- Print (TF1's tf.Print) ----------------------------------------------------------------------------
# how many times each Print op has printed, per session (TF keeps the count in the session's kernel)
_PRINT_COUNTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PRINT_LOCK = threading.Lock()


@register_op("Print", "Print", inputs=("input", "*data"), shape=same_as_input, stateful=True, needs_context=True)
def print_kernel(context: Any, input: Any, *data: Any, T: Any = None, U: list, message: str = "",  # noqa: A002,N803
                 first_n: int = -1, summarize: int = 3) -> Any:
    """output = input; writes message + [d0][d1]... and a newline to stderr, the first `first_n` runs."""
    if first_n >= 0 and not _may_print(context, first_n):
        return input
    sys.stderr.write(message + "".join(_bracketed(list(data), U, summarize)) + "\n")
    sys.stderr.flush()
    return input


def _may_print(context: Any, first_n: int) -> bool:
    """Whether this run may still print: fewer than first_n before it by this op in this session. Eagerly (no
    op, no session) each call is its own first run."""
    owner = getattr(context, "session", None) or context.op
    if owner is None:
        return first_n > 0
    with _PRINT_LOCK:
        counts = _PRINT_COUNTS.setdefault(owner, {})
        done = counts.get(context.op_name, 0)
        if done >= first_n:
            return False
        counts[context.op_name] = done + 1
    return True


@register_gradient("Print")
def _print_grad(op: Any, grad: Any) -> list:
    """d(output)/d(input) = 1 (Print is an identity of its first input); the data get no gradient."""
    return [grad] + [None] * (len(op.inputs) - 1)


# --- PrintV2 (tf.print) --------------------------------------------------------------------------------
_LOG_LEVELS = {"log(info)": logging.INFO, "log(warning)": logging.WARNING, "log(error)": logging.ERROR}


@register_op("PrintV2", "PrintV2", inputs=("input",), shape=no_outputs, allowed=(dtypes.string,), stateful=True)
def print_v2_kernel(input: Any, *, output_stream: str = "stderr", end: str = "\n") -> None:  # noqa: A002
    """Writes the string scalar `input`, then `end`, to `output_stream`."""
    items, shape = elements(input)
    if shape:
        raise ValueError("Input is expected to be scalar, but got [" + ",".join(str(d) for d in shape) + "]")
    text = _decoded(items[0])
    if output_stream in ("stdout", "stderr"):
        stream = sys.stdout if output_stream == "stdout" else sys.stderr
        stream.write(text + end)
        stream.flush()
    elif output_stream in _LOG_LEVELS:  # TensorFlow logs through its C++ logger; webflow through Python's
        logging.getLogger("tensorflow").log(_LOG_LEVELS[output_stream], text + end.rstrip("\n"))
    elif output_stream.startswith("file://"):
        with open(output_stream[len("file://"):], "a", encoding="utf-8") as file:
            file.write(text + end)
    else:
        raise ValueError(f"{output_stream} is not a valid output_stream; valid ones are stdout, stderr, "
                         "log(info), log(warning), log(error) and file://<filename>")


def _decoded(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def print_v2_op(formatted: Any, output_stream: str, end: str, name: str | None = None) -> Any:
    """The PrintV2 op on a formatted string scalar (None eagerly: it has printed)."""
    return apply_op("PrintV2", [formatted], {"output_stream": output_stream, "end": end}, name=name)
