"""`tf.debugging.assert_rank` and the other checks of a tensor's rank, type and values, with TensorFlow's rules.

A rank known while building is checked then: a wrong one raises ValueError ("Tensor x:0 must have rank 2.  Received
rank 1, shape (3,)"), a right one gives a NoOp named `static_checks_determined_all_ok`; an unknown rank gives an
Assert (assert_ops.py) that checks it when it runs. Types are always known: a wrong one is a TypeError, a right
one a NoOp. `assert_scalar` is static only. `verify_tensor_all_finite` / `assert_all_finite` put a CheckNumerics
(numerics_ops.py) before the tensor. The element-wise comparisons are check_ops.py.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import context, dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor import Tensor, TensorBase
from webflow.ops import array_ops, logic_ops
from webflow.ops.assert_ops import Assert
from webflow.ops.check_ops import message_prefix
from webflow.ops.control_flow_ops import no_op, with_dependencies
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.numerics_ops import check_numerics

_STATIC_FAILURE = "Static rank condition failed"


def _as_int(value: Any) -> int:
    return int(backend_values.flat_list(value)[0])


def _rank_of(value: Any) -> int:
    shape = getattr(value, "shape", ())
    return len(tuple(shape))


def _assert_rank_condition(x: Any, ranks: tuple, static_condition: Any, dynamic_condition: Any, data: list,
                           summarize: int | None) -> Any:
    """A NoOp when the ranks and x's rank are known and pass (ValueError when they fail), else an Assert."""
    for rank in ranks:
        assert_type(rank, dtypes.int32)
    ranks_static = [constant_value(rank) for rank in ranks]
    if all(r is not None for r in ranks_static):
        if any(_rank_of(r) != 0 for r in ranks_static):
            raise ValueError("Rank must be a scalar.")
        x_rank = x.shape.rank
        wanted = [_as_int(r) for r in ranks_static]
        if x_rank is not None:
            if not static_condition(x_rank, wanted):
                raise ValueError(_STATIC_FAILURE, x_rank, wanted)
            return no_op(name="static_checks_determined_all_ok")
    condition = dynamic_condition(array_ops.rank(x), list(ranks))
    for rank, rank_static in zip(ranks, ranks_static):
        if rank_static is None:  # `rank` itself must be a scalar: catches assert_rank(x, [n])
            check = assert_rank(rank, 0, data=["Rank must be a scalar. Received rank: ", rank])
            condition = with_dependencies([check], condition)
    return Assert(condition, data, summarize=summarize)


def _x_name(x: Any) -> str:
    return "" if context.executing_eagerly() or isinstance(x, SparseTensor) else x.name


def _rank_check(x: Any, ranks: list, data: Any, summarize: int | None, message: str | None, name: str | None,
                default: str, words: str, static_condition: Any, dynamic_condition: Any) -> Any:
    with name_scope_v1(name, default):
        if not isinstance(x, SparseTensor):
            x = convert_to_tensor(x, name="x")
        ranks = [convert_to_tensor(r, name="rank") for r in ranks]
        message = message_prefix(message)
        label = _x_name(x)
        if data is None:
            data = [message, f"Tensor {label} must have {words}"] + ranks + ["Received shape: ", array_ops.shape(x)]
        try:
            return _assert_rank_condition(x, tuple(ranks), static_condition, dynamic_condition, data, summarize)
        except ValueError as error:
            if error.args[0] != _STATIC_FAILURE:
                raise
            wanted = error.args[2]
            shown = str(tuple(wanted)) if default == "assert_rank_in" else str(wanted[0])
            raise ValueError(f"{message}Tensor {label} must have {words} {shown}.  Received rank {error.args[1]}, "
                             f"shape {x.shape}") from None


def _any_equal(actual: Any, ranks: list) -> Any:
    if not ranks:
        return convert_to_tensor(False)
    result = logic_ops.equal(ranks[0], actual)
    for rank in ranks[1:]:
        result = logic_ops.logical_or(result, logic_ops.equal(rank, actual))
    return result


def assert_rank(x: Any, rank: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                name: str | None = None) -> Any:
    """TF1 `tf.assert_rank`: x has rank `rank`."""
    return _rank_check(x, [rank], data, summarize, message, name, "assert_rank", "rank",
                       lambda actual, wanted: actual == wanted[0],
                       lambda actual, ranks: logic_ops.equal(actual, ranks[0]))


def assert_rank_at_least(x: Any, rank: Any, data: Any = None, summarize: int | None = None,
                         message: str | None = None, name: str | None = None) -> Any:
    return _rank_check(x, [rank], data, summarize, message, name, "assert_rank_at_least", "rank at least",
                       lambda actual, wanted: actual >= wanted[0],
                       lambda actual, ranks: logic_ops.greater_equal(actual, ranks[0]))


def assert_rank_in(x: Any, ranks: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                   name: str | None = None) -> Any:
    return _rank_check(x, list(ranks), data, summarize, message, name, "assert_rank_in", "rank in",
                       lambda actual, wanted: actual in wanted, _any_equal)


def assert_rank_v2(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> Any:
    return assert_rank(x=x, rank=rank, message=message, name=name)


def assert_rank_at_least_v2(x: Any, rank: Any, message: str | None = None, name: str | None = None) -> Any:
    return assert_rank_at_least(x=x, rank=rank, message=message, name=name)


def assert_rank_in_v2(x: Any, ranks: Any, message: str | None = None, name: str | None = None) -> Any:
    return assert_rank_in(x=x, ranks=ranks, message=message, name=name)


# --- types ----------------------------------------------------------------------------------------------
def assert_type(tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None) -> Any:
    """TF1 `tf.assert_type`: TypeError unless `tensor` has dtype `tf_type`; a NoOp when it does."""
    tf_type = dtypes.as_dtype(tf_type)
    with name_scope_v1(name, "assert_type"):
        if not isinstance(tensor, SparseTensor):
            tensor = convert_to_tensor(tensor, name="tensor")
        if tensor.dtype.base_dtype != tf_type:
            label = tensor.name if isinstance(tensor, Tensor) else "tensor"
            raise TypeError(f"{message_prefix(message)}{label} must be of type {tf_type!r}; got "
                            f"{tensor.dtype.base_dtype!r}")
        return no_op("statically_determined_correct_type")


def assert_type_v2(tensor: Any, tf_type: Any, message: str | None = None, name: str | None = None) -> None:
    assert_type(tensor=tensor, tf_type=tf_type, message=message, name=name)


def assert_integer(x: Any, message: str | None = None, name: str | None = None) -> Any:
    """TF1 `tf.assert_integer`: TypeError unless x has an integer dtype; a NoOp when it has."""
    with name_scope_v1(name, "assert_integer"):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            label = "tensor" if context.executing_eagerly() else x.name
            raise TypeError(f'{message_prefix(message)}Expected "x" to be integer type.  Found: {label} of dtype '
                            f"{x.dtype.base_dtype}")
        return no_op("statically_determined_was_integer")


def assert_integer_v2(x: Any, message: str | None = None, name: str | None = None) -> None:
    assert_integer(x=x, message=message, name=name)


def assert_scalar(tensor: Any, name: str | None = None, message: str | None = None) -> Any:
    """TF1 `tf.assert_scalar`: the tensor, or ValueError unless its shape is known to be () (checked statically)."""
    with name_scope_v1(name, "assert_scalar") as scope:
        tensor = convert_to_tensor(tensor, name=scope or None)
        shape = tensor.shape
        if shape.rank != 0:
            prefix = message_prefix(message)
            if context.executing_eagerly():
                raise ValueError(f"{prefix}Expected scalar shape, saw shape: {shape}.")
            raise ValueError(f"{prefix}Expected scalar shape for {tensor.name}, saw shape: {shape}.")
        return tensor


def assert_scalar_v2(tensor: Any, message: str | None = None, name: str | None = None) -> None:
    assert_scalar(tensor=tensor, message=message, name=name)


_NUMERIC = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
            "uint32", "uint64", "complex64", "complex128")


def is_numeric_tensor(tensor: Any) -> bool:
    """`tf.debugging.is_numeric_tensor`: a tensor (not a Python number) whose dtype holds numbers."""
    return isinstance(tensor, TensorBase) and tensor.dtype.base_dtype.name in _NUMERIC


def assert_proper_iterable(values: Any) -> None:
    """TypeError unless `values` is an iterable of items: a tensor, an ndarray or a string is not."""
    if isinstance(values, (TensorBase, SparseTensor, str, bytes)) or type(values).__name__ == "ndarray":
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


# --- finite values ----------------------------------------------------------------------------------------
def verify_tensor_all_finite_v2(x: Any, message: str, name: str | None = None) -> Any:
    """`tf.debugging.assert_all_finite(x, message)`: x, after a CheckNumerics that fails on NaN or Inf."""
    with name_scope_v1(name, "VerifyFinite"):
        x = convert_to_tensor(x, name="x")
        checked = check_numerics(x, message=message)
        return with_dependencies([checked], x)


def verify_tensor_all_finite(t: Any = None, msg: str | None = None, name: str | None = None, x: Any = None,
                             message: str | None = None) -> Any:
    """TF1 `tf.verify_tensor_all_finite(t, msg)` (also spelled with x= and message=)."""
    return verify_tensor_all_finite_v2(t if x is None else x, msg if message is None else message, name)
