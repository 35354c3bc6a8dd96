"""Gradients of the differentiable op families on random shapes, against central differences (float64).

hypothesis draws a case of a family (strategies.py: shapes, broadcasting, axes, strides, paddings); its float inputs
are then refilled with continuous random values in float64 (drawn from a seed hypothesis picks), kept away from
kinks and ties (max/min, relu, abs) and from the edges of each op's domain, so central differences of the NumPy
oracle are a fair reference. The GradientTape gradient of sum(w * op(x)) (fixed weights w) must match them, on
the NumPy kernels and on the native C kernels.
"""

from __future__ import annotations

import catalog
import engine
import numpy as np
import oracles
import pytest
import strategies
from hypothesis import assume, given
from hypothesis import strategies as st
from property_settings import examples

import webflow as wf

SMOOTH_UNARY = {"neg", "abs", "square", "sqrt", "rsqrt", "reciprocal", "exp", "log", "log1p", "tanh", "sigmoid",
                "relu", "relu6", "elu", "selu", "softplus", "softsign", "sin", "cos"}
POSITIVE = {"sqrt", "rsqrt", "log", "log1p", "reciprocal"}       # domain (0, inf): inputs in [0.5, 2]
BINARY = {"add", "sub", "mul", "div", "maximum", "minimum", "squared_difference", "pow"}
REDUCTIONS = {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp"}
GATHERS = {"gather", "gather_nd", "scatter_nd"}
COUNTS = {"unary": 30, "binary": 30, "reduction": 25, "matmul": 15, "conv": 10, "pool": 12, "gather": 15,
          "softmax": 20}


def differentiable(case) -> bool:
    op = case.op
    return (op in SMOOTH_UNARY or op in BINARY or op in REDUCTIONS or op in GATHERS
            or catalog.family_of(op) in ("matmul", "conv", "pool", "softmax"))


def refill(case, seed: int):
    """The case with its float inputs replaced by well-separated float64 values (integer inputs kept)."""
    rng = np.random.default_rng(seed)
    inputs = []
    for i, x in enumerate(case.inputs):
        if x.dtype.kind != "f" or (case.op == "softmax_xent" and i == 1):
            inputs.append(x.astype(np.float64) if x.dtype.kind == "f" else x)
            continue
        if case.op in POSITIVE or (case.op == "pow" and i == 0):
            values = rng.uniform(0.5, 2.0, x.shape)
        elif case.op == "div" and i == 1:
            values = rng.uniform(0.5, 2.0, x.shape) * rng.choice([-1, 1], x.shape)
        elif case.op == "reduce_prod":
            values = rng.uniform(0.5, 1.5, x.shape) * rng.choice([-1, 1], x.shape)
        else:   # a random permutation of spread-out values: no ties, nothing near a kink at 0 or 6
            count = x.size
            values = (rng.permutation(count) - count / 2 + 0.5) * 0.37 + rng.uniform(-0.05, 0.05, count)
            values = values.reshape(x.shape)
        inputs.append(np.asarray(values, dtype=np.float64))
    case = strategies.Case(case.op, inputs, dict(case.attrs))
    if case.op == "softmax_xent":   # labels: a probability row each
        case.inputs[1] = case.inputs[1] + 0.1
        case.inputs[1] /= case.inputs[1].sum(axis=-1, keepdims=True)
    return case


def wrt(case) -> list:
    """Which inputs the gradient is taken with respect to (the float ones, not the labels)."""
    if case.op in ("softmax_xent", "sparse_xent"):
        return [0]
    return [i for i, x in enumerate(case.inputs) if x.dtype.kind == "f"]


def numerical(case, index: int, weights: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    x = case.inputs[index]
    grad = np.zeros_like(x)
    for position in np.ndindex(x.shape):
        values = []
        for step in (eps, -eps):
            moved = [v.copy() for v in case.inputs]
            moved[index][position] += step
            values.append(np.sum(weights * oracles.expected(case.op, moved, case.attrs)[0]))
        grad[position] = (values[0] - values[1]) / (2 * eps)
    return grad


def taped(case, indices: list, weights: np.ndarray) -> list:
    tensors = [wf.constant(x) for x in case.inputs]
    with wf.GradientTape() as tape:
        for i in indices:
            tape.watch(tensors[i])
        out = catalog.build(wf, case.op, tensors, case.attrs)
        objective = wf.reduce_sum(out * wf.constant(weights))
    return tape.gradient(objective, [tensors[i] for i in indices])


def _property(family: str):
    @examples(COUNTS[family])
    @given(case=strategies.FAMILIES[family](), seed=st.integers(0, 2**32 - 1))
    def check(backend, case, seed):
        assume(differentiable(case) and case.inputs[0].dtype.kind == "f")
        case = refill(case, seed)
        assume(all(x.size <= 64 for x in case.inputs))
        with engine.on_backend(backend):
            shape = oracles.expected(case.op, case.inputs, case.attrs)[0].shape
            weights = np.random.default_rng(seed + 1).uniform(0.5, 1.5, shape)
            indices = wrt(case)
            for i, got in zip(indices, taped(case, indices, weights)):
                want = numerical(case, i, weights)
                got = np.zeros_like(want) if got is None else np.asarray(wf.convert_to_tensor(got).numpy())
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6,
                                           err_msg=f"{backend} d{case.op}/d(input {i}) of {case!r}")

    check.__name__ = f"test_{family}_gradients_match_numerical"
    return pytest.mark.parametrize("backend", engine.BACKENDS)(check)


test_unary_gradients_match_numerical = _property("unary")
test_binary_gradients_match_numerical = _property("binary")
test_reduction_gradients_match_numerical = _property("reduction")
test_matmul_gradients_match_numerical = _property("matmul")
test_conv_gradients_match_numerical = _property("conv")
test_pool_gradients_match_numerical = _property("pool")
test_gather_gradients_match_numerical = _property("gather")
test_softmax_gradients_match_numerical = _property("softmax")
