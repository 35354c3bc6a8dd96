"""Kernel jobs for gather / scatter-add, the fused optimizers, cast / strided copy and Philox, with their
checks (run native or in Pyodide). Oracles as in tests/kernels/test_c_gather.py, test_c_optimizers.py,
test_c_cast.py, test_c_philox.py: np.take / np.add.at, webflow's NumPy updates and Philox bit for bit,
NumPy's astype and TensorFlow's recorded results for out-of-range casts."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from c_views import odd_view
from kernel_cases_dense import Case, _assert_equal
from test_c_cast import NUMPY_TYPES, in_range_values

from webflow.backends.c.cast import CAST_TYPES
from webflow.backends.numpy import random_distributions
from webflow.framework.philox import PhiloxGenerator
from webflow.ops import training_ops

SUFFIX = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}
INDEX = {np.int32: "i32", np.int64: "i64"}


def _equal(out, expected) -> Callable:
    return lambda results, outputs: np.testing.assert_array_equal(outputs[out], expected)


def _status(case: Case, expected: int) -> None:
    index = len(case.job.calls) - 1
    case.check(lambda results, outputs: _assert_equal(results[index], expected))


# ------------------------------------------------------------------------------------ gather / scatter
def _gather(case: Case, params: np.ndarray, indices: np.ndarray, axis: int) -> object:
    job = case.job
    outer, inner = int(np.prod(params.shape[:axis])), int(np.prod(params.shape[axis + 1:]))
    out = job.output(np.zeros(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype))
    job.call(f"wf_gather_{INDEX[indices.dtype.type]}", job.input(params), job.input(indices), out, outer,
             params.shape[axis], inner * params.itemsize, indices.size)
    return out


def gather_case(index_dtype: type) -> Case:
    """np.take on every axis for six dtypes (rows copied as bytes), and out-of-range indices (error, no write)."""
    rng, case = np.random.default_rng(40), Case()
    for dtype, _trial in itertools.product([np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_], range(25)):
        rank = int(rng.integers(1, 5))
        shape = tuple(int(d) for d in rng.choice([0, 1, 2, 3, 7], size=rank, p=[.05, .2, .3, .3, .15]))
        params = (rng.standard_normal(shape) * 50).astype(dtype)
        axis = int(rng.integers(rank))
        index_shape = tuple(int(d) for d in rng.integers(0, 4, size=int(rng.integers(0, 3))))
        indices = (np.zeros((0,), index_dtype) if shape[axis] == 0
                   else rng.integers(0, shape[axis], index_shape).astype(index_dtype))
        out = _gather(case, params, indices, axis)
        _status(case, 0)
        case.check(_equal(out, np.take(params, indices, axis=axis)))
    params = rng.standard_normal((4, 5)).astype(np.float32)
    for bad in (5, -1, 1 << 30):
        out = _gather(case, params, np.array([0, 4, bad, 1], index_dtype), axis=1)
        _status(case, 3)                                       # 1 + position of the bad index
        case.check(_equal(out, np.zeros((4, 4), np.float32)))
    return case


def scatter_add_case(index_dtype: type) -> Case:
    """UnsortedSegmentSum (negative segment ids dropped) for four dtypes; a too-large id is refused."""
    rng, case = np.random.default_rng(41), Case()
    job = case.job
    for dtype, (count, inner, segments) in itertools.product(
            [np.float32, np.float64, np.int32, np.int64], [(0, 3, 4), (1, 1, 1), (10, 3, 4), (50, 16, 7), (9, 0, 3)]):
        indices = rng.integers(-2, segments, count).astype(index_dtype)
        updates = (rng.standard_normal((count, inner)) * 10).astype(dtype)
        out = job.output(np.zeros((segments, inner), dtype))
        job.call(f"wf_scatter_add_{SUFFIX[dtype]}_{INDEX[index_dtype]}", job.input(updates), job.input(indices),
                 out, count, inner, segments)
        _status(case, 0)
        expected = np.zeros((segments, inner), dtype)
        keep = indices >= 0
        np.add.at(expected, indices[keep], updates[keep])
        if np.dtype(dtype).kind == "f":
            case.check(lambda results, outputs, out=out, e=expected: np.testing.assert_allclose(
                outputs[out], e, rtol=1e-6, atol=1e-5))
        else:
            case.check(_equal(out, expected))
    out = job.output(np.zeros((6, 5), np.float32))
    job.call(f"wf_scatter_add_f32_{INDEX[index_dtype]}", job.input(np.ones((4, 5), np.float32)),
             job.input(np.array([3, 1, 6, 0], index_dtype)), out, 4, 5, 6)
    _status(case, 3)
    case.check(_equal(out, np.zeros((6, 5), np.float32)))
    return case


# --------------------------------------------------------------------------------------- optimizers
def optimizers_case(dtype: type) -> Case:
    """SGD, momentum, Adam, Adagrad, RMSProp, centered RMSProp, Adadelta bit for bit as ops/training_ops.py."""
    rng, case = np.random.default_rng(42), Case()
    job, s, x = case.job, SUFFIX[dtype], lambda value: np.asarray(value, dtype)

    def arrays(n: int, count: int, positive: bool = False) -> list:
        values = [rng.standard_normal(n).astype(dtype) for _ in range(count)]
        return [np.abs(v) for v in values] if positive else values

    for n in [0, 1, 5, 8, 9, 1000]:
        var, delta = arrays(n, 2)
        out = job.output(np.empty_like(var))
        job.call(f"wf_apply_gradientdescent_{s}", job.input(var), x(0.37), job.input(delta), out, n)
        case.check(_equal(out, training_ops.gradient_descent_update(var, x(0.37), delta)[0]))
        for nesterov in (False, True):
            var, accum, grad = arrays(n, 3)
            outs = [job.output(np.empty_like(var)) for _ in range(2)]
            job.call(f"wf_apply_momentum_{s}", job.input(var), job.input(accum), x(0.01), job.input(grad), x(0.9),
                     int(nesterov), *outs, n)
            expected = training_ops.momentum_update(var, accum, x(0.01), grad, x(0.9), use_nesterov=nesterov)
            for out, e in zip(outs, expected, strict=True):
                case.check(_equal(out, e))
            # Adam updating its state in place (outputs = inputs), several steps, as a training loop does
            var, grad_seed = arrays(n, 2)
            state = [job.output(var), job.output(np.zeros(n, dtype)), job.output(np.zeros(n, dtype))]
            reference = (var.copy(), np.zeros(n, dtype), np.zeros(n, dtype))
            hyper = [x(h) for h in (0.001, 0.9, 0.999, 1e-7)]
            for step in range(1, 4):
                grad = grad_seed * dtype(step)
                powers = [x(0.9 ** step), x(0.999 ** step)]
                job.call(f"wf_apply_adam_{s}", *state, *powers, *hyper, job.input(grad), int(nesterov), *state, n)
                reference = training_ops.adam_update(*reference, *powers, *hyper, grad, use_nesterov=nesterov)
            for out, e in zip(state, reference, strict=True):
                case.check(_equal(out, e))
    for update_slots in (False, True):
        var, grad = arrays(33, 2)
        (accum,) = arrays(33, 1, positive=True)
        outs = [job.output(np.empty_like(var)) for _ in range(2)]
        job.call(f"wf_apply_adagrad_{s}", job.input(var), job.input(accum), x(0.1), job.input(grad),
                 int(update_slots), *outs, 33)
        for out, e in zip(outs, training_ops.adagrad_update(var, accum, x(0.1), grad, update_slots=update_slots),
                          strict=True):
            case.check(_equal(out, e))
    var, mom, grad = arrays(41, 3)
    (ms,) = arrays(41, 1, positive=True)
    hyper = [x(h) for h in (0.01, 0.9, 0.5, 1e-10)]
    outs = [job.output(np.empty_like(var)) for _ in range(3)]
    job.call(f"wf_apply_rmsprop_{s}", job.input(var), job.input(ms), job.input(mom), *hyper, job.input(grad), *outs, 41)
    for out, e in zip(outs, training_ops.rms_prop_update(var, ms, mom, *hyper, grad), strict=True):
        case.check(_equal(out, e))
    # centered RMSProp and Adadelta updating their state in place for 3 steps (as a training loop does)
    for n in (0, 7, 41):
        var, grad_seed = arrays(n, 2)
        state = [job.output(var)] + [job.output(np.zeros(n, dtype)) for _ in range(3)]
        reference = (var.copy(),) + tuple(np.zeros(n, dtype) for _ in range(3))
        hyper = [x(h) for h in (0.01, 0.9, 0.5, 1e-10)]
        for step in range(1, 4):
            grad = grad_seed * dtype(step)
            job.call(f"wf_apply_centeredrmsprop_{s}", *state, *hyper, job.input(grad), *state, n)
            reference = training_ops.centered_rms_prop_update(*reference, *hyper, grad)
        for out, e in zip(state, reference, strict=True):
            case.check(_equal(out, e))
        var, grad_seed = arrays(n, 2)
        state = [job.output(var)] + [job.output(np.zeros(n, dtype)) for _ in range(2)]
        reference = (var.copy(),) + tuple(np.zeros(n, dtype) for _ in range(2))
        hyper = [x(h) for h in (1.0, 0.95, 1e-6)]
        for step in range(1, 4):
            grad = grad_seed * dtype(step)
            job.call(f"wf_apply_adadelta_{s}", *state, *hyper, job.input(grad), *state, n)
            reference = training_ops.adadelta_update(*reference, *hyper, grad)
        for out, e in zip(state, reference, strict=True):
            case.check(_equal(out, e))
    return case


# ----------------------------------------------------------------------------------------------- cast
def _cast(case: Case, x: np.ndarray, destination: str, expected: object) -> None:
    out = case.job.output(np.zeros(x.shape, NUMPY_TYPES[destination]))
    case.job.call("wf_cast", case.job.input(x), CAST_TYPES[x.dtype.name], out, CAST_TYPES[destination], x.size)
    _status(case, 0)
    case.check(_equal(out, np.asarray(expected)))


def cast_case() -> Case:
    """Every pair of six dtypes in range (NumPy), truncation toward zero, NaN / inf / out of range as
    TensorFlow returns them (never a wasm trap), unknown types refused, strided copies."""
    rng, case = np.random.default_rng(43), Case()
    for source, destination in itertools.product(NUMPY_TYPES, NUMPY_TYPES):
        x = in_range_values(NUMPY_TYPES[source])
        _cast(case, x, destination, x.astype(NUMPY_TYPES[destination]))
    x = np.array([-2.7, -0.5, -0.0, 0.5, 2.7, -1e9, 1e9], np.float32)
    _cast(case, x, "int32", np.trunc(x).astype(np.int32))
    _cast(case, x.astype(np.float64), "int64", np.trunc(x).astype(np.int64))
    x = np.array([np.nan, 1e10, -1e10, 300.0, -1.0, -2.7, 2.7, 255.9, np.inf, -np.inf, 3e9, -3e9], np.float32)
    low32, low64 = -2**31, -2**63
    for source in (x, x.astype(np.float64)):     # TensorFlow's results (see test_c_cast.py)
        _cast(case, source, "int32", np.array([low32, low32, low32, 300, -1, -2, 2, 255] + [low32] * 4, np.int32))
        _cast(case, source, "int64", np.array([low64, 10**10, -10**10, 300, -1, -2, 2, 255, low64, low64, 3 * 10**9,
                                               -3 * 10**9], np.int64))
        _cast(case, source, "uint8", np.array([0, 0, 0, 44, 255, 254, 2, 255, 0, 0, 0, 0], np.uint8))
        _cast(case, source, "bool", np.ones(12, bool))
    x = np.array([300, -1, 2**31 - 1, -2**31, 2**40 + 7], np.int64)
    _cast(case, x, "int32", np.array([300, -1, 2**31 - 1, -2**31, 7], np.int32))
    _cast(case, x, "uint8", np.array([44, 255, 255, 0, 7], np.uint8))
    big = np.array([2**53 + 1, 2**24 + 1, -(2**62) - 1], np.int64)
    _cast(case, big, "float32", big.astype(np.float32))                      # one rounding, not via double
    scratch = case.job.output(np.zeros(3, np.float32))
    for source_type, destination_type in [(1, 7), (19, 1)]:                  # DT_STRING, DT_HALF: refused
        case.job.call("wf_cast", scratch, source_type, scratch, destination_type, 3)
        _status(case, -1)
    for dtype, shape in itertools.product([np.uint8, np.int16, np.float32, np.float64],
                                          [(), (0, 3), (1,), (5, 7), (3, 1, 4, 2), (2, 3, 5)]):
        view = odd_view(np.asarray(rng.integers(0, 100, shape)).astype(dtype), rng)
        for candidate in (view, np.transpose(view)):
            out = case.job.output(np.zeros(candidate.shape, dtype))
            case.job.call("wf_copy_strided", case.job.view(candidate), out, candidate.itemsize, candidate.ndim,
                          case.job.sizes(candidate.shape), case.job.strides(candidate))
            _status(case, 0)
            case.check(_equal(out, candidate.copy()))
    return case


# --------------------------------------------------------------------------------------------- Philox
def _philox_words(generator: PhiloxGenerator, start_block: int = 0) -> tuple[np.ndarray, np.ndarray]:
    counter = (generator.counter + start_block) % (1 << 128)
    key = np.array(generator.key, np.uint32)
    return key, np.array([(counter >> (32 * i)) & 0xFFFFFFFF for i in range(4)], np.uint32)


def philox_case() -> Case:
    """The uint32 stream and TF's uniform floats, bit for bit as framework/philox.py; the 128-bit counter carry."""
    case = Case()
    job = case.job
    for (seed, seed2), count in itertools.product([(1, 2), (87654321, 0), (2**63 + 5, 2**64 - 1), (123, 2**40 + 17)],
                                                  [0, 1, 3, 4, 5, 7, 8, 1001]):
        generator = PhiloxGenerator(seed, seed2)
        key, counter = (job.input(a) for a in _philox_words(generator))
        for name, dtype, expected in [
                ("wf_philox_uint32", np.uint32, generator.uint32s(count)),
                ("wf_philox_uniform_f32", np.float32, random_distributions.uniform(generator, count, np.float32)),
                ("wf_philox_uniform_f64", np.float64, random_distributions.uniform(generator, count, np.float64))]:
            out = job.output(np.zeros(count, dtype))
            job.call(name, key, counter, out, count)
            case.check(_equal(out, expected))
    generator = PhiloxGenerator(42, 2**64 - 1)
    generator.counter = (1 << 128) - 3                                      # two blocks before wrapping around
    expected = generator.blocks(0, 6).reshape(-1)
    for start_block, count, want in [(0, 24, expected), (2, 10, expected[8:18])]:
        key, counter = (job.input(a) for a in _philox_words(generator, start_block))
        out = job.output(np.zeros(count, np.uint32))
        job.call("wf_philox_uint32", key, counter, out, count)
        case.check(_equal(out, want))
    return case


def state_cases() -> dict[str, Callable[[], Case]]:
    """Name -> builder, for every gather / scatter / optimizer / cast / Philox case."""
    cases: dict[str, Callable[[], Case]] = {}
    for index_dtype in (np.int32, np.int64):
        cases[f"gather-{INDEX[index_dtype]}"] = lambda d=index_dtype: gather_case(d)
        cases[f"scatter-add-{INDEX[index_dtype]}"] = lambda d=index_dtype: scatter_add_case(d)
    for dtype in (np.float32, np.float64):
        cases[f"optimizers-{SUFFIX[dtype]}"] = lambda d=dtype: optimizers_case(d)
    cases["cast-and-strided-copy"] = cast_case
    cases["philox"] = philox_case
    return cases
