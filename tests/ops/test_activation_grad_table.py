"""Op table rows for TanhGrad and SigmoidGrad (ops/unary_math_ops.py), and stories: their bits on the C and NumPy
kernels, which tf.tanh / tf.sigmoid gradients use them, and the bits against real TensorFlow's kernels.

References are NumPy in float64 (rounded to the input dtype), independent of the kernels; the rows check the ops'
own gradients (the second derivatives of tanh and sigmoid) against numerical ones (tests/op_harness.py).
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow

import webflow as wf
import webflow.compat.v1 as tf
from webflow.backends.c import activation_grads as c_activation_grads
from webflow.backends.c import library as c_library
from webflow.ops import unary_math_ops
from webflow.ops.registry import apply_op

rng = np.random.default_rng(26)


def raw(op_type):
    return lambda *inputs: apply_op(op_type, list(inputs))


def in_dtype_of_first(function):
    def reference(y, dy):
        return np.asarray(function(np.float64(y), np.float64(dy)), np.asarray(y).dtype)
    return reference


def tanh_output(*shape, dtype=np.float32):
    return np.tanh(rng.standard_normal(shape)).astype(dtype)


def sigmoid_output(*shape, dtype=np.float32):
    return (1 / (1 + np.exp(-2 * rng.standard_normal(shape)))).astype(dtype)


def upstream(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


np_tanh_grad = in_dtype_of_first(lambda y, dy: dy * (1 - y * y))
np_sigmoid_grad = in_dtype_of_first(lambda y, dy: dy * y * (1 - y))

CASES = [
    OpCase("tanh_grad", raw("TanhGrad"), [tanh_output(3, 4), upstream(3, 4)], np_tanh_grad),
    OpCase("tanh_grad_float64_odd_size", raw("TanhGrad"), [tanh_output(2, 13, dtype=np.float64),
                                                           upstream(2, 13, dtype=np.float64)], np_tanh_grad),
    OpCase("tanh_grad_scalar", raw("TanhGrad"), [np.float32(0.5), np.float32(-2.0)], np_tanh_grad),
    OpCase("tanh_grad_lstm_gate", raw("TanhGrad"), [tanh_output(20, 200), upstream(20, 200)], np_tanh_grad,
           grad=False),   # an LSTM gate's size
    OpCase("sigmoid_grad", raw("SigmoidGrad"), [sigmoid_output(3, 4), upstream(3, 4)], np_sigmoid_grad),
    OpCase("sigmoid_grad_float64_odd_size", raw("SigmoidGrad"), [sigmoid_output(2, 13, dtype=np.float64),
                                                                 upstream(2, 13, dtype=np.float64)], np_sigmoid_grad),
    OpCase("sigmoid_grad_empty", raw("SigmoidGrad"), [np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)],
           np_sigmoid_grad, grad=False),
    OpCase("sigmoid_grad_lstm_gate_with_tail", raw("SigmoidGrad"), [sigmoid_output(1027), upstream(1027)],
           np_sigmoid_grad, grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


# --- stories -----------------------------------------------------------------------------------------------
needs_c = pytest.mark.skipif(not c_library.available(), reason="no C library")


@needs_c
@pytest.mark.parametrize("size", [1, 7, 8, 4000, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_c_kernels_give_the_numpy_kernels_bits(size, dtype):
    y, dy = tanh_output(size, dtype=dtype), upstream(size, dtype=dtype)
    assert np.array_equal(c_activation_grads.tanh_grad.adapter(y, dy), unary_math_ops.tanh_grad_kernel(y, dy))
    y = sigmoid_output(size, dtype=dtype)
    assert np.array_equal(c_activation_grads.sigmoid_grad.adapter(y, dy), unary_math_ops.sigmoid_grad_kernel(y, dy))


def test_sigmoid_grad_orders_its_tail_as_eigen_does():
    """Whole 8-float packets dy * (y * (1 - y)), the 3 elements after them (dy * y) * (1 - y)."""
    y, dy = sigmoid_output(11), upstream(11)
    got = unary_math_ops.sigmoid_grad_kernel(y, dy)
    one = np.float32(1)
    assert np.array_equal(got[:8], dy[:8] * (y[:8] * (one - y[:8])))
    assert np.array_equal(got[8:], dy[8:] * y[8:] * (one - y[8:]))


def test_mismatched_shapes_are_tensorflows_run_time_error():
    message = r"Inputs to operation TanhGrad of type TanhGrad must have the same size and shape.  Input 0: \[2\] != "
    with pytest.raises(wf.errors.InvalidArgumentError, match=message + r"input 1: \[3\]"):
        unary_math_ops.tanh_grad_kernel(np.zeros(2, np.float32), np.zeros(3, np.float32))
    with pytest.raises(ValueError):
        with tf.Graph().as_default():
            unary_math_ops.sigmoid_grad(tf.zeros([2]), tf.zeros([3]))


def test_tanh_and_sigmoid_gradients_are_one_grad_op_each():
    """What the LSTM's backward pass builds per gate: one TanhGrad / SigmoidGrad, no Mul/Sub chains."""
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [20, 200])
        tf.gradients(tf.reduce_sum(tf.tanh(x) + tf.sigmoid(x)), x)
        grad_ops = [op.type for op in graph.get_operations() if "_grad/" in op.name and
                    ("Tanh" in op.name or "Sigmoid" in op.name)]
    assert sorted(grad_ops) == ["SigmoidGrad", "TanhGrad"]


BITS_PROGRAM = """
rng = np.random.RandomState(5)
y = rng.uniform(-1, 1, 4101).astype(np.float32)
dy = rng.normal(size=4101).astype(np.float32)
with tf.Session() as sess:
    result = [v.tolist() for v in sess.run([tf.raw_ops.TanhGrad(y=y, dy=dy), tf.raw_ops.SigmoidGrad(y=y, dy=dy)])]
"""


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_bits_are_tensorflows():
    """TensorFlow's own kernels (Eigen packets + scalar tail) on 4101 floats: the NumPy and C kernels agree bit
    for bit (4101 = 512 packets of 8 and a tail of 5)."""
    tanh_tf, sigmoid_tf = (np.asarray(v, np.float32) for v in run_tensorflow({"bits": BITS_PROGRAM})["bits"])
    rng_ = np.random.RandomState(5)
    y, dy = rng_.uniform(-1, 1, 4101).astype(np.float32), rng_.normal(size=4101).astype(np.float32)
    assert np.array_equal(unary_math_ops.tanh_grad_kernel(y, dy), tanh_tf)
    assert np.array_equal(unary_math_ops.sigmoid_grad_kernel(y, dy), sigmoid_tf)
    if c_library.available():
        assert np.array_equal(c_activation_grads.tanh_grad.adapter(y, dy), tanh_tf)
        assert np.array_equal(c_activation_grads.sigmoid_grad.adapter(y, dy), sigmoid_tf)


def test_portable_kernels_match_the_numpy_kernels():
    """The no-NumPy, no-C kernels (backends/portable/activation_grad_kernels.py) on CArrays: one rounding per element
    instead of three, so within an ulp or two of the NumPy kernels."""
    from webflow.backends.arrays import carray
    from webflow.backends.portable import activation_grad_kernels

    y, dy = tanh_output(2, 9), upstream(2, 9)
    got = activation_grad_kernels.tanh_grad(carray.from_value(y.tolist()), carray.from_value(dy.tolist()))
    assert got.shape == (2, 9)
    np.testing.assert_allclose(np.asarray(got.data, np.float32).reshape(2, 9), unary_math_ops.tanh_grad_kernel(y, dy),
                               rtol=3e-7, atol=1e-7)
    y = sigmoid_output(2, 9)
    got = activation_grad_kernels.sigmoid_grad(carray.from_value(y.tolist()), carray.from_value(dy.tolist()))
    np.testing.assert_allclose(np.asarray(got.data, np.float32).reshape(2, 9),
                               unary_math_ops.sigmoid_grad_kernel(y, dy), rtol=3e-7, atol=1e-7)


def test_a_library_built_before_these_kernels_falls_back(monkeypatch):
    """A prebuilt library without wf_tanh_grad_* (a shipped wasm module not rebuilt yet): the adapter says
    Unsupported, so the op runs its other kernel instead of failing."""
    from webflow.backends.c import adapters
    from webflow.backends.c.adapters import Unsupported

    def missing(name):
        raise AttributeError(name)

    monkeypatch.setattr(adapters.c_library, "function", missing)
    with pytest.raises(Unsupported, match="not in this build"):
        c_activation_grads.tanh_grad.adapter(np.ones(3, np.float32), np.ones(3, np.float32))
