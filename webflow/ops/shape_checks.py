"""`tf.debugging.assert_shapes`: several tensors' shapes against symbolic shapes ("N", 3, ".", "*" first), with
TensorFlow's rules: a symbol names one size wherever it appears, sizes known while building are checked then
(ValueError with TensorFlow's text), the others by Assert ops grouped into one NoOp (`group_deps`). Each tensor's
rank is checked first with rank_checks.py's assert_rank / assert_rank_in / assert_rank_at_least.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.scopes import control_dependencies, name_scope_v1
from webflow.framework.sparse_tensor import SparseTensor
from webflow.ops import array_ops, logic_ops
from webflow.ops.assert_ops import Assert
from webflow.ops.check_ops import message_prefix, shape_and_dtype
from webflow.ops.control_flow_ops import group
from webflow.ops.convert import convert_to_tensor
from webflow.ops.rank_checks import assert_rank, assert_rank_at_least, assert_rank_in


def _tensor_name(x: Any) -> str:
    return shape_and_dtype(x) if context.executing_eagerly() or isinstance(x, SparseTensor) else x.name


def _dimension_sizes(x: Any) -> list:
    """Each dimension's size: an int when known statically, else a tensor; a scalar counts as shape [1].
    (An unknown rank gives the run-time shape; TensorFlow's extra cond for a scalar of unknown rank is left out.)"""
    rank = x.shape.rank
    if rank == 0:
        return [1]
    dynamic = array_ops.shape(x)
    if rank is None:
        return dynamic
    return [int(size) if size is not None else dynamic[i] for i, size in enumerate(x.shape.as_list())]


def _known(size: Any) -> bool:
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return size is not None


def _parse(tensor: Any, symbolic: Any, prefix: str) -> tuple:
    """(tensor, leading "..." given, actual sizes, symbols) for one (tensor, shape) pair."""
    if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
        raise ValueError(f"{prefix}Tensor {_tensor_name(tensor)}.  Specified shape must be an iterable.  An iterable "
                         f"has the attribute `__iter__` or `__getitem__`.  Received specified shape: {symbolic}")
    symbols = tuple(symbolic)
    variable = False
    for i, symbol in enumerate(symbols):
        if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
            if i != 0:
                raise ValueError(f"{prefix}Tensor {_tensor_name(tensor)} specified shape index {i}.  Symbol `...` or "
                                 "`*` for a variable number of unspecified dimensions is only allowed as the first "
                                 "entry")
            variable = True
    symbols = symbols[1:] if variable else symbols
    return tensor, variable, _dimension_sizes(tensor), symbols or (1,)


def _rank_assertion(entry: tuple, data: Any, summarize: int | None, message: str | None, name: str | None) -> Any:
    tensor, variable, _, symbols = entry
    rank = len(symbols)
    if variable:
        return None if rank in (0, 1) else assert_rank_at_least(tensor, rank, data, summarize, message, name)
    if rank in (0, 1):
        return assert_rank_in(tensor, [0, 1], data, summarize, message, name)
    return assert_rank(tensor, rank, data, summarize, message, name)


def assert_shapes(shapes: Any, data: Any = None, summarize: int | None = None, message: str | None = None,
                  name: str | None = None) -> Any:
    """`tf.debugging.assert_shapes([(x, ("N", "D")), (y, ("N",))])`: every shape matches its symbols."""
    prefix = message_prefix(message)
    shapes = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    with name_scope_v1(name, "assert_shapes"):
        entries = [_parse(x if isinstance(x, SparseTensor) else convert_to_tensor(x), s, prefix)
                   for x, s in shapes if s is not None]
        ranks = [a for a in (_rank_assertion(e, data, summarize, message, name) for e in entries) if a is not None]
        checks, seen = [], {}
        for entry in entries:
            checks += _size_assertions(entry, seen, ranks, data, summarize, prefix)
    with control_dependencies(ranks):
        return group(*checks)


def _size_assertions(entry: tuple, seen: dict, ranks: list, data: Any, summarize: int | None, prefix: str) -> list:
    tensor, variable, actual_sizes, symbols = entry
    checks = []
    for i, symbol in enumerate(symbols):
        if symbol is None or (isinstance(symbol, str) and symbol == "."):
            continue
        dim = i - len(symbols) if variable else i
        with control_dependencies(ranks):
            actual = actual_sizes[dim]
        if not (_known(symbol) or symbol in seen):
            seen[symbol] = (actual, tensor, dim)
            continue
        if _known(symbol):
            wanted, how = int(symbol), "Specified explicitly"
        else:
            wanted, by, at = seen[symbol]
            how = f"Specified by tensor {_tensor_name(by)} dimension {at}"
        if _known(actual) and _known(wanted):
            if int(actual) != int(wanted):
                raise ValueError(f"{prefix}{how}.  Tensor {_tensor_name(tensor)} dimension {dim} must have size "
                                 f"{int(wanted)}.  Received size {int(actual)}, shape {tensor.shape}")
            continue
        condition = logic_ops.equal(convert_to_tensor(actual), convert_to_tensor(wanted))
        shown = data if data is not None else [prefix, how, f"Tensor {_tensor_name(tensor)} dimension", dim,
                                               "must have size", wanted, "Received shape: ", array_ops.shape(tensor)]
        checks.append(Assert(condition, shown, summarize=summarize))
    return checks
