"""C signatures of the fused optimizer updates (webflow/wasm/optimizers.c), for c_library.function().

Arguments follow the op's inputs, then attrs, then the new state buffers (which may be the input
buffers themselves), then the element count; <t> is f32 or f64 and scalars are passed as floats.
    wf_apply_gradientdescent_<t>(var, alpha, delta, var_out, n)
    wf_apply_momentum_<t>(var, accum, lr, grad, momentum, use_nesterov, var_out, accum_out, n)
    wf_apply_adam_<t>(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_nesterov,
                      var_out, m_out, v_out, n)
    wf_apply_adagrad_<t>(var, accum, lr, grad, update_slots, var_out, accum_out, n)
    wf_apply_rmsprop_<t>(var, ms, mom, lr, rho, momentum, epsilon, grad, var_out, ms_out, mom_out, n)
    wf_apply_centeredrmsprop_<t>(var, mg, ms, mom, lr, rho, momentum, epsilon, grad,
                                 var_out, mg_out, ms_out, mom_out, n)
    wf_apply_adadelta_<t>(var, accum, accum_update, lr, rho, epsilon, grad, var_out, accum_out, accum_update_out, n)
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.c import philox  # noqa: F401  (RandomUniform's adapter calls its C functions)
from webflow.backends.c.adapters import (
    Unsupported,
    c_kernel,
    call_sliced,
    contiguous,
    empty_like,
    is_aligned,
    ndim,
    suffix,
)
from webflow.backends.c.library import F32, F64, INT, PTR, SIZE, VOID, declare

for _suffix, _real in (("f32", F32), ("f64", F64)):
    declare(f"wf_apply_gradientdescent_{_suffix}", [PTR, _real, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_momentum_{_suffix}", [PTR, PTR, _real, PTR, _real, INT, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adam_{_suffix}",
            [PTR, PTR, PTR, _real, _real, _real, _real, _real, _real, PTR, INT, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adagrad_{_suffix}", [PTR, PTR, _real, PTR, INT, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_rmsprop_{_suffix}",
            [PTR, PTR, PTR, _real, _real, _real, _real, PTR, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_centeredrmsprop_{_suffix}",
            [PTR, PTR, PTR, PTR, _real, _real, _real, _real, PTR, PTR, PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_apply_adadelta_{_suffix}", [PTR, PTR, PTR, _real, _real, _real, PTR, PTR, PTR, PTR, SIZE], VOID)


def _states(*arrays: Any) -> tuple:
    """The state and gradient arrays as contiguous arrays of one float dtype and shape, or Unsupported."""
    arrays = tuple(contiguous(a) for a in arrays)
    first = arrays[0]
    c_suffix = suffix(first)
    if any(a.dtype != first.dtype or a.shape != first.shape for a in arrays[1:]):
        raise Unsupported("state shapes")
    return c_suffix, arrays


def _scalar(value: Any) -> float:
    if type(value) is CArray and value.shape == ():  # the usual case, without the generic checks
        return float(value.data[0])
    if ndim(value) != 0:
        raise Unsupported("non-scalar hyper-parameter")
    return float(value)


def _outputs(into: tuple | None, *states: Any) -> list:
    """Where the new states go: over a state's own array when the caller may overwrite it (`into`, decided by
    ops/training_ops.py) and it is the very array the kernel reads, else a fresh array. The C updates read
    each element before writing it, so the output may be the input. A state off a 64-byte boundary (the
    variable's first value came from NumPy) moves once to a fresh, aligned array: the convolutions load the
    filter they read from the variable as whole vectors (numpy_arrays.aligned_empty)."""
    into = into or (None,) * len(states)
    return [state if target is state and is_aligned(state) else empty_like(state)
            for target, state in zip(into, states)]


# size_input: the gradient decides (input 0 is a ref or a resource handle).
# measured: the fused C pass beats NumPy's chain of temporaries once they stop fitting in cache
# (Adam 100k floats: 459 -> 412 us; 16k: 36 -> 46 us, where the ~15 us of ctypes calls dominate).
@c_kernel(min_size=65536, size_input=2, update=True)
def gradient_descent(var: Any, alpha: Any, delta: Any, *, into: tuple | None = None) -> tuple:
    """wf_apply_gradientdescent_<t>: var <- var - alpha * delta."""
    c_suffix, (var, delta) = _states(var, delta)
    (new_var,) = _outputs(into, var)
    call_sliced(f"wf_apply_gradientdescent_{c_suffix}", [var, _scalar(alpha), delta, new_var], var.size)
    return (new_var,)


@c_kernel(min_size=65536, size_input=3, update=True)
def momentum(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any, *, use_nesterov: bool = False,
             into: tuple | None = None) -> tuple:
    """wf_apply_momentum_<t>: accum <- momentum accum + g; var <- var - lr accum (or Nesterov)."""
    c_suffix, (var, accum, grad) = _states(var, accum, grad)
    new_var, new_accum = _outputs(into, var, accum)
    call_sliced(f"wf_apply_momentum_{c_suffix}", [var, accum, _scalar(lr), grad, _scalar(momentum),
                                                   int(use_nesterov), new_var, new_accum], var.size)
    return new_var, new_accum


# Adam's NumPy chain makes ~10 temporaries, so C wins from fewer floats than the other updates, and in place
# beats fresh arrays (their page faults); benchmarks/FIGURES.md, "Adam in C".
@c_kernel(min_size=16384, size_input=9, update=True)
def adam(var: Any, m: Any, v: Any, beta1_power: Any, beta2_power: Any, lr: Any, beta1: Any, beta2: Any,
         epsilon: Any, grad: Any, *, use_nesterov: bool = False, into: tuple | None = None) -> tuple:
    """wf_apply_adam_<t>: m, v and var updated in one pass."""
    c_suffix, (var, m, v, grad) = _states(var, m, v, grad)
    new_var, new_m, new_v = _outputs(into, var, m, v)
    scalars = [_scalar(s) for s in (beta1_power, beta2_power, lr, beta1, beta2, epsilon)]
    call_sliced(f"wf_apply_adam_{c_suffix}", [var, m, v, *scalars, grad, int(use_nesterov), new_var, new_m, new_v],
                 var.size)
    return new_var, new_m, new_v


@c_kernel(min_size=65536, size_input=3, update=True)
def adagrad(var: Any, accum: Any, lr: Any, grad: Any, *, update_slots: bool = True, into: tuple | None = None) -> tuple:
    """wf_apply_adagrad_<t>: accum <- accum + g^2; var <- var - lr g / sqrt(accum)."""
    c_suffix, (var, accum, grad) = _states(var, accum, grad)
    new_var, new_accum = _outputs(into, var, accum)
    call_sliced(f"wf_apply_adagrad_{c_suffix}", [var, accum, _scalar(lr), grad, int(update_slots), new_var,
                                                  new_accum], var.size)
    return new_var, new_accum


@c_kernel(min_size=65536, size_input=7, update=True)
def rms_prop(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any, grad: Any, *,
             into: tuple | None = None) -> tuple:
    """wf_apply_rmsprop_<t>: ms, mom and var updated in one pass."""
    c_suffix, (var, ms, mom, grad) = _states(var, ms, mom, grad)
    new_var, new_ms, new_mom = _outputs(into, var, ms, mom)
    scalars = [_scalar(s) for s in (lr, rho, momentum, epsilon)]
    call_sliced(f"wf_apply_rmsprop_{c_suffix}", [var, ms, mom, *scalars, grad, new_var, new_ms, new_mom], var.size)
    return new_var, new_ms, new_mom


@c_kernel(min_size=65536, size_input=8, update=True)
def centered_rms_prop(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any,
                      grad: Any, *, into: tuple | None = None) -> tuple:
    """wf_apply_centeredrmsprop_<t>: mg, ms, mom and var updated in one pass."""
    c_suffix, (var, mg, ms, mom, grad) = _states(var, mg, ms, mom, grad)
    new_var, new_mg, new_ms, new_mom = _outputs(into, var, mg, ms, mom)
    scalars = [_scalar(s) for s in (lr, rho, momentum, epsilon)]
    call_sliced(f"wf_apply_centeredrmsprop_{c_suffix}", [var, mg, ms, mom, *scalars, grad, new_var, new_mg, new_ms,
                                                          new_mom], var.size)
    return new_var, new_mg, new_ms, new_mom


@c_kernel(min_size=65536, size_input=6, update=True)
def adadelta(var: Any, accum: Any, accum_update: Any, lr: Any, rho: Any, epsilon: Any, grad: Any, *,
             into: tuple | None = None) -> tuple:
    """wf_apply_adadelta_<t>: accum, accum_update and var updated in one pass."""
    c_suffix, (var, accum, accum_update, grad) = _states(var, accum, accum_update, grad)
    new_var, new_accum, new_update = _outputs(into, var, accum, accum_update)
    scalars = [_scalar(s) for s in (lr, rho, epsilon)]
    call_sliced(f"wf_apply_adadelta_{c_suffix}", [var, accum, accum_update, *scalars, grad, new_var, new_accum,
                                                   new_update], var.size)
    return new_var, new_accum, new_update
