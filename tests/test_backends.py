"""Kernel backends: the C kernels wired into the registry, the selection policy, overrides and fallbacks.

The oracle for the C backend is the NumPy backend (the reference kernels), which the op table checks
against NumPy formulas and numerical gradients; here the same programs run on both and must agree.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf
from webflow.backends import selection
from webflow.backends.c import library as c_library
from webflow.framework.errors import InvalidArgumentError
from webflow.ops import nn_ops
from webflow.ops.registry import OPS

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_c = pytest.mark.skipif(not c_library.available(),
                             reason=f"C kernels unavailable (no compiler?): {c_library.unavailable_reason()}")


@pytest.fixture(autouse=True)
def _restore_backend():
    before = selection.get_backend()
    yield
    selection.set_backend(before)


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": REPO, "OPENBLAS_NUM_THREADS": "1", **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment,
                          cwd=REPO, timeout=600)


def _on(backend: str, program):
    selection.set_backend(backend)
    try:
        return program()
    finally:
        selection.set_backend("auto")


# --- (a) the whole op table on the native backend -------------------------------------------------
@needs_c
def test_op_table_passes_with_the_native_backend_forced():
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/ops"],
                          capture_output=True, text=True, cwd=REPO, timeout=900,
                          env={**os.environ, "PYTHONPATH": REPO, "WEBFLOW_BACKEND": "native",
                               "OPENBLAS_NUM_THREADS": "1"})
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:]
    assert " passed" in summary and "failed" not in summary


# --- (b) training on C == training on NumPy --------------------------------------------------------
def _cnn_training(steps: int = 3) -> list:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        rng = np.random.default_rng(0)
        images = rng.standard_normal((8, 12, 12, 1)).astype(np.float32)
        labels = rng.integers(0, 10, 8)
        x = tf.placeholder(tf.float32, [None, 12, 12, 1])
        y = tf.placeholder(tf.int64, [None])
        h = tf.layers.conv2d(x, 8, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.max_pooling2d(h, 2, 2)
        h = tf.layers.conv2d(h, 16, 3, padding="same", activation=tf.nn.relu)
        h = tf.layers.average_pooling2d(h, 2, 2)
        logits = tf.layers.dense(tf.reshape(h, [-1, 3 * 3 * 16]), 10)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train, {x: images, y: labels})
            return sess.run(tf.trainable_variables() + [loss], {x: images, y: labels})


def _mlp_training(steps: int = 3) -> list:
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(3)
        rng = np.random.default_rng(1)
        inputs = rng.standard_normal((16, 20)).astype(np.float32)
        targets = np.eye(5, dtype=np.float32)[rng.integers(0, 5, 16)]
        h = tf.layers.dense(tf.constant(inputs), 32, activation=tf.nn.relu)
        h = tf.layers.dense(h, 32, activation=tf.nn.tanh)
        logits = tf.layers.dense(h, 5)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=targets, logits=logits))
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            return sess.run(tf.trainable_variables() + [loss])


@needs_c
@pytest.mark.parametrize("program", [_cnn_training, _mlp_training], ids=["cnn", "mlp"])
def test_adam_training_on_c_equals_numpy(program):
    reference, native = _on("numpy", program), _on("native", program)
    assert len(reference) == len(native)
    for ref, got in zip(reference, native):
        np.testing.assert_allclose(got, ref, rtol=2e-4, atol=2e-5)


@needs_c
def test_eager_gradients_on_c_equal_numpy():
    rng = np.random.default_rng(2)
    images = rng.standard_normal((4, 10, 10, 3)).astype(np.float32)
    filters = rng.standard_normal((3, 3, 3, 6)).astype(np.float32)

    def gradients():
        w = wf.Variable(filters)
        with wf.GradientTape() as tape:
            h = wf.nn.max_pool2d(wf.nn.relu(wf.nn.conv2d(images, w, 1, "SAME")), 2, 2, "VALID")
            loss = wf.reduce_sum(wf.nn.log_softmax(wf.reshape(h, [4, -1])))
        return tape.gradient(loss, w).numpy()

    np.testing.assert_allclose(_on("native", gradients), _on("numpy", gradients), rtol=1e-4, atol=1e-4)


# --- random ops: the same bits on every backend ---------------------------------------------------------
@needs_c
@pytest.mark.parametrize("dtype", [wf.float32, wf.float64])
def test_random_uniform_is_bit_exact_on_c(dtype):
    def draws():
        graph = tf.Graph()
        with graph.as_default():
            u = tf.random_uniform([3, 7], dtype=dtype, seed=11)
            with tf.Session() as sess:
                return [sess.run(u), sess.run(u)]

    reference, native = _on("numpy", draws), _on("native", draws)
    for ref, got in zip(reference, native):
        assert ref.dtype == got.dtype and np.array_equal(ref, got)
    assert OPS["RandomUniform"].kernels.get(selection.C_BACKEND) is not None


# --- C error codes become TensorFlow's errors --------------------------------------------------------------
@needs_c
def test_bad_label_and_bad_index_raise_the_numpy_kernels_errors_on_c():
    logits = np.zeros((3, 4), np.float32)

    def failures():
        messages = []
        with pytest.raises(InvalidArgumentError) as bad_label:
            wf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 7, 1]), logits=logits)
        messages.append(str(bad_label.value))
        with pytest.raises(InvalidArgumentError) as bad_index:
            wf.gather(np.arange(6.0).reshape(2, 3), np.array([[0, 1], [5, 0]]), axis=1)
        messages.append(str(bad_index.value))
        return messages

    reference, native = _on("numpy", failures), _on("native", failures)
    assert native == reference
    assert "Received a label value of 7 which is outside the valid range of [0, 4)" in native[0]
    assert "indices[1,0] = 5 is not in [0, 3)" in native[1]


# --- (c) selection policy, overrides, log_device_placement ---------------------------------------------------
def test_set_backend_and_get_backend():
    assert selection.get_backend() in ("auto",) + selection.BACKENDS
    wf.config.set_backend("numpy")
    assert wf.config.get_backend() == "numpy" and tf.config.get_backend() == "numpy"
    assert OPS["Softmax"].kernel is OPS["Softmax"].kernels["numpy"]
    wf.config.set_backend("auto")
    assert wf.config.get_backend() == "auto"
    with pytest.raises(ValueError, match="Unknown backend 'cuda'"):
        wf.config.set_backend("cuda")


@needs_c
def test_forcing_native_gives_every_op_with_a_c_kernel_its_c_kernel():
    wf.config.set_backend("native")
    wf.nn.softmax([[1.0, 2.0]])  # the library is checked on first use
    for op_type in ("Softmax", "AddV2", "MatMul", "Conv2D", "ApplyAdam", "RandomUniform"):
        assert OPS[op_type].kernel is OPS[op_type].kernels["native"], op_type
    assert OPS["Identity"].kernel is OPS["Identity"].kernels["numpy"]  # no C kernel: NumPy


def _node_backend(op_type_and_shape):
    graph = tf.Graph()
    with graph.as_default():
        op_type, shape = op_type_and_shape
        x = tf.placeholder(tf.float32, shape)
        node = {"ReluGrad": lambda: nn_ops.relu_grad(x, x), "MatMul": lambda: tf.matmul(x, x),
                "Softmax": lambda: tf.nn.softmax(x)}[op_type]()
        return selection.node_kernel(node.op)[1]


def _matmul_backend(a_shape, b_shape, **transposes):
    graph = tf.Graph()
    with graph.as_default():
        product = tf.matmul(tf.placeholder(tf.float32, a_shape), tf.placeholder(tf.float32, b_shape), **transposes)
        return selection.node_kernel(product.op)[1]


@needs_c
def test_automatic_policy_by_op_and_static_size():
    wf.config.set_backend("auto")
    assert _node_backend(("ReluGrad", [4, 4])) == "numpy"          # small: a ctypes call costs more
    assert _node_backend(("ReluGrad", [256, 256])) == "native"     # large: one C pass beats np.where
    assert _node_backend(("ReluGrad", [None, 256])) == "native"    # unknown size counts as large
    from webflow.backends.c.gemm_strips import wide_build

    # OpenBLAS wins on square products, but for gemm_strips.c's 64-byte tiles in the avx512 build
    wide = "native" if wide_build() else "numpy"
    assert _node_backend(("MatMul", [512, 512])) == wide
    assert _matmul_backend([50, 3136], [3136, 1024]) == "native"   # a thin side (gemm_thin.c): a dense layer
    assert _matmul_backend([50, 3136], [50, 1024], transpose_a=True) == "native"  # ... and its weight gradient
    assert _matmul_backend([50, 1024], [3136, 1024], transpose_b=True) == "native"  # ... and its input gradient
    assert _matmul_backend([129, 3136], [3136, 1024]) == wide     # too many rows for gemm_thin.c
    wf.config.set_backend("native")
    assert _node_backend(("MatMul", [2, 2])) == "native"
    wf.config.set_backend("numpy")
    assert _node_backend(("ReluGrad", [256, 256])) == "numpy"


@needs_c
def test_eager_choice_follows_the_size_per_call():
    wf.config.set_backend("auto")
    small, large = np.ones((2, 2), np.float32), np.ones((128, 128), np.float32)
    nn_ops.relu_grad(small, small)  # resolves the library
    chooser = OPS["ReluGrad"].chooser
    assert chooser is not None
    assert chooser([small, small]) is OPS["ReluGrad"].kernels["numpy"]
    assert chooser([large, large]) is OPS["ReluGrad"].kernels["native"]


@needs_c
def test_log_device_placement_and_run_metadata_name_the_backend(capsys):
    wf.config.set_backend("native")
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(np.ones((2, 3), np.float32), name="x")
        y = tf.nn.softmax(x, name="y")
        z = tf.identity(y, name="z")
        metadata = tf.RunMetadata()
        with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
            sess.run(z, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    lines = capsys.readouterr().err.strip().splitlines()
    device = "/job:localhost/replica:0/task:0/device:CPU:0"
    assert f"x: (Const): {device} [backend: numpy]" in lines
    assert f"y: (Softmax): {device} [backend: native]" in lines
    assert f"z: (Identity): {device} [backend: numpy]" in lines
    stats = {s.node_name: s.backend for s in metadata.step_stats.dev_stats}
    assert stats["y"] == "native" and stats["z"] == "numpy"


def test_environment_variable_forces_the_backend():
    done = _run("import webflow as wf; print(wf.config.get_backend())", WEBFLOW_BACKEND="numpy")
    assert done.stdout.strip() == "numpy", done.stderr


def test_first_eager_ops_from_several_threads_at_once():
    # the first op to run resolves the backends (loads the C library); ops starting meanwhile in other threads must
    # wait for it (they once found it half done and recursed without end)
    code = """
import threading
import numpy as np, webflow as wf
a, b = np.random.rand(32, 512).astype("f4"), np.random.rand(512, 160).astype("f4")
start, errors = threading.Barrier(8), []
def first_op():
    start.wait()
    try:
        errors.append(float(np.abs(wf.matmul(a, b).numpy() - a @ b).max()) > 1e-3)
    except Exception as error:
        errors.append(repr(error)[:200])
threads = [threading.Thread(target=first_op) for _ in range(8)]
[thread.start() for thread in threads]
[thread.join() for thread in threads]
print(errors)
"""
    done = _run(code)
    assert done.returncode == 0 and done.stdout.strip() == str([False] * 8), done.stdout + done.stderr[-2000:]


# --- (d) no library: NumPy, said once --------------------------------------------------------------------------
def test_disabled_c_falls_back_to_numpy_and_says_so_once():
    code = """
import numpy as np, webflow as wf, webflow.compat.v1 as tf
from webflow.ops.registry import OPS
a = wf.nn.softmax([[1.0, 2.0, 3.0]]).numpy()
b = wf.nn.softmax([[1.0, 2.0, 3.0]]).numpy()
e = np.exp([1.0, 2.0, 3.0]); print(np.allclose(a, e / e.sum()), np.array_equal(a, b))
print(OPS["Softmax"].kernel is OPS["Softmax"].kernels["numpy"])
g = tf.Graph()
with g.as_default():
    y = tf.nn.softmax(tf.constant([[1.0, 2.0]]), name="y")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as s:
        s.run(y)
"""
    done = _run(code, WEBFLOW_DISABLE_C="1", WEBFLOW_BACKEND="native")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]
    assert done.stderr.count("C kernels disabled by WEBFLOW_DISABLE_C; using the NumPy kernels") == 1
    assert "y: (Softmax): /job:localhost/replica:0/task:0/device:CPU:0 [backend: numpy]" in done.stderr


def test_wasm_backend_outside_pyodide_falls_back_to_numpy():
    if c_library.IN_PYODIDE:
        pytest.skip("inside Pyodide wasm is the C backend")
    done = _run("import webflow as wf; wf.config.set_backend('wasm'); "
                "from webflow.ops.registry import OPS; wf.nn.softmax([[1.0]]); "
                "print(OPS['Softmax'].kernel is OPS['Softmax'].kernels['numpy'])")
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    assert "the wasm backend does not run here" in done.stderr
