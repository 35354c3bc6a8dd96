"""`tf.Assert`, TF1's `tf.Print` and `tf.print`: the Python side of logging_ops.py's ops, with TensorFlow's rules.

- `Assert(condition, data)`: eagerly a Python check, raising InvalidArgumentError("Expected '<condition>' to be
  true. Summarized data: ...") at once and returning None; in a graph an `Assert` op, returned as the Operation to
  put in `control_dependencies`. TensorFlow guards the op with a `cond` ("AssertGuard") when some data tensor is
  neither int32 nor string (to keep it off a GPU); webflow builds the Assert inside that name scope directly and
  returns an Identity named `AssertGuard/Merge` that depends on it, so the failing node's name is TensorFlow's.
- `Print(input_, data)`: Print op, an identity of `input_` that writes to stderr when it runs.
- `print_v2(*inputs)` (`tf.print`): a StringFormat of the inputs (nested structures printed as Python prints them,
  tensors as tf.print prints them) and a PrintV2 op; eagerly it prints now.
"""

from __future__ import annotations

import logging
import os
import pprint
import random
import sys
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.arrays.string_values import elements
from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.scopes import control_dependencies, name_scope_v1
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor import TensorBase
from webflow.ops import array_ops
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.convert import convert_to_tensor
from webflow.ops.logging_ops import print_v2_op
from webflow.ops.registry import apply_op
from webflow.ops.string_format_ops import string_format


# --- Assert ---------------------------------------------------------------------------------------------
def Assert(condition: Any, data: Any, summarize: int | None = None, name: str | None = None) -> Any:  # noqa: N802
    """`tf.Assert` / `tf.debugging.Assert`: the Operation that fails with InvalidArgumentError when `condition` is
    false, showing the first `summarize` (default 3; -1 all) entries of each of `data`. Eagerly: checks now."""
    data = list(data)
    if context.executing_eagerly():
        if not condition:
            texts = "\n".join(_summarize_eager(convert_to_tensor(x), summarize) for x in data)
            raise InvalidArgumentError(None, None, f"Expected '{condition!s}' to be true. Summarized data: {texts}")
        return None
    with name_scope_v1(name, "Assert"):
        tensors = [convert_to_tensor(x) for x in data]  # (as TensorFlow: Python values become Consts twice)
        if all(t.dtype.base_dtype in (dtypes.string, dtypes.int32) for t in tensors):
            return assert_op(condition, data, summarize, "Assert")
        condition = convert_to_tensor(condition, name="Condition")
        with name_scope_v1("AssertGuard"):
            checked = assert_op(condition, data, summarize, "Assert")
            with control_dependencies([checked]):
                return array_ops.identity(condition, name="Merge").op


def assert_op(condition: Any, data: list, summarize: int | None, name: str) -> Any:
    """The Assert op itself; Python values in `data` become Consts named data_<i> in its scope, as TF names them."""
    graph = context.get_default_graph()
    with graph.name_scope(name) as scope:
        condition = convert_to_tensor(condition, dtype=dtypes.bool, name="condition")
        tensors = [x if isinstance(x, TensorBase) else convert_to_tensor(x, name=f"data_{i}")
                   for i, x in enumerate(data)]
        attrs = {"T": [t.dtype.base_dtype for t in tensors], "summarize": 3 if summarize is None else int(summarize)}
        return apply_op("Assert", [condition] + tensors, attrs, name=scope)


def _summarize_eager(tensor: Any, summarize: int | None) -> str:
    """TensorFlow's eager summary of one data tensor: its first `summarize` elements as NumPy prints each."""
    count = tensor.shape.num_elements()
    summarize = 3 if summarize is None else (count if summarize < 0 else summarize)
    texts = element_strings(tensor)
    if tensor.shape.rank:
        shown = texts[:summarize]
        return ", ".join(shown + (["..."] if len(shown) < count else []))
    return texts[0] if summarize != 0 else ""


def element_strings(tensor: Any) -> list:
    """str() of each element, as NumPy's scalars print (np.float32(0.1) -> '0.1', bytes -> "b'a'")."""
    if HAVE_NUMPY:
        return [str(v) for v in np.asarray(tensor.numpy()).reshape(-1)]
    return [str(v) for v in elements(tensor._value)[0]]


# --- Print (TF1) -------------------------------------------------------------------------------------------
def Print(input_: Any, data: Any, message: str | None = None, first_n: int | None = None,  # noqa: N802
          summarize: int | None = None, name: str | None = None) -> Any:
    """TF1 `tf.Print`: `input_`, and when it runs, `message` then each of `data` in brackets on stderr (the first
    `first_n` runs; default every run), `summarize` (default 3) entries of each."""
    data = list(data)
    if context.executing_eagerly():
        first, rest = convert_to_tensor(input_), [convert_to_tensor(x) for x in data]
        return apply_op("Print", [first] + rest, _print_attrs(first, rest, message, first_n, summarize))
    graph = context.get_default_graph()
    with graph.name_scope(name or "Print") as scope:
        first = convert_to_tensor(input_, name="input")
        rest = [x if isinstance(x, TensorBase) else convert_to_tensor(x, name=f"data_{i}") for i, x in enumerate(data)]
        return apply_op("Print", [first] + rest, _print_attrs(first, rest, message, first_n, summarize), name=scope)


def _print_attrs(first: Any, rest: list, message: str | None, first_n: int | None, summarize: int | None) -> dict:
    return {"T": first.dtype.base_dtype, "U": [t.dtype.base_dtype for t in rest], "message": message or "",
            "first_n": -1 if first_n is None else int(first_n), "summarize": 3 if summarize is None else int(summarize)}


# --- tf.print ------------------------------------------------------------------------------------------
_LEVELS = {logging.INFO: "log(info)", logging.WARNING: "log(warning)", logging.ERROR: "log(error)"}
_LOGGING_FUNCTIONS = {"info": "log(info)", "warning": "log(warning)", "warn": "log(warning)", "error": "log(error)"}


def _stream_attr(output_stream: Any) -> str:
    """PrintV2's output_stream attr for sys.stdout / sys.stderr, a logging level or function (Python's or
    tf.logging's), or a "file://<path>" string, as TensorFlow maps them."""
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    found = None
    if output_stream is sys.stdout or output_stream is sys.stderr:
        found = "stdout" if output_stream is sys.stdout else "stderr"
    elif isinstance(output_stream, int) and not isinstance(output_stream, bool):
        found = _LEVELS.get(output_stream)
    elif callable(output_stream):
        found = _logging_function(output_stream)
    if not found:
        raise ValueError("Unsupported output stream, logging level, or file." + str(output_stream) +
                         ". Supported streams are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, "
                         "tf.logging.error. File needs to be in the form of 'file://<filepath>'.")
    return found


def _logging_function(function: Any) -> str | None:
    """logging.info / warning / warn / error, or tf.compat.v1.logging's (platform/tf_logging.py), by name."""
    module = getattr(function, "__module__", "") or ""
    if module == "logging" or module.endswith("tf_logging"):
        return _LOGGING_FUNCTIONS.get(getattr(function, "__name__", ""))
    return None


def print_v2(*inputs: Any, output_stream: Any = None, name: str | None = None, summarize: int = 3,
             sep: str = " ", end: str = os.linesep) -> Any:
    """`tf.print(*inputs)`: prints the inputs (tensors as tf.print shows them) to stderr by default. Eagerly it
    prints now and returns None; in a graph it returns the PrintV2 Operation (run it, or depend on it)."""
    stream = _stream_attr(sys.stderr if output_stream is None else output_stream)
    if len(inputs) == 1 and isinstance(inputs[0], TensorBase) and inputs[0].shape.rank == 0 \
            and inputs[0].dtype.base_dtype is dtypes.string:
        formatted = inputs[0]
    else:
        template, tensors, placeholder = _template(inputs, sep)
        formatted = string_format(template, tensors, placeholder=placeholder, summarize=summarize,
                                  name=None if not name else name + "_format")
    return print_v2_op(formatted, stream, end, name=name)


def _template(inputs: tuple, sep: str) -> tuple:
    """(template, tensors, placeholder): each input printed as Python's pprint prints it, with a placeholder where
    each tensor goes; the placeholder is "{}", lengthened with seeded digits while the text already holds it."""
    free = " ".join(pprint.pformat(_without_tensors(x)) for x in inputs)
    placeholder, rng = "{}", random.Random(5)
    while placeholder in free:
        placeholder += str(rng.randint(0, 9))
    templates, tensors = [], []
    for item in inputs:
        leaves = []
        for leaf in flatten(item):
            if isinstance(leaf, SparseTensor):  # its three parts (TF's template keeps this text in quotes)
                tensors += [leaf.indices, leaf.values, leaf.dense_shape]
                leaves.append(f"SparseTensor(indices={placeholder}, values={placeholder}, shape={placeholder})")
            elif isinstance(leaf, TensorBase):
                tensors.append(leaf)
                leaves.append(placeholder)
            else:
                leaves.append(leaf)
        templates.append(item if isinstance(item, str) else pprint.pformat(pack_sequence_as(item, leaves)))
    template = sep.join(templates).replace("'" + placeholder + "'", placeholder)
    return template, tensors, placeholder


def _without_tensors(item: Any) -> Any:
    return pack_sequence_as(item, ["" if isinstance(leaf, (TensorBase, SparseTensor)) else leaf
                                   for leaf in flatten(item)])


__all__ = ["Assert", "Print", "print_v2", "assert_op", "element_strings"]
