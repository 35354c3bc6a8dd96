"""CheckNumerics: the tensor passed through unchanged, or TensorFlow's InvalidArgumentError when it holds a NaN or an
infinity (`tf.check_numerics(loss, "loss")` -> "loss : Tensor had NaN values"). The executor keeps the op even when
nothing reads its output (runtime/executor.py `_KEPT_FOR_EFFECT`), as TensorFlow's graph optimizer does.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.registry import apply_op, register_gradient, register_op
from webflow.ops.shapes import same_as_input


def _found(has_inf: bool, has_nan: bool) -> str | None:
    """TensorFlow's words for what the tensor held (Inf before NaN when both), None when all values are finite."""
    found = " and ".join(word for word, seen in (("Inf", has_inf), ("NaN", has_nan)) if seen)
    return found or None


def _check(context: Any, found: str | None, message: str) -> None:
    """TensorFlow's InvalidArgumentError when `found` names non-finite values: eagerly as its eager op raises it
    ("... [Op:CheckNumerics]"); in a graph a ValueError, which the executor reports with the node
    (runtime/kernel_errors.py)."""
    if found is None:
        return
    text = f"{message} : Tensor had {found} values"
    if getattr(context, "op", None) is None:
        raise InvalidArgumentError(None, None, f"{text} [Op:CheckNumerics]")
    raise ValueError(text)


def check_numerics_portable(context: Any, tensor: Any, *, message: str, **_: Any) -> Any:
    """The same check without NumPy (Pyodide): over the flat values."""
    flat = backend_values.flat_list(tensor)
    _check(context, _found(any(math.isinf(v) for v in flat), any(math.isnan(v) for v in flat)), message)
    return tensor


@register_op("CheckNumerics", "CheckNumerics", inputs=("tensor",), shape=same_as_input, allowed=dtypes.FLOATING,
             needs_context=True, portable=check_numerics_portable)
def check_numerics_kernel(context: Any, tensor: Any, *, message: str, **_: Any) -> Any:
    """y = tensor, after checking that every value is finite (no NaN, no +-Inf)."""
    _check(context, _found(bool(np.isinf(tensor).any()), bool(np.isnan(tensor).any())), message)
    return tensor


@register_gradient("CheckNumerics")
def _check_numerics_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1, and the gradient is checked too. TensorFlow formats the message as bytes (`b'loss'`): kept."""
    message = op.get_attr("message")
    message = message.decode() if isinstance(message, bytes) else message
    return check_numerics(grad, f"Not a number (NaN) or infinity (Inf) values detected in gradient. b'{message}'")


def check_numerics(tensor: Any, message: str, name: str | None = None) -> Any:
    """`tf.check_numerics` / `tf.debugging.check_numerics`: `tensor`, or an InvalidArgumentError naming `message`
    when it holds a NaN or an infinity."""
    return apply_op("CheckNumerics", [tensor], {"message": message}, name=name)


__all__ = ["check_numerics"]
