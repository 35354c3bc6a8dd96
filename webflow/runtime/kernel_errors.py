"""How a kernel's failure reaches the user: as TensorFlow's OpError naming the op that failed.

The executor (executor.py) and the fused steps (fusion.py) both run kernels and report their errors this
way; it lives apart from both so that neither has to import the other for it.
"""

from __future__ import annotations

import linecache
import os
from typing import Any

from webflow.framework.errors import InvalidArgumentError, OpError
from webflow.framework.run_time_messages import tensorflow_message

_WEBFLOW_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# what a kernel may raise on bad values: reported as an InvalidArgumentError naming the op (kernel_error)
KERNEL_ERRORS = (ValueError, IndexError, TypeError, ArithmeticError, KeyError)


def with_op(error: OpError, op: Any) -> OpError:
    if error.op is None:
        error._op = op
    return error


def kernel_error(op: Any, args: list, error: Exception, attrs: dict | None = None) -> InvalidArgumentError:
    """An InvalidArgumentError in TensorFlow's words when framework/run_time_messages.py knows them for these
    inputs (so NumPy's own never reach the learner), else naming the op, its type and the shapes it got."""
    message = tensorflow_message(op.type, op.op_def.shape, args, attrs or {}) if hasattr(op, "op_def") else None
    if message is None and raised_by_webflow(error):
        message = str(error)  # a kernel's own check, written in TensorFlow's words
    if message is None:
        described = ", ".join(f"{t.name} {shape_text_of(v)}" for t, v in zip(op.inputs, args))
        message = f"{op.type} op '{op.name}' failed on inputs ({described}): {error}"
    return InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def raised_by_webflow(error: Exception) -> bool:
    """Whether a `raise` statement in webflow's own code made `error` (a kernel's check, in TensorFlow's words),
    rather than NumPy or the C library (their words are theirs: the op's name and input shapes go with them)."""
    tb = error.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    file = os.path.abspath(tb.tb_frame.f_code.co_filename)
    return file.startswith(_WEBFLOW_DIR) and linecache.getline(file, tb.tb_lineno).lstrip().startswith("raise ")


def missing_numpy_error(op: Any, args: list, error: Exception, attrs: dict) -> Exception:
    """Without NumPy (Pyodide), a C adapter that refuses bad shapes hands them to the NumPy kernel, which cannot
    run: TensorFlow's message for those inputs when known, else the NumpyUnavailable as it is."""
    message = tensorflow_message(op.type, op.op_def.shape, args, attrs) if hasattr(op, "op_def") else None
    if message is None:
        return error
    return InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def shape_text_of(value: Any) -> str:
    shape = getattr(value, "shape", None)
    return "[]" if shape is None else "[" + ",".join(str(d) for d in shape) + "]"


__all__ = ["KERNEL_ERRORS", "with_op", "kernel_error", "missing_numpy_error", "shape_text_of"]
