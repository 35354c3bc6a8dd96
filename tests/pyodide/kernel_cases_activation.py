"""Kernel jobs for webflow/wasm/activations.c (elu ... softplus, their *Grad ops, floor/ceil/round/sign,
is_nan/is_inf/is_finite), run native or in Pyodide. Oracle: the NumPy kernels of ops/nn_activation_ops.py
and ops/unary_math_ops.py (webflow imported with NumPy), within a few float32 ulp for the exp/log-based
ones (vector_math.h), bit for bit for the exact ones."""

from __future__ import annotations

import numpy as np
from kernel_cases_dense import Case

from webflow.ops import nn_activation_ops as act
from webflow.ops import unary_math_ops as unary

SUFFIX = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}
SPECIAL = [np.nan, -np.inf, np.inf, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 6.0, 1e-9, -1e-9, -20.0, 20.0, -100.0]


def _inputs(dtype: type, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = np.concatenate([SPECIAL, rng.standard_normal(997) * 5, rng.uniform(-40, 40, 250)])
    return x.astype(dtype)


def _unary_case(stem: str, reference, dtype: type, tolerance: float) -> Case:
    x = _inputs(dtype, 41)
    if np.dtype(dtype).kind == "i":
        x = np.concatenate([np.arange(-9, 10), [np.iinfo(dtype).min, np.iinfo(dtype).max]]).astype(dtype)
    case = Case()
    y = case.job.output(np.zeros_like(x))
    case.job.call(f"wf_{stem}_{SUFFIX[dtype]}", case.job.input(x), y, x.size)
    with np.errstate(all="ignore"):
        expected = np.asarray(reference(x))

    def check(results, outputs):
        np.testing.assert_allclose(outputs[y], expected, rtol=tolerance, atol=tolerance * 1e-3, equal_nan=True,
                                   err_msg=stem)
    case.check(check)
    return case


def _grad_case(stem: str, reference, dtype: type, tolerance: float) -> Case:
    g, saved = _inputs(dtype, 42)[16:], _inputs(dtype, 43)[16:]
    case = Case()
    out = case.job.output(np.zeros_like(g))
    case.job.call(f"wf_{stem}_{SUFFIX[dtype]}", case.job.input(g), case.job.input(saved), out, g.size)
    with np.errstate(all="ignore"):
        expected = np.asarray(reference(g, saved))
    case.check(lambda results, outputs: np.testing.assert_allclose(outputs[out], expected, rtol=tolerance,
                                                                   atol=0, err_msg=stem))
    return case


def _leaky_case(dtype: type) -> Case:
    x, g = _inputs(dtype, 44), _inputs(dtype, 45)
    case = Case()
    y, dx = case.job.output(np.zeros_like(x)), case.job.output(np.zeros_like(x))
    case.job.call(f"wf_leaky_relu_{SUFFIX[dtype]}", case.job.input(x), y, x.size, 0.25)
    case.job.call(f"wf_leaky_relu_grad_{SUFFIX[dtype]}", case.job.input(g), case.job.input(x), dx, x.size, 0.25)

    def check(results, outputs):
        np.testing.assert_array_equal(outputs[y], act.leaky_relu_kernel(x, alpha=0.25))
        np.testing.assert_array_equal(outputs[dx], act.leaky_relu_grad_kernel(g, x, alpha=0.25))
    case.check(check)
    return case


def _classify_case(dtype: type) -> Case:
    x = _inputs(dtype, 46)
    case = Case()
    outs = {}
    for stem, reference in (("is_nan", np.isnan), ("is_inf", np.isinf), ("is_finite", np.isfinite)):
        outs[stem] = (case.job.output(np.zeros(x.size, np.uint8)), reference(x))
        case.job.call(f"wf_{stem}_{SUFFIX[dtype]}", case.job.input(x), outs[stem][0], x.size)

    def check(results, outputs):
        for stem, (buffer, expected) in outs.items():
            np.testing.assert_array_equal(outputs[buffer].astype(bool), expected, err_msg=stem)
    case.check(check)
    return case


def activation_cases() -> dict:
    cases = {}
    for dtype, close in ((np.float32, 3e-6), (np.float64, 1e-13)):
        name = SUFFIX[dtype]
        for stem, reference, tolerance in (
                ("elu", act.elu_kernel, close), ("selu", act.selu_kernel, close),
                ("softplus", act.softplus_kernel, close), ("softsign", act.softsign_kernel, 0),
                ("relu6", act.relu6_kernel, 0), ("floor", np.floor, 0), ("ceil", np.ceil, 0),
                ("round", np.round, 0), ("sign", np.sign, 0)):
            cases[f"activation_{stem}_{name}"] = lambda s=stem, r=reference, d=dtype, t=tolerance: \
                _unary_case(s, r, d, t)
        for stem, reference, tolerance in (
                ("elu_grad", act.elu_grad_kernel, 0), ("selu_grad", act.selu_grad_kernel, 0),
                ("softplus_grad", act.softplus_grad_kernel, close), ("softsign_grad", act.softsign_grad_kernel, close),
                ("relu6_grad", act.relu6_grad_kernel, 0)):
            cases[f"activation_{stem}_{name}"] = lambda s=stem, r=reference, d=dtype, t=tolerance: \
                _grad_case(s, r, d, t)
        cases[f"activation_leaky_relu_{name}"] = lambda d=dtype: _leaky_case(d)
        cases[f"activation_classify_{name}"] = lambda d=dtype: _classify_case(d)
    for dtype in (np.int32, np.int64):
        for stem, reference in (("relu6", act.relu6_kernel), ("sign", unary.sign_kernel)):
            cases[f"activation_{stem}_{SUFFIX[dtype]}"] = lambda s=stem, r=reference, d=dtype: _unary_case(s, r, d, 0)
    return cases
