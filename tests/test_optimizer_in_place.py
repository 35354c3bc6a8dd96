"""Optimizer updates that write over a variable's own array (TensorFlow's copy-on-write rule).

The C updates of big variables overwrite the stored arrays when nothing else holds them; anything a learner
holds (a fetched value, a view of one, another variable assigned from it, an eager tensor) must keep its
value. Oracle: the Adam formula written out in NumPy (float64 compared with float32 tolerance) and the
learner's own copies taken before the updates. The sizes pass the C kernels' 65,536-element threshold."""

from __future__ import annotations

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.backends.arrays.numpy_arrays import aligned_empty, owns_memory
from webflow.backends.c import library as c_library
from webflow.backends.c import optimizers as c_optimizers
from webflow.backends.c import parallel
from webflow.ops.training_ops import adam_update

SHAPE = (300, 700)   # 210,000 floats: the C update, split into slices on two threads
RATE = 0.01


pytestmark = pytest.mark.skipif(not c_library.available(), reason="no C kernels: the NumPy formula writes new arrays")


def _start() -> np.ndarray:
    return np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)


def _adam_reference(start: np.ndarray, steps: int) -> np.ndarray:
    """`steps` Adam updates of sum(w^2) (gradient 2w), TF's formula with its default hyper-parameters."""
    w, m, v = start.astype(np.float64), np.zeros(SHAPE), np.zeros(SHAPE)
    for t in range(1, steps + 1):
        w, m, v = adam_update(w, m, v, 0.9 ** t, 0.999 ** t, RATE, 0.9, 0.999, 1e-8, 2 * w)
    return w


def _graph(start: np.ndarray) -> tuple:
    w = tf.Variable(start)
    train = tf.train.AdamOptimizer(RATE).minimize(tf.reduce_sum(w * w))
    return w, train


def test_updates_in_place_when_nothing_else_holds_the_arrays() -> None:
    start = _start()
    with tf.Graph().as_default():
        w, train = _graph(start)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        before = {name: id(value) for name, value in sess._resources.items() if np.size(value) == start.size}
        for _ in range(3):
            sess.run(train)
        after = {name: id(sess._resources[name]) for name in before}
        np.testing.assert_allclose(sess.run(w), _adam_reference(start, 4), rtol=2e-5, atol=1e-6)
        sess.run(w.initializer)  # the initial value (a constant in the graph) was never written over
        np.testing.assert_array_equal(sess.run(w), start)
    assert len(before) == 3 and after == before  # the variable and both slots kept their arrays


def test_values_a_learner_holds_never_change() -> None:
    start = _start()
    with tf.Graph().as_default():
        w, train = _graph(start)
        copy_of_w = tf.Variable(np.zeros(SHAPE, np.float32))
        assign = copy_of_w.assign(w)
        flat = tf.reshape(w, [-1])  # a view of the variable's array in NumPy
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        fetched, fetched_flat = sess.run([w, flat])
        kept, kept_flat = fetched.copy(), fetched_flat.copy()
        sess.run(assign)
        for _ in range(3):
            sess.run(train)
        np.testing.assert_array_equal(fetched, kept)
        np.testing.assert_array_equal(fetched_flat, kept_flat)
        np.testing.assert_array_equal(sess.run(copy_of_w), kept)
        np.testing.assert_allclose(sess.run(w), _adam_reference(start, 4), rtol=2e-5, atol=1e-6)


def test_eager_tensor_read_from_a_variable_keeps_its_value() -> None:
    import webflow as wf

    start = _start()
    w = wf.Variable(start)
    optimizer = tf.train.AdamOptimizer(RATE)
    optimizer.minimize(lambda: wf.reduce_sum(w * w), var_list=[w])
    held = w.read_value()
    kept = held.numpy().copy()
    for _ in range(3):
        optimizer.minimize(lambda: wf.reduce_sum(w * w), var_list=[w])
    np.testing.assert_array_equal(held.numpy(), kept)
    np.testing.assert_allclose(w.numpy(), _adam_reference(start, 4), rtol=2e-5, atol=1e-6)
    del held
    address = id(w._value)  # (holding the array itself would make the update copy it)
    optimizer.minimize(lambda: wf.reduce_sum(w * w), var_list=[w])
    assert id(w._value) == address  # nothing else held it: updated in place


def _aligned_copy(array: np.ndarray) -> np.ndarray:
    copy = aligned_empty(array.shape, array.dtype)
    copy[...] = array
    return copy


@pytest.mark.parametrize("count", [1, (1 << 18) - 1, 3 * (1 << 17) + 7])
def test_sliced_update_equals_one_pass(count: int) -> None:
    """Slices on two threads give the very bits of one pass (the updates are elementwise)."""
    rng = np.random.default_rng(count)
    var, m, grad = (rng.standard_normal(count).astype(np.float32) for _ in range(3))
    v = rng.random(count).astype(np.float32)
    scalars = (np.float32(0.9 ** 3), np.float32(0.999 ** 3), np.float32(1e-3), np.float32(0.9),
               np.float32(0.999), np.float32(1e-8))
    expected = adam_update(var, m, v, *scalars, grad)
    before = parallel.threads()
    parallel.set_threads(2)
    try:
        sliced = c_optimizers.adam(var, m, v, *scalars, grad)
        in_place = [_aligned_copy(a) for a in (var, m, v)]
        c_optimizers.adam(*in_place, *scalars, grad, into=tuple(in_place))
    finally:
        parallel.set_threads(before)
    for got, overwritten, want in zip(sliced, in_place, expected):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(overwritten, want)


def test_a_state_off_a_64_byte_boundary_moves_once_then_stays() -> None:
    """A variable whose first value NumPy made 16 bytes off a 64-byte boundary gets a fresh, aligned array from
    its first C update (the convolutions read filters as whole vectors), and is updated in place from then on."""
    block = np.empty(np.prod(SHAPE) * 4 + 128, np.uint8)
    misaligned = np.ndarray(SHAPE, np.float32, block, -block.ctypes.data % 64 + 16)
    misaligned[...] = _start()
    assert misaligned.ctypes.data % 64 == 16
    var, m, grad = misaligned, np.zeros(SHAPE, np.float32), np.ones(SHAPE, np.float32)
    v = np.zeros(SHAPE, np.float32)
    scalars = tuple(np.float32(s) for s in (0.9, 0.999, 1e-3, 0.9, 0.999, 1e-8))
    expected = adam_update(var.copy(), m, v, *scalars, grad)
    new_var, new_m, new_v = c_optimizers.adam(var, m, v, *scalars, grad, into=(var, m, v))
    assert new_var is not var and new_var.ctypes.data % 64 == 0 and owns_memory(new_var)
    np.testing.assert_array_equal(new_var, expected[0])
    np.testing.assert_array_equal(misaligned, _start())  # not written: it may be what a learner holds
    again = c_optimizers.adam(new_var, new_m, new_v, *scalars, grad, into=(new_var, new_m, new_v))
    assert again[0] is new_var  # aligned now: written over


def test_aligned_arrays_are_owned_until_a_view_exists() -> None:
    for shape, dtype in [((300, 700), np.float32), (5000, np.float64), ((7, 11, 13, 17), np.int32)]:
        array = aligned_empty(shape, dtype)
        assert array.ctypes.data % 64 == 0 and array.dtype == dtype and array.flags.c_contiguous
        assert array.shape == (shape if isinstance(shape, tuple) else (shape,))
        assert owns_memory(array)
        view = array.reshape(-1)[1:]
        assert not owns_memory(array) and not owns_memory(view)
        del view
        assert owns_memory(array)
    small = aligned_empty((3, 4), np.float32)  # below ALIGNED_MIN_BYTES: a plain array
    assert small.base is None and owns_memory(small)
    assert not owns_memory(np.ones(10)[2:])
