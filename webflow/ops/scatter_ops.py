"""Sparse updates of a variable's rows: TensorFlow's ScatterAdd, ScatterSub, ScatterUpdate (TF1 reference variables)
and ResourceScatterAdd, ResourceScatterSub, ResourceScatterUpdate (resource variables).

    var[indices[i], ...] += updates[i, ...]     ScatterAdd        (updates = indices.shape + var.shape[1:], or a scalar)
    var[indices[i], ...] -= updates[i, ...]     ScatterSub
    var[indices[i], ...]  = updates[i, ...]     ScatterUpdate

The indices apply in order, so a repeated index applies each of its rows in turn. These are how TensorFlow's
optimizers apply an embedding's IndexedSlices gradient (GradientDescent: ScatterSub of lr * rows) without making the
dense [vocabulary, width] gradient. The update writes over the variable's own array when nothing else holds it
(training_ops.py's copy-on-write rule), else over a private copy that then becomes the variable's value. Each op's
row formula is a NumPy function below; the stanza's `c=` names the same formula in C (wasm/scatter_rows.c), which
replaces it inside the kernel when the C library is there.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import scatter_rows as c_scatter_rows
from webflow.framework import dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.registry import OPS, NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs
from webflow.ops.training_ops import (
    _ONLY_IN_HOLDER,
    _ONLY_IN_STORE,
    _overwritable,
    _references_in,
    _references_of,
)
from webflow.ops.update_lock import VARIABLE_UPDATES

INDEX_TYPES = (dtypes.int32, dtypes.int64)


# --- the row formulas (NumPy): write into `target`, which the kernel owns ---------------------------------
def _checked_rows(target: Any, indices: Any, updates: Any) -> tuple:
    """(flat indices, updates as [count] + target.shape[1:]); InvalidArgumentError for an index out of range."""
    flat = np.asarray(indices).reshape(-1)
    rows = target.shape[0]
    bad = np.nonzero((flat < 0) | (flat >= rows))[0]
    if bad.size:
        position = int(bad[0])
        raise InvalidArgumentError(None, None, c_scatter_rows.bad_index_message(position, int(flat[position]), rows))
    updates = np.asarray(updates, dtype=target.dtype)
    shape = flat.shape + target.shape[1:]
    return flat, np.broadcast_to(updates, shape) if updates.ndim == 0 else updates.reshape(shape)


def scatter_add_rows(target: Any, indices: Any, updates: Any) -> None:
    """var[indices[i]] += updates[i], in order."""
    flat, updates = _checked_rows(target, indices, updates)
    np.add.at(target, flat, updates)


def scatter_sub_rows(target: Any, indices: Any, updates: Any) -> None:
    """var[indices[i]] -= updates[i], in order."""
    flat, updates = _checked_rows(target, indices, updates)
    np.subtract.at(target, flat, updates)


def scatter_update_rows(target: Any, indices: Any, updates: Any) -> None:
    """var[indices[i]] = updates[i] (for a repeated index, the last row stays)."""
    flat, updates = _checked_rows(target, indices, updates)
    target[flat] = updates


# --- shape rule: TensorFlow's ScatterUpdateShape ---------------------------------------------------------
def _scatter_shape(op_type: str, resource: bool) -> Callable:
    def rule(inputs: list, attrs: dict) -> Any:
        var, indices, updates = inputs
        if not resource and not var.dtype.is_ref_dtype:
            raise TypeError(f"'{op_type}' Op requires that input 'ref' be a mutable tensor (e.g.: a tf.Variable)")
        var_shape = TensorShape(None) if resource else var.shape
        if updates.shape.rank != 0 and var_shape.rank is not None and indices.shape.rank is not None:
            expected = indices.shape.concatenate(var_shape[1:])
            if not expected.is_compatible_with(updates.shape):
                raise ShapeError(f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
                                 f"got updates.shape {updates.shape}, indices.shape {indices.shape}, "
                                 f"params.shape {var_shape}")
        if resource:
            return no_outputs(inputs, attrs)
        return output_spec(var_shape, var.dtype)

    return rule


# --- kernels: where the variable lives differs, the copy-on-write rule is shared ----------------------------
def _private_copy(value: Any) -> Any:
    return np.array(value, copy=True) if HAVE_NUMPY else value.copy()


def _ref_kernel(rows: Callable) -> Callable:
    def kernel(context: Any, ref: Any, indices: Any, updates: Any, *, use_locking: bool = True) -> Any:
        key = context.ref_key(0)
        store = context.resources
        with VARIABLE_UPDATES if use_locking else contextlib.nullcontext():
            if key not in store:
                raise FailedPreconditionError(None, context.op, f"Attempting to use uninitialized value {key}")
            owned = _overwritable(_references_in(store, key), _ONLY_IN_STORE, store[key])
            target = store[key] if owned else _private_copy(store[key])
            rows(target, indices, updates)
            store[key] = target
        return target

    kernel.__doc__ = rows.__doc__
    kernel.update = rows  # backends/selection.py rebuilds the kernel around the C row formula
    kernel.with_update = lambda other: _ref_kernel(other)
    return kernel


def _resource_kernel(rows: Callable) -> Callable:
    def kernel(variable: Any, indices: Any, updates: Any, **attrs: Any) -> None:
        if getattr(variable, "_value", None) is None:
            raise FailedPreconditionError(None, None, f"Could not find variable {variable.name}.")
        with VARIABLE_UPDATES:
            owned = _overwritable(_references_of(variable), _ONLY_IN_HOLDER, variable._value)
            target = variable._value if owned else _private_copy(variable._value)
            rows(target, indices, updates)
            variable._value = target
        return None

    kernel.__doc__ = rows.__doc__
    kernel.update = rows
    kernel.with_update = lambda other: _resource_kernel(other)
    return kernel


def _register(stem: str, rows: Callable, c: Any) -> None:
    for op_type, resource in ((f"Scatter{stem}", False), (f"ResourceScatter{stem}", True)):
        inputs = ("resource" if resource else "ref", "indices", "updates")
        register_op(op_type, op_type, inputs=inputs, shape=_scatter_shape(op_type, resource),
                    same_dtype=() if resource else (0, 2), needs_context=not resource, stateful=True,
                    allowed=None, c=c)((_resource_kernel if resource else _ref_kernel)(rows))
        if not resource:
            OPS[op_type].state_inputs = 1  # the variable is read and written by name: see _ref_kernel
        NotDifferentiable(op_type)


_register("Add", scatter_add_rows, c_scatter_rows.scatter_add)
_register("Sub", scatter_sub_rows, c_scatter_rows.scatter_sub)
_register("Update", scatter_update_rows, c_scatter_rows.scatter_update)


# --- wrappers (tf.compat.v1.scatter_add / scatter_sub / scatter_update: state_ops' names) -------------------
def _scatter(stem: str, ref: Any, indices: Any, updates: Any, use_locking: bool, name: str | None) -> Any:
    variable = getattr(ref, "_ref", None)
    if variable is not None:   # a RefVariable: its reference tensor
        return apply_op(f"Scatter{stem}", [variable(), indices, updates], {"use_locking": use_locking}, name=name)
    if getattr(ref, "handle", None) is not None:   # a ResourceVariable: the update, then the variable's new value
        apply_op(f"ResourceScatter{stem}", [ref.handle, indices, updates], {"dtype": ref.dtype.base_dtype},
                 name=name)
        return ref
    return apply_op(f"Scatter{stem}", [ref, indices, updates], {"use_locking": use_locking}, name=name)


def scatter_add(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices[i]] += updates[i]; returns `ref` after the update."""
    return _scatter("Add", ref, indices, updates, use_locking, name)


def scatter_sub(ref: Any, indices: Any, updates: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """ref[indices[i]] -= updates[i]; returns `ref` after the update."""
    return _scatter("Sub", ref, indices, updates, use_locking, name)


def scatter_update(ref: Any, indices: Any, updates: Any, use_locking: bool = True, name: str | None = None) -> Any:
    """ref[indices[i]] = updates[i]; returns `ref` after the update."""
    return _scatter("Update", ref, indices, updates, use_locking, name)


def resource_scatter_add(resource: Any, indices: Any, updates: Any, name: str | None = None) -> Any:
    """The ResourceScatterAdd op on a variable's handle (gen_resource_variable_ops' name): the op in a graph, None
    eagerly."""
    return apply_op("ResourceScatterAdd", [resource, indices, updates], name=name)


__all__ = ["scatter_add", "scatter_sub", "scatter_update", "resource_scatter_add", "INDEX_TYPES"]
