"""`tf.debugging.assert_equal` and its family: element-wise comparisons that must hold, with TensorFlow's rules.

Eagerly each check runs now: nothing when it holds, else InvalidArgumentError with TensorFlow's eager message
("Condition x == y did not hold.", the indices and values that differ, the first elements of x and y). In a graph
it returns an Assert (assert_ops.py) built in a name scope named after the function (`assert_equal_1/Assert/...`),
whose message says "Condition x == y did not hold element-wise:" with each tensor's name and values; when x and y
are both constants the check runs at build time and a false one raises InvalidArgumentError there. TF1's
signatures take `data` (the tensors to show instead); TF2's (`*_v2`) do not. The rank and type checks are
rank_checks.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import context
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import TensorBase
from webflow.ops import logic_ops, unary_math_ops
from webflow.ops.assert_ops import Assert, element_strings
from webflow.ops.control_flow_ops import no_op
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.reduction_ops import reduce_all


def message_prefix(message: str | None) -> str:
    """TensorFlow's prefix for a user message: "<message>.  " (or nothing)."""
    return f"{message}.  " if message else ""


def shape_and_dtype(tensor: Any) -> str:
    """How an eager tensor is named in messages: "shape=(3,) dtype=float32"."""
    return f"shape={tensor.shape} dtype={tensor.dtype.name}"


def pretty(item: Any, summarize: int) -> str:
    """One item of an eager assertion's data: a tensor as a list of its first `summarize` elements' texts (or the
    value of a scalar), anything else as str() gives it."""
    if not isinstance(item, TensorBase):
        return str(item)
    texts = element_strings(item)
    if item.shape.rank == 0:
        return texts[0]
    shown = texts[:int(summarize)]
    return str(shown + (["..."] if len(shown) < len(texts) else []))


def _static_text(item: Any) -> str:
    """A data item in a build-time failure: a constant tensor's value as NumPy prints it."""
    if not isinstance(item, TensorBase):
        return str(item)
    value = constant_value(item)
    return str(value) if value is not None else str(item)


# --- the comparisons ------------------------------------------------------------------------------------
def _binary_assert(sym: str, opname: str, op_func: Callable, static_func: str, x: Any, y: Any, data: Any,
                   summarize: int | None, message: str | None, name: str | None) -> Any:
    with name_scope_v1(name, opname):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y")
        if context.executing_eagerly():
            return _eager_check(sym, op_func, x, y, data, summarize, message)
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = reduce_all(op_func(x, y))
        _check_statically(static_func, x, y, data)
        return Assert(condition, data, summarize=summarize)


def _check_statically(static_func: str, x: Any, y: Any, data: list) -> None:
    """Both values known while building: a false condition raises now, as TensorFlow does (NumPy decides it; in
    Pyodide, without NumPy, the Assert decides when it runs)."""
    x_static, y_static = constant_value(x), constant_value(y)
    if x_static is None or y_static is None or not HAVE_NUMPY:
        return
    if not np.all(getattr(np, static_func)(np.asarray(x_static), np.asarray(y_static))):
        raise InvalidArgumentError(None, None, "\n".join(_static_text(d) for d in data))


def _eager_check(sym: str, op_func: Callable, x: Any, y: Any, data: Any, summarize: int | None,
                 message: str | None) -> None:
    test = op_func(x, y)
    if reduce_all(test):
        return None
    summarize = 3 if summarize is None else (10**9 if summarize < 0 else summarize)
    if data is None:
        data = _difference_report(sym, x, y, summarize, test)
    if message is not None:
        data = [message] + list(data)
    raise InvalidArgumentError(None, None, "\n".join(pretty(d, summarize) for d in data))


def _difference_report(sym: str, x: Any, y: Any, summarize: int, test: Any) -> list:
    """TensorFlow's eager report: where x and y differ (same shapes only), then the first elements of each."""
    data: list = [f"Condition x {sym} y did not hold."]
    if summarize <= 0 or not HAVE_NUMPY:
        return data
    x_np, y_np = np.asarray(x.numpy()), np.asarray(y.numpy())
    if x.shape == y.shape and x.shape.as_list():
        mask = np.logical_not(np.asarray(test.numpy()))
        indices = np.argwhere(mask)
        count = min(summarize, indices.shape[0])
        data += [f"Indices of first {count} different values:", indices[:count],
                 "Corresponding x values:", x_np[mask].reshape(-1)[:count],
                 "Corresponding y values:", y_np[mask].reshape(-1)[:count]]
    x_flat, y_flat = x_np.reshape(-1), y_np.reshape(-1)
    x_count, y_count = min(x_flat.size, summarize), min(y_flat.size, summarize)
    return data + [f"First {x_count} elements of x:", x_flat[:x_count], f"First {y_count} elements of y:",
                   y_flat[:y_count]]


def assert_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                 name: str | None = None) -> Any:
    """TF1 `tf.assert_equal`: x == y element-wise (broadcasting)."""
    with name_scope_v1(name, "assert_equal"):
        if x is y:  # the same tensor: nothing to check (TensorFlow's short cut, inside its own scope)
            return None if context.executing_eagerly() else no_op()
    return _binary_assert("==", "assert_equal", logic_ops.equal, "equal", x, y, data, summarize, message, name)


def assert_none_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                      name: str | None = None) -> Any:
    return _binary_assert("!=", "assert_none_equal", logic_ops.not_equal, "not_equal", x, y, data, summarize,
                          message, name)


def assert_less(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                name: str | None = None) -> Any:
    return _binary_assert("<", "assert_less", logic_ops.less, "less", x, y, data, summarize, message, name)


def assert_less_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                      name: str | None = None) -> Any:
    return _binary_assert("<=", "assert_less_equal", logic_ops.less_equal, "less_equal", x, y, data, summarize,
                          message, name)


def assert_greater(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                   name: str | None = None) -> Any:
    return _binary_assert(">", "assert_greater", logic_ops.greater, "greater", x, y, data, summarize, message, name)


def assert_greater_equal(x: Any, y: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                         name: str | None = None) -> Any:
    return _binary_assert(">=", "assert_greater_equal", logic_ops.greater_equal, "greater_equal", x, y, data,
                          summarize, message, name)


# --- against zero: assert_less / assert_less_equal with zero, in their own scope ---------------------------
def _sign_assert(x: Any, data: Any, summarize: int | None, message: str | None, name: str | None, default: str,
                 condition_texts: list, check: Callable, zero_first: bool) -> Any:
    message = message_prefix(message)
    with name_scope_v1(name, default):
        x = convert_to_tensor(x, name="x")
        if data is None:
            label = shape_and_dtype(x) if context.executing_eagerly() else x.name
            data = [message] + [text.replace("{label}", label) for text in condition_texts] + [x]
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        pair = (zero, x) if zero_first else (x, zero)
        return check(*pair, data=data, summarize=summarize)


# (assert_non_positive's two texts are one in TensorFlow: a missing comma there, kept for the same message)
def assert_negative(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                    name: str | None = None) -> Any:
    return _sign_assert(x, data, summarize, message, name, "assert_negative",
                        ["Condition x < 0 did not hold element-wise:", "x ({label}) = "], assert_less, False)


def assert_positive(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                    name: str | None = None) -> Any:
    return _sign_assert(x, data, summarize, message, name, "assert_positive",
                        ["Condition x > 0 did not hold element-wise:", "x ({label}) = "], assert_less, True)


def assert_non_negative(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                        name: str | None = None) -> Any:
    return _sign_assert(x, data, summarize, message, name, "assert_non_negative",
                        ["Condition x >= 0 did not hold element-wise:", "x ({label}) = "], assert_less_equal, True)


def assert_non_positive(x: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                        name: str | None = None) -> Any:
    return _sign_assert(x, data, summarize, message, name, "assert_non_positive",
                        ["Condition x <= 0 did not hold element-wise:x ({label}) = "], assert_less_equal, False)


# --- closeness ------------------------------------------------------------------------------------------
_EPS = {"float16": 0.0009765625, "bfloat16": 0.0078125, "float32": 1.1920928955078125e-07,
        "float64": 2.220446049250313e-16}


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None, data: Any = None, summarize: int | None = None,
                message: str | None = None, name: str | None = None) -> Any:
    """TF1 `tf.assert_near`: |x - y| < atol + rtol * |y| element-wise; rtol and atol default to 10 * the dtype's
    machine epsilon (about 1.2e-6 for float32)."""
    message = message_prefix(message)
    with name_scope_v1(name, "assert_near"):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        dtype = x.dtype.base_dtype.real_dtype if x.dtype.is_complex else x.dtype.base_dtype
        eps = _EPS.get(dtype.name, _EPS["float32"])
        rtol = convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=dtype)
        atol = convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=dtype)
        eager = context.executing_eagerly()
        x_name, y_name = (shape_and_dtype(x), shape_and_dtype(y)) if eager else (x.name, y.name)
        if data is None:
            data = [message, f"x and y not equal to tolerance rtol = {rtol!s}, atol = {atol!s}", f"x ({x_name}) = ", x,
                    f"y ({y_name}) = ", y]
        tolerance = atol + rtol * unary_math_ops.abs(y)
        difference = unary_math_ops.abs(x - y)
        condition = reduce_all(logic_ops.less(difference, tolerance))
        return Assert(condition, data, summarize=summarize)


# --- TF2 signatures (no `data`) ---------------------------------------------------------------------------
def assert_equal_v2(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                    name: str | None = None) -> Any:
    return assert_equal(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_none_equal_v2(x: Any, y: Any, summarize: int | None = None, message: str | None = None,
                         name: str | None = None) -> Any:
    return assert_none_equal(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_less_v2(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                   name: str | None = None) -> Any:
    return assert_less(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_less_equal_v2(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                         name: str | None = None) -> Any:
    return assert_less_equal(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_greater_v2(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                      name: str | None = None) -> Any:
    return assert_greater(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_greater_equal_v2(x: Any, y: Any, message: str | None = None, summarize: int | None = None,
                            name: str | None = None) -> Any:
    return assert_greater_equal(x=x, y=y, summarize=summarize, message=message, name=name)


def assert_negative_v2(x: Any, message: str | None = None, summarize: int | None = None,
                       name: str | None = None) -> Any:
    return assert_negative(x=x, summarize=summarize, message=message, name=name)


def assert_positive_v2(x: Any, message: str | None = None, summarize: int | None = None,
                       name: str | None = None) -> Any:
    return assert_positive(x=x, summarize=summarize, message=message, name=name)


def assert_non_negative_v2(x: Any, message: str | None = None, summarize: int | None = None,
                           name: str | None = None) -> Any:
    return assert_non_negative(x=x, summarize=summarize, message=message, name=name)


def assert_non_positive_v2(x: Any, message: str | None = None, summarize: int | None = None,
                           name: str | None = None) -> Any:
    return assert_non_positive(x=x, summarize=summarize, message=message, name=name)


def assert_near_v2(x: Any, y: Any, rtol: Any = None, atol: Any = None, message: str | None = None,
                   summarize: int | None = None, name: str | None = None) -> Any:
    return assert_near(x=x, y=y, rtol=rtol, atol=atol, summarize=summarize, message=message, name=name)
