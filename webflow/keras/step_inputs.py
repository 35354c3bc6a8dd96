"""A batch as tf_keras's traced step takes it, so that the step is traced as often as tf_keras traces it.

tf_keras's train / test / predict function is a `tf.function(..., reduce_retracing=True)` reading its batch from an
iterator. In `fit`, `evaluate` and `predict` the iterator's batch dimension is None, so one trace serves every
batch, the partial last one included; `train_on_batch` & co. give it a one-batch iterator of known shape. With
reduce_retracing, a call no trace covers is traced for the most specific shape common to it and every earlier
trace of the same structure (a dimension that differs becomes None). Here the step is a wf.function called on the
batch itself; `traced_call` picks the specs tf_keras's function would trace and runs that trace:

    traced_call(step, x, y)                 fit's batches: TensorSpec([None, 784]), TensorSpec([None])
    traced_call(step, x, y, exact=True)     train_on_batch: [32, 784] first; another size then [None, 784]

wf.function's arguments are tensors, so a SparseTensor (DenseFeatures' categorical features) crosses the call as
its three parts (indices [None, rank], values [None], dense_shape [rank]) and is put back together inside
(`rebuilt`).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor import TensorBase
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.convert import convert_to_tensor
from webflow.runtime.function import TensorSpec


def traced_call(step: Any, *args: Any, exact: bool = False, specs: Any = None) -> Any:
    """`step(*args, layout)` run by the trace tf_keras's function would use (see the module's docstring).
    `layout` (a Layout) tells the step where SparseTensors were: it passes it to `rebuilt`. `specs`: the
    element_spec of the dataset the batch came from, laid out as `args`; its shapes (None where the dataset's
    batches differ, as padded_batch's lengths) are the iterator's that tf_keras traces for."""
    leaves = [_as_argument(leaf) for leaf in flatten(list(args))]
    nest = pack_sequence_as(list(args), [_parts(leaf) for leaf in leaves])   # a SparseTensor -> its three parts
    layout = Layout(pack_sequence_as(list(args), [isinstance(leaf, SparseTensor) for leaf in leaves]),
                    _structure(nest))
    flat = flatten(nest)
    hints = flatten(list(specs)) if specs is not None else []
    if len(hints) != len(leaves):
        hints = [None] * len(leaves)
    dims = [dim for leaf, hint in zip(leaves, hints) for dim in _leaf_dims(leaf, hint, exact)]
    kind = _kind(layout, flat)
    calls = step.__dict__.setdefault("_keras_concrete", {})   # this call's shapes -> its trace: no lookup per step
    concrete = calls.get((kind, tuple(dims)))
    if concrete is None:
        traced_dims = _covered_or_generalized(step, kind, dims)
        specs = [TensorSpec(shape, leaf.dtype.base_dtype) if isinstance(leaf, TensorBase) else leaf
                 for leaf, shape in zip(flat, traced_dims)]
        concrete = calls[(kind, tuple(dims))] = step.get_concrete_function(*pack_sequence_as(nest, specs), layout)
    return concrete(*[leaf for leaf in flat if isinstance(leaf, TensorBase)])


class Layout:
    """The arguments' structure, a Python argument of the traced step: with wf.function's key (flat leaves only)
    it makes x and (x,) two traces, as in tf_keras; `tree` marks each SparseTensor with True."""

    def __init__(self, tree: Any, structure: Any):
        self.tree, self.key = tree, repr(structure)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def rebuilt(arguments: Any, layout: Any) -> Any:
    """Inside the trace: the traced arguments with each SparseTensor's three parts joined again (`layout`: a
    Layout, or its tree)."""
    if isinstance(layout, Layout):
        return rebuilt(arguments, layout.tree)
    if layout is True:
        return SparseTensor(*arguments)
    if isinstance(layout, dict):
        return {key: rebuilt(arguments[key], layout[key]) for key in layout}
    if isinstance(layout, (list, tuple)):
        return type(layout)(rebuilt(part, shape) for part, shape in zip(arguments, layout))
    return arguments


def _as_argument(leaf: Any) -> Any:
    if isinstance(leaf, SparseTensor):
        return SparseTensor(*(convert_to_tensor(part) for part in (leaf.indices, leaf.values, leaf.dense_shape)))
    if isinstance(leaf, (TensorBase, np.ndarray)):
        return convert_to_tensor(leaf)
    return leaf   # a Python value (None for a missing y): part of the trace's signature, as in wf.function


def _parts(leaf: Any) -> Any:
    return [leaf.indices, leaf.values, leaf.dense_shape] if isinstance(leaf, SparseTensor) else leaf


def _leaf_dims(leaf: Any, hint: Any, exact: bool) -> list:
    """The traced shape of each tensor an argument leaf passes: its own with `exact`, else the dataset's (`hint`)
    when it has one of the same rank, else its own with the batch dimension None. A SparseTensor passes three:
    indices [N, rank] and values [N] (N varies as the batch), dense_shape [rank]."""
    if isinstance(leaf, SparseTensor):
        return [_dims(leaf.indices, exact), _dims(leaf.values, exact), tuple(leaf.dense_shape.shape.as_list())]
    if not isinstance(leaf, TensorBase):
        return [None]   # a Python leaf
    hinted = getattr(hint, "shape", None)
    if not exact and hinted is not None and hinted.rank == leaf.shape.rank:
        return [tuple(hinted.as_list())]
    return [_dims(leaf, exact)]


def _dims(tensor: Any, exact: bool) -> tuple:
    dims = tuple(tensor.shape.as_list())
    return dims if exact or not dims else (None, *dims[1:])


def _kind(layout: Layout, flat: list) -> tuple:
    """What two calls must share for one trace to serve both: structure, dtypes, ranks and Python values."""
    leaves = tuple(("tensor", leaf.dtype.base_dtype.name, leaf.shape.rank) if isinstance(leaf, TensorBase)
                   else ("python", _hashable(leaf)) for leaf in flat)
    return layout.key, leaves


def _structure(nest: Any) -> Any:
    if isinstance(nest, dict):
        return ("dict", tuple((key, _structure(nest[key])) for key in sorted(nest)))
    if isinstance(nest, (list, tuple)):
        return (type(nest).__name__, tuple(_structure(item) for item in nest))
    return "."


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return ("object", id(value))
    return value


def _covered_or_generalized(step: Any, kind: tuple, dims: list) -> list:
    """The shapes of a trace of `step` that covers `dims` (a dimension None or equal), else `dims` with every
    dimension that differs from an earlier trace of the same kind made None (reduce_retracing), remembered."""
    traced = step.__dict__.setdefault("_keras_traced_shapes", {}).setdefault(kind, [])
    for shapes in traced:
        if all(_covers(known, wanted) for known, wanted in zip(shapes, dims)):
            return shapes
    generalized = list(dims)
    for shapes in traced:
        generalized = [_common(known, wanted) for known, wanted in zip(shapes, generalized)]
    traced.append(generalized)
    return generalized


def _covers(known: Any, wanted: Any) -> bool:
    if known is None:   # a Python leaf
        return True
    return all(k is None or k == w for k, w in zip(known, wanted))


def _common(known: Any, wanted: Any) -> Any:
    if known is None:
        return wanted
    return tuple(k if k == w else None for k, w in zip(known, wanted))


__all__ = ["traced_call", "rebuilt"]
