"""The same kernel families run inside the WebAssembly side module (Node's V8, as in Chromium/Pyodide).

Each test sends NumPy buffers to tests/kernels/wasm_runner.js, calls the kernels there with 32-bit
sizes, and checks the results against the same oracles as the native tests: float32 exp/log/tanh/sigmoid
within their ulp bounds, broadcasting and reductions against NumPy, optimizers / cast / Philox bit for bit.
Skipped without `node` or without clang + wasm-ld to build the module.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

from webflow.backends.numpy import random_distributions
from webflow.framework.philox import PhiloxGenerator
from webflow.ops import training_ops
from webflow.wasm import build

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(99)


@pytest.fixture(scope="module")
def wasm_path() -> str:
    if shutil.which("node") is None:
        pytest.skip("node is not installed: cannot run the wasm module")
    try:
        return build.build_wasm()
    except (build.CompilerNotFound, build.BuildFailed) as error:
        pytest.skip(f"wasm module not built: {str(error).splitlines()[0]}")


def run(wasm: str, tmp_path: object, buffers: list, calls: list) -> tuple:
    """Runs `calls` in the wasm module; returns (results, buffers after the calls as arrays of their dtypes)."""
    job = {"wasm": wasm, "buffers": [base64.b64encode(np.ascontiguousarray(b).tobytes()).decode() for b in buffers],
           "calls": calls}
    path = os.path.join(str(tmp_path), "job.json")
    with open(path, "w") as handle:
        json.dump(job, handle)
    done = subprocess.run(["node", os.path.join(HERE, "wasm_runner.js"), path], capture_output=True, text=True,
                          timeout=120, check=True)
    answer = json.loads(done.stdout)
    arrays = [np.frombuffer(base64.b64decode(data), dtype=b.dtype).reshape(np.shape(b))
              for data, b in zip(answer["buffers"], buffers, strict=True)]
    return answer["results"], arrays


def buffer(index: int) -> dict:
    return {"buffer": index}


def sizes(values: list) -> np.ndarray:
    return np.asarray(values, dtype=np.int32)   # wf_size is 32-bit in wasm32


def test_vector_math_accuracy_in_wasm(wasm_path, tmp_path):
    bits = np.arange(0, 2**32, 65537, dtype=np.uint64).astype(np.uint32)
    x = np.concatenate([bits.view(np.float32), RNG.uniform(-20, 20, 4001).astype(np.float32),
                        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 89.0, -104.0, 1e-45], np.float32)])
    x = x[~np.isnan(x) | (np.arange(x.size) == x.size - 4)]       # one NaN is enough
    names = ["exp", "log", "tanh", "sigmoid"]
    buffers = [x] + [np.zeros_like(x) for _ in names]
    calls = [[f"wf_{name}_f32", buffer(0), buffer(i + 1), x.size] for i, name in enumerate(names)]
    _, outputs = run(wasm_path, tmp_path, buffers, calls)
    bounds = {"exp": 1.0, "log": 1.0, "tanh": 1.5, "sigmoid": 2.5}
    with np.errstate(all="ignore"):
        wide = x.astype(np.float64)
        truths = {"exp": np.exp(wide), "log": np.log(wide), "tanh": np.tanh(wide),
                  "sigmoid": np.where(wide >= 0, 1 / (1 + np.exp(-wide)), np.exp(wide) / (1 + np.exp(wide)))}
    for name, y in zip(names, outputs[1:], strict=True):
        with np.errstate(over="ignore"):
            rounded = truths[name].astype(np.float32)
        finite = np.isfinite(rounded)
        assert np.array_equal(y[~finite], rounded[~finite], equal_nan=True), name
        error = np.abs(y[finite] - truths[name][finite]) / np.spacing(np.abs(rounded[finite])).astype(np.float64)
        assert error.max() <= bounds[name], (name, error.max())


def test_broadcast_binary_and_reduction_in_wasm(wasm_path, tmp_path):
    x = RNG.standard_normal((3, 1, 5)).astype(np.float32)
    y_full = RNG.standard_normal((4, 10)).astype(np.float32)
    y = y_full[:, ::2]                                                # non-contiguous: strides (10, 2) elements
    shape = (3, 4, 5)
    buffers = [x, y_full, np.zeros(shape, np.float32), sizes(shape), sizes([5, 0, 1]), sizes([0, 10, 2]),
               np.zeros(4, np.float32), sizes([20, 5, 1])]
    calls = [["wf_add_f32", buffer(0), buffer(1), buffer(2), 3, buffer(3), buffer(4), buffer(5)],
             ["wf_reduce_sum_f32", buffer(2), buffer(6), 3, buffer(3), buffer(7), 0b101]]
    results, outputs = run(wasm_path, tmp_path, buffers, calls)
    assert results == [0, 0]
    assert np.array_equal(outputs[2], x + y)
    np.testing.assert_allclose(outputs[6], (x + y).sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)


def test_softmax_xent_gather_in_wasm(wasm_path, tmp_path):
    logits = (RNG.standard_normal((6, 9)) * 40).astype(np.float32)
    labels = np.array([0, 8, 3, 3, 1, 7], np.int32)
    bad = np.array([0, 9], np.int64)
    buffers = [logits, labels, np.zeros(6, np.float32), np.zeros_like(logits), bad, np.zeros((6, 2), np.float32)]
    calls = [["wf_sparse_xent_f32_i32", buffer(0), buffer(1), buffer(2), buffer(3), 6, 9],
             ["wf_gather_i64", buffer(0), buffer(4), buffer(5), 6, 9, 4, 2]]
    results, outputs = run(wasm_path, tmp_path, buffers, calls)
    shifted = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    assert results == [0, 2]                                           # label 9 of 9 classes: 1 + position 1
    np.testing.assert_allclose(outputs[2], -log_probs[np.arange(6), labels], rtol=1e-5, atol=1e-5)
    expected_backprop = np.exp(log_probs)
    expected_backprop[np.arange(6), labels] -= 1
    np.testing.assert_allclose(outputs[3], expected_backprop, atol=1e-6)
    assert not outputs[5].any()


def test_adam_cast_and_philox_bit_exact_in_wasm(wasm_path, tmp_path):
    n = 37
    var, grad = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    m, v = (RNG.standard_normal(n) * 0.1).astype(np.float32), np.abs(RNG.standard_normal(n)).astype(np.float32)
    hyper = [np.float32(h) for h in (0.9 ** 3, 0.999 ** 3, 0.001, 0.9, 0.999, 1e-7)]
    floats = np.array([np.nan, 1e10, -2.7, 300.0, -1.0, 2.5], np.float32)
    generator = PhiloxGenerator(2**63 + 5, 12345)
    key = np.array(generator.key, np.uint32)
    counter = np.array([(generator.counter >> (32 * i)) & 0xFFFFFFFF for i in range(4)], np.uint32)
    buffers = [var, m, v, grad, floats, np.zeros(6, np.int32), np.zeros(6, np.uint8), key, counter,
               np.zeros(13, np.uint32), np.zeros(13, np.float32), np.zeros(5, np.float64)]
    calls = [["wf_apply_adam_f32", buffer(0), buffer(1), buffer(2), *[float(h) for h in hyper], buffer(3), 0,
              buffer(0), buffer(1), buffer(2), n],
             ["wf_cast", buffer(4), 1, buffer(5), 3, 6], ["wf_cast", buffer(4), 1, buffer(6), 4, 6],
             ["wf_philox_uint32", buffer(7), buffer(8), buffer(9), 13],
             ["wf_philox_uniform_f32", buffer(7), buffer(8), buffer(10), 13],
             ["wf_philox_uniform_f64", buffer(7), buffer(8), buffer(11), 5]]
    _, outputs = run(wasm_path, tmp_path, buffers, calls)
    expected = training_ops.adam_update(var, m, v, *[np.asarray(h) for h in hyper], grad)
    for got, want in zip(outputs[:3], expected, strict=True):
        assert np.array_equal(got, want)
    assert outputs[5].tolist() == [-2**31, -2**31, -2, 300, -1, 2]     # TensorFlow's results (see test_c_cast.py)
    assert outputs[6].tolist() == [0, 0, 254, 44, 255, 2]
    assert np.array_equal(outputs[9], generator.uint32s(13))
    assert np.array_equal(outputs[10], random_distributions.uniform(generator, 13, np.float32))
    assert np.array_equal(outputs[11], random_distributions.uniform(generator, 5, np.float64))


def test_the_module_imports_no_function_table(wasm_path):
    """The hand-written loaders (wasm_runner.js, the benchmarks' pages) give the module memory, a stack pointer
    and the memory/table bases only: an indirect call in any kernel (a pointer to a function) would make it
    import __indirect_function_table as well and fail to load there."""
    with open(wasm_path, "rb") as module:
        assert b"__indirect_function_table" not in module.read()
