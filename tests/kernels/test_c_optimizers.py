"""Fused optimizer C kernels (webflow/wasm/optimizers.c): bit for bit the NumPy update formulas of
webflow/ops/training_ops.py (TensorFlow's ApplyGradientDescent / ApplyMomentum / ApplyAdam / ...)."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import library as c
from webflow.backends.c import optimizers as c_optimizers  # noqa: F401  (declares the signatures)
from webflow.ops import training_ops

require_c_library()

RNG = np.random.default_rng(3)
SUFFIX = {np.float32: "f32", np.float64: "f64"}
SIZES = [0, 1, 5, 8, 9, 1000]


def arrays(dtype: type, n: int, count: int, positive: bool = False) -> list:
    values = [RNG.standard_normal(n).astype(dtype) for _ in range(count)]
    return [np.abs(v) for v in values] if positive else values


def scalar(value: float, dtype: type) -> np.ndarray:
    return np.asarray(value, dtype=dtype)


def assert_bitwise(got: list, expected: tuple) -> None:
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and np.array_equal(g, e), np.max(np.abs(g - e))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_gradient_descent(dtype, n):
    var, delta = arrays(dtype, n, 2)
    alpha = scalar(0.37, dtype)
    out = np.empty_like(var)
    c.function(f"wf_apply_gradientdescent_{SUFFIX[dtype]}")(c.address(var), alpha, c.address(delta), c.address(out), n)
    assert_bitwise([out], training_ops.gradient_descent_update(var, alpha, delta))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(dtype, n, nesterov):
    var, accum, grad = arrays(dtype, n, 3)
    lr, momentum = scalar(0.01, dtype), scalar(0.9, dtype)
    expected = training_ops.momentum_update(var, accum, lr, grad, momentum, use_nesterov=nesterov)
    var_out, accum_out = np.empty_like(var), np.empty_like(var)
    c.function(f"wf_apply_momentum_{SUFFIX[dtype]}")(
        c.address(var), c.address(accum), lr, c.address(grad), momentum, int(nesterov),
        c.address(var_out), c.address(accum_out), n)
    assert_bitwise([var_out, accum_out], expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_in_place(dtype, n, nesterov):
    """Several steps, updating the state buffers in place (outputs = inputs), as a training loop would."""
    var, grad_seed = arrays(dtype, n, 2)
    m, v = np.zeros(n, dtype), np.zeros(n, dtype)
    lr, beta1, beta2, epsilon = (scalar(x, dtype) for x in (0.001, 0.9, 0.999, 1e-7))
    reference = (var.copy(), m.copy(), v.copy())
    for step in range(1, 4):
        grad = grad_seed * dtype(step)
        beta1_power, beta2_power = scalar(0.9 ** step, dtype), scalar(0.999 ** step, dtype)
        reference = training_ops.adam_update(*reference, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                                             use_nesterov=nesterov)
        c.function(f"wf_apply_adam_{SUFFIX[dtype]}")(
            c.address(var), c.address(m), c.address(v), beta1_power, beta2_power, lr, beta1, beta2, epsilon,
            c.address(grad), int(nesterov), c.address(var), c.address(m), c.address(v), n)
        assert_bitwise([var, m, v], reference)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("update_slots", [False, True])
def test_adagrad(dtype, update_slots):
    var, grad = arrays(dtype, 33, 2)
    (accum,) = arrays(dtype, 33, 1, positive=True)
    lr = scalar(0.1, dtype)
    expected = training_ops.adagrad_update(var, accum, lr, grad, update_slots=update_slots)
    var_out, accum_out = np.empty_like(var), np.empty_like(var)
    c.function(f"wf_apply_adagrad_{SUFFIX[dtype]}")(c.address(var), c.address(accum), lr, c.address(grad),
                                                    int(update_slots), c.address(var_out), c.address(accum_out), 33)
    assert_bitwise([var_out, accum_out], expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rmsprop(dtype):
    var, mom, grad = arrays(dtype, 41, 3)
    (ms,) = arrays(dtype, 41, 1, positive=True)
    lr, rho, momentum, epsilon = (scalar(x, dtype) for x in (0.01, 0.9, 0.5, 1e-10))
    expected = training_ops.rms_prop_update(var, ms, mom, lr, rho, momentum, epsilon, grad)
    outs = [np.empty_like(var) for _ in range(3)]
    c.function(f"wf_apply_rmsprop_{SUFFIX[dtype]}")(c.address(var), c.address(ms), c.address(mom), lr, rho, momentum,
                                                    epsilon, c.address(grad), *[c.address(o) for o in outs], 41)
    assert_bitwise(outs, expected)
