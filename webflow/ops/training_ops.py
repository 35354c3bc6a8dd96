"""Fused optimizer updates: TensorFlow's `Apply*` ops (ApplyGradientDescent, ApplyAdam, ...).

Each optimizer's math is one function below, with the formula in its docstring. From it,
`_register_family` registers up to four op types, as TensorFlow has them:

- `Apply<X>`               (TF1 graphs): inputs `var` and the slots are variable references; the kernel
                            reads their current values from the session's resource store and stores new arrays;
- `ResourceApply<X>`       (eager): the same inputs are resource handles (ResourceVariable objects);
- `SparseApply<X>`         a gradient for some rows only (`grad` rows + `indices`), applied row by row
- `ResourceSparseApply<X>` in index order, so repeated indices update twice, as TensorFlow's kernels do.

Values a learner can hold are never mutated: an update computes new arrays and stores them, except that
a C update writes over a variable's own array when nothing else refers to it (no earlier fetch result, no
view, no other variable assigned from it): TensorFlow's copy-on-write rule for variable buffers (its
kernels update in place when the buffer's reference count is one). See `_overwritable` below.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np, owns_memory
from webflow.backends.c import optimizers as c_optimizers
from webflow.backends.c.adapters import CKernel
from webflow.framework import dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError
from webflow.ops.registry import OPS, NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs
from webflow.ops.update_lock import VARIABLE_UPDATES

FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


# --- the update formulas (one per optimizer; arrays in, new arrays out) ------------------------------
def gradient_descent_update(var: Any, alpha: Any, delta: Any) -> tuple:
    """var <- var - alpha * delta."""
    return (var - alpha * delta,)


def momentum_update(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any, *, use_nesterov: bool = False) -> tuple:
    """accum <- momentum * accum + grad; var <- var - lr * accum
    (Nesterov: var <- var - lr * grad - lr * momentum * accum)."""
    accum = accum * momentum + grad
    if use_nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - lr * accum, accum


def adam_update(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
                epsilon: Any, grad: Any, *, use_nesterov: bool = False) -> tuple:
    """lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m <- m + (g - m)(1 - beta1); v <- v + (g^2 - v)(1 - beta2);
    var <- var - lr_t * m / (sqrt(v) + epsilon)   (Nesterov: m replaced by beta1 m + (1 - beta1) g)."""
    lr_t = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    step = (grad * (1 - beta1) + beta1 * m) if use_nesterov else m
    return var - (step * lr_t) / (epsilon + np.sqrt(v)), m, v


def rms_prop_update(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any, grad: Any) -> tuple:
    """ms <- ms + (g^2 - ms)(1 - rho); mom <- momentum * mom + lr * g / sqrt(ms + epsilon); var <- var - mom."""
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + lr * grad / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def centered_rms_prop_update(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                             grad: Any) -> tuple:
    """mg <- mg + (g - mg)(1 - rho); ms <- ms + (g^2 - ms)(1 - rho);
    mom <- momentum * mom + lr * g / sqrt(ms - mg^2 + epsilon); var <- var - mom."""
    mg = mg + (grad - mg) * (1 - rho)
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + lr * grad / np.sqrt(ms - mg * mg + epsilon)
    return var - mom, mg, ms, mom


def adagrad_update(var: Any, accum: Any, lr: Any, grad: Any, *, update_slots: bool = True) -> tuple:
    """accum <- accum + g^2; var <- var - lr * g / sqrt(accum)."""
    if update_slots:
        accum = accum + grad * grad
    return var - lr * grad / np.sqrt(accum), accum


def adadelta_update(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any, grad: Any) -> tuple:
    """accum <- rho accum + (1 - rho) g^2; u = sqrt(accum_update + eps) / sqrt(accum + eps) * g;
    var <- var - lr * u; accum_update <- rho accum_update + (1 - rho) u^2."""
    accum = accum * rho + grad * grad * (1 - rho)
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
    accum_update = accum_update * rho + update * update * (1 - rho)
    return var - update * lr, accum, accum_update


# --- shape rules ---------------------------------------------------------------------------------------
def _merge(shape: Any, other: Any, what: str) -> Any:
    if not shape.is_compatible_with(other):
        if shape.rank is not None and other.rank is not None and shape.rank != other.rank:
            raise ShapeError(f"Shapes must be equal rank, but are {shape.rank} and {other.rank} ({what})")
        raise ShapeError(f"Shapes {shape} and {other} are not compatible ({what})")
    return shape.merge_with(other)


def _update_shape_rule(op_type: str, names: tuple, num_state: int, sparse: bool, resource: bool) -> Callable:
    """Checks that state and grad shapes agree and scalar hyper-parameters are scalars."""

    def rule(inputs: list, attrs: dict) -> Any:
        if not resource and not inputs[0].dtype.is_ref_dtype:
            raise TypeError(f"'{op_type}' Op requires that input 'var' be a mutable tensor "
                            f"(e.g.: a tf.Variable)")
        shape = inputs[0].shape
        for i in range(1, num_state if not resource else 0):
            shape = _merge(shape, inputs[i].shape, f"var and {names[i]}")
        for name, tensor in zip(names[num_state:], inputs[num_state:]):
            if name in ("grad", "delta") and not sparse and not resource:
                shape = _merge(shape, tensor.shape, "var and grad")
            elif name == "indices":
                if tensor.shape.rank not in (None, 1):
                    raise ShapeError(f"Shape must be rank 1 but is rank {tensor.shape.rank} (indices)")
            elif name not in ("grad", "delta") and tensor.shape.rank not in (None, 0):
                raise ShapeError(f"Shape must be rank 0 but is rank {tensor.shape.rank} ({name})")
        if resource:
            return no_outputs(inputs, attrs)
        return output_spec(shape, inputs[0].dtype)

    return rule


# --- kernels: where the state lives differs, the math is shared --------------------------------------
def _read_state(context: Any, index: int) -> tuple:
    key = context.ref_key(index)
    if key not in context.resources:
        raise FailedPreconditionError(None, context.op, f"Attempting to use uninitialized value {key}")
    return key, context.resources[key]


def _sparse_rows(update: Callable, state: list, rest: list, names: tuple, attrs: dict) -> list:
    """Applies `update` to rows `indices[i]` of every state array with gradient row `grad[i]`, in order."""
    if not HAVE_NUMPY:
        return _sparse_rows_of_carrays(update, state, rest, names, attrs)
    grad_at = names.index("grad")
    grad, indices = rest[grad_at], np.asarray(rest[grad_at + 1]).reshape(-1)
    rest = rest[:grad_at + 1] + rest[grad_at + 2:]
    state = [np.array(s, copy=True) for s in state]  # private copies: the stored arrays stay untouched
    rows = state[0].shape[0] if np.ndim(state[0]) else 0
    if np.shape(grad)[:1] != np.shape(indices):
        raise InvalidArgumentError(None, None, f"grad must be the same size as indices in the first dimension: "
                                   f"{list(np.shape(grad))} vs {list(np.shape(indices))}")
    for i, row in enumerate(indices.tolist()):
        if not 0 <= row < rows:
            raise InvalidArgumentError(None, None, f"Index {row} at offset {i} in indices is out of range")
        args = [s[row] for s in state] + rest
        args[len(state) + grad_at] = grad[i]
        for s, new in zip(state, update(*args, **attrs)):
            s[row] = new
    return state


def _sparse_rows_of_carrays(update: Callable, state: list, rest: list, names: tuple, attrs: dict) -> list:
    """`_sparse_rows` without NumPy: rows of CArrays are cut out, updated by the C formula and copied back."""
    from webflow.backends.arrays import carray as c_array

    grad_at = names.index("grad")
    grad, indices = c_array.from_value(rest[grad_at]), c_array.from_value(rest[grad_at + 1])
    rest = rest[:grad_at + 1] + rest[grad_at + 2:]
    state = [c_array.from_value(s).copy() for s in state]  # private copies: the stored arrays stay untouched
    rows = state[0].shape[0] if state[0].ndim else 0
    if grad.shape[:1] != (indices.size,):
        raise InvalidArgumentError(None, None, f"grad must be the same size as indices in the first dimension: "
                                   f"{list(grad.shape)} vs {list(indices.shape)}")

    def row_of(array: Any, row: int) -> Any:  # a row as its own CArray (a 0-d one for vectors)
        inner = array.size // array.shape[0]
        data = array.data[row * inner:(row + 1) * inner]
        return c_array.CArray(data, array.shape[1:], array.dtype)

    for i, row in enumerate(indices.data.tolist()):
        if not 0 <= row < rows:
            raise InvalidArgumentError(None, None, f"Index {row} at offset {i} in indices is out of range")
        args = [row_of(s, row) for s in state] + rest
        args[len(state) + grad_at] = row_of(grad, i)
        for s, new in zip(state, update(*args, **attrs)):
            inner = s.size // rows
            s.data[row * inner:(row + 1) * inner] = c_array.from_value(new, s.dtype).data
    return state


# --- may an update write over the stored array? -----------------------------------------------------------
# The count of references to a stored value when only its store holds it, measured rather than assumed:
# what sys.getrefcount reports for the same expression differs between Python versions (3.14 counts fewer).
def _references_in(store: dict, key: str) -> int:
    return sys.getrefcount(store[key])


def _references_of(holder: Any) -> int:
    return sys.getrefcount(holder._value)


class _Holder:
    _value: Any = None


_ONLY_IN_STORE = _references_in({"value": object()}, "value")
_only_in_holder = _Holder()
_only_in_holder._value = object()
_ONLY_IN_HOLDER = _references_of(_only_in_holder)


def _own_buffer(value: Any) -> bool:
    """An ndarray owning its writable, C-ordered memory (not a view into another array or a foreign buffer;
    the one view of an aligned block counts as owning it: numpy_arrays.aligned_empty)."""
    return HAVE_NUMPY and type(value) is np.ndarray and value.flags.writeable and value.flags.c_contiguous \
        and owns_memory(value)


def _overwritable(references: int, only: int, value: Any) -> bool:
    """True when `value` may be updated in place: its store is its only holder, so no fetch result, view
    (a view holds its base), eager tensor or other variable can see the change."""
    return references == only and _own_buffer(value)


def _dense(update: Callable, state: list, rest: list, names: tuple, attrs: dict, into: tuple | None = None) -> list:
    if not HAVE_NUMPY:  # the C update formula returns CArrays of the state's dtype
        return list(update(*state, *rest, **attrs))
    if into is not None and any(target is not None for target in into) and getattr(update, "writes_into", False):
        attrs = {**attrs, "into": into}
    dtype = np.asarray(state[0]).dtype
    return [np.asarray(new, dtype=dtype) for new in update(*state, *rest, **attrs)]


def _new_state(update: Callable, state: list, owned: list, rest: list, names: tuple, attrs: dict,
               sparse: bool) -> list:
    """The updated state arrays; a dense update may write over the state arrays marked `owned`."""
    if sparse:
        return _sparse_rows(update, state, rest, names, attrs)
    return _dense(update, state, rest, names, attrs, tuple(s if o else None for s, o in zip(state, owned)))


def _ref_kernel(update: Callable, names: tuple, num_state: int, sparse: bool) -> Callable:
    def kernel(context: Any, *values: Any, use_locking: bool = False, **attrs: Any) -> Any:
        if use_locking:  # TensorFlow's use_locking: no other thread's update between this read and store
            with VARIABLE_UPDATES:
                return apply(context, *values, **attrs)
        return apply(context, *values, **attrs)

    def apply(context: Any, *values: Any, **attrs: Any) -> Any:
        keys = [_read_state(context, i)[0] for i in range(num_state)]
        store = context.resources
        owned = [_overwritable(_references_in(store, key), _ONLY_IN_STORE, store[key]) for key in keys]
        state = [store[key] for key in keys]
        new = _new_state(update, state, owned, list(values[num_state:]), names[num_state:], attrs, sparse)
        dtype = context.op.inputs[0].dtype if context.op is not None else None
        new = [bfloat16.stored(value, dtype) for value in new]   # (a bfloat16 variable keeps the rounded update)
        for key, value in zip(keys, new):
            store[key] = value
        return new[0]

    kernel.__doc__ = update.__doc__
    kernel.update = update  # backends/selection.py rebuilds the kernel around a C update formula
    kernel.with_update = lambda other: _ref_kernel(other, names, num_state, sparse)
    return kernel


def _resource_kernel(update: Callable, names: tuple, num_state: int, sparse: bool) -> Callable:
    def kernel(*values: Any, use_locking: bool = False, **attrs: Any) -> None:
        if use_locking:  # as in _ref_kernel
            with VARIABLE_UPDATES:
                return apply(*values, **attrs)
        return apply(*values, **attrs)

    def apply(*values: Any, **attrs: Any) -> None:
        variables = values[:num_state]
        for variable in variables:
            if getattr(variable, "_value", None) is None:
                raise FailedPreconditionError(None, None, f"Could not find variable {variable.name}.")
        owned = [_overwritable(_references_of(v), _ONLY_IN_HOLDER, v._value) for v in variables]
        state = [v._value for v in variables]
        new = _new_state(update, state, owned, list(values[num_state:]), names[num_state:], attrs, sparse)
        for variable, value in zip(variables, new):
            variable._value = bfloat16.stored(value, getattr(variable, "_dtype", None))  # (bfloat16: rounded)
        return None

    kernel.__doc__ = update.__doc__
    kernel.update = update
    kernel.with_update = lambda other: _resource_kernel(other, names, num_state, sparse)
    return kernel


def _register_family(name: str, names: tuple, num_state: int, update: Callable, c: CKernel,
                     sparse: bool = True) -> None:
    """Registers Apply<name> and ResourceApply<name> (and the Sparse twins) for one update formula; `c` is the
    same formula in C (backends/c/), which replaces `update` inside the kernel when selection picks C."""
    variants = [("Apply", names, False, False), ("ResourceApply", names, False, True)]
    if sparse:
        grad_at = names.index("grad")
        sparse_names = names[:grad_at + 1] + ("indices",) + names[grad_at + 1:]
        variants += [("SparseApply", sparse_names, True, False), ("ResourceSparseApply", sparse_names, True, True)]
    for prefix, inputs, is_sparse, resource in variants:
        op_type = prefix + name
        same = tuple(i for i, n in enumerate(inputs) if n != "indices")
        make = _resource_kernel if resource else _ref_kernel
        rule = _update_shape_rule(op_type, inputs, num_state, is_sparse, resource)
        register_op(op_type, op_type, inputs=inputs, shape=rule,
                    same_dtype=() if resource else same, needs_context=not resource, stateful=True,
                    c=c)(make(update, inputs, num_state, is_sparse))
        if not resource:
            OPS[op_type].state_inputs = num_state  # read and written by name: see _ref_kernel
        NotDifferentiable(op_type)


_register_family("GradientDescent", ("var", "alpha", "delta"), 1, gradient_descent_update,
                 c_optimizers.gradient_descent, sparse=False)
_register_family("Momentum", ("var", "accum", "lr", "grad", "momentum"), 2, momentum_update, c_optimizers.momentum)
_register_family("Adam", ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
                 3, adam_update, c_optimizers.adam, sparse=False)
_register_family("RMSProp", ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3, rms_prop_update,
                 c_optimizers.rms_prop)
_register_family("CenteredRMSProp", ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 4,
                 centered_rms_prop_update, c_optimizers.centered_rms_prop)
_register_family("Adagrad", ("var", "accum", "lr", "grad"), 2, adagrad_update, c_optimizers.adagrad)
_register_family("Adadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), 3, adadelta_update,
                 c_optimizers.adadelta)


# --- Python wrappers (gen_training_ops' names) -------------------------------------------------------
def _state(variable: Any, resource: bool) -> Any:
    """A variable's reference tensor (TF1) or its resource handle (eager)."""
    if resource:
        return variable.handle
    return variable._ref() if hasattr(variable, "_ref") else variable


def apply_update(op_type: str, state: list, rest: list, attrs: dict | None = None, name: str | None = None) -> Any:
    """Runs op `op_type` ("ApplyAdam", "ResourceSparseApplyMomentum", ...) on variables `state` and tensors `rest`.

    Returns the op (graph mode), or None (eager).
    """
    resource = op_type.startswith("Resource")
    attrs = {"use_locking": False, **(attrs or {})}
    result = apply_op(op_type, [_state(v, resource) for v in state] + list(rest), attrs, name=name)
    return result.op if hasattr(result, "op") and not resource else result


def apply_gradient_descent(var: Any, alpha: Any, delta: Any, use_locking: bool = False, name: str | None = None) -> Any:
    """var <- var - alpha * delta; returns the updated `var` reference."""
    return apply_op("ApplyGradientDescent", [_state(var, False), alpha, delta], {"use_locking": use_locking}, name=name)


__all__ = ["apply_update", "apply_gradient_descent", "gradient_descent_update", "momentum_update", "adam_update",
           "rms_prop_update", "centered_rms_prop_update", "adagrad_update", "adadelta_update"]
