"""How a kernel's failure reaches the user: as TensorFlow's OpError naming the op that failed.

The executor (executor.py) and the fused steps (fusion.py) both run kernels and report their errors this
way; it lives apart from both so that neither has to import the other for it.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.errors import InvalidArgumentError, OpError

# what a kernel may raise on bad values: reported as an InvalidArgumentError naming the op (kernel_error)
KERNEL_ERRORS = (ValueError, IndexError, TypeError, ArithmeticError, KeyError)


def with_op(error: OpError, op: Any) -> OpError:
    if error.op is None:
        error._op = op
    return error


def kernel_error(op: Any, args: list, error: Exception) -> InvalidArgumentError:
    """An InvalidArgumentError that names the op, its type and the shapes of the values it got."""
    described = ", ".join(f"{t.name} {shape_text_of(v)}" for t, v in zip(op.inputs, args))
    return InvalidArgumentError(
        None, op, f"{op.type} op '{op.name}' failed on inputs ({described}): {error}\n\t [[{{{{node {op.name}}}}}]]")


def shape_text_of(value: Any) -> str:
    shape = getattr(value, "shape", None)
    return "[]" if shape is None else "[" + ",".join(str(d) for d in shape) + "]"


__all__ = ["KERNEL_ERRORS", "with_op", "kernel_error", "shape_text_of"]
