"""tf.TensorArray in TF2 code: eagerly (a list of tensors, differentiated by the GradientTape) and inside a
wf.function (the TensorArray*V3 ops in a while_loop, differentiated through the While gradient); the two must
agree, and both with central differences of a NumPy reference. Also an array through a TF1 cond."""

import numpy as np

import webflow as wf

RNG = np.random.default_rng(11)
X = RNG.uniform(-1, 1, (4, 3))
W = RNG.uniform(-1, 1, (3, 3))


def loss(x, w):
    """h_t = tanh(x_t w + h_{t-1}), each h_t written to a TensorArray; sum(stack^2) + sum(h_last)."""
    def body(t, h, outputs):
        h = wf.tanh(wf.matmul(wf.reshape(x[t], [1, 3]), w) + h)
        return t + 1, h, outputs.write(t, wf.reshape(h, [3]))

    start = [wf.constant(0), wf.zeros([1, 3], wf.float64), wf.TensorArray(wf.float64, size=4)]
    _, h, outputs = wf.while_loop(lambda t, h, o: t < 4, body, start)
    return wf.reduce_sum(outputs.stack() ** 2) + wf.reduce_sum(h)


def np_loss(x, w):
    h, rows = np.zeros((1, 3)), []
    for t in range(4):
        h = np.tanh(x[t:t + 1] @ w + h)
        rows.append(h[0])
    return float((np.stack(rows) ** 2).sum() + h.sum())


def numeric_gradient(values, index):
    grad = np.zeros_like(values[index])
    for position in np.ndindex(grad.shape):
        plus, minus = [v.copy() for v in values], [v.copy() for v in values]
        plus[index][position] += 1e-6
        minus[index][position] -= 1e-6
        grad[position] = (np_loss(*plus) - np_loss(*minus)) / 2e-6
    return grad


def tape_gradients(function):
    x, w = wf.constant(X), wf.Variable(W)
    with wf.GradientTape() as tape:
        tape.watch(x)
        value = function(x, w)
    return float(value), [g.numpy() for g in tape.gradient(value, [x, w])]


def test_eager_and_function_match_numpy_and_central_differences():
    expected = [numeric_gradient([X, W], 0), numeric_gradient([X, W], 1)]
    for function in (loss, wf.function(loss)):
        value, grads = tape_gradients(function)
        assert abs(value - np_loss(X, W)) < 1e-12
        for got, want in zip(grads, expected):
            np.testing.assert_allclose(got, want, atol=1e-8, rtol=1e-6)


def test_eager_array_operations():
    ta = wf.TensorArray(wf.float32, size=0, dynamic_size=True, element_shape=[2])
    ta = ta.unstack(wf.constant([[1.0, 2.0], [3.0, 4.0]])).write(3, [5.0, 6.0])
    np.testing.assert_array_equal(ta.stack().numpy(), [[1, 2], [3, 4], [0, 0], [5, 6]])
    np.testing.assert_array_equal(ta.gather([3, 0]).numpy(), [[5, 6], [1, 2]])
    np.testing.assert_array_equal(ta.concat().numpy(), [1, 2, 3, 4, 0, 0, 5, 6])
    assert int(ta.size()) == 4
    split = wf.TensorArray(wf.float32, size=2, infer_shape=False).split([1.0, 2.0, 3.0], [2, 1])
    np.testing.assert_array_equal(split.read(0).numpy(), [1, 2])


def test_eager_dynamic_rnn_matches_graph_dynamic_rnn():
    """dynamic_rnn eagerly (Python while, list TensorArray) gives the numbers the graph gives."""
    import webflow.compat.v1 as tf1

    inputs = RNG.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    kernel = RNG.uniform(-0.5, 0.5, (9, 20)).astype(np.float32)

    def outputs_of(cell):
        return tf1.nn.dynamic_rnn(cell, inputs, sequence_length=[3, 1], dtype=tf1.float32)[0]

    cell = tf1.nn.rnn_cell.BasicLSTMCell(5)
    outputs_of(cell)
    cell._kernel.assign(kernel)
    eager_outputs = outputs_of(cell).numpy()
    with wf.Graph().as_default():
        cell = tf1.nn.rnn_cell.BasicLSTMCell(5)
        outputs = outputs_of(cell)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            sess.run(cell._kernel.assign(kernel))
            graph_outputs = sess.run(outputs)
    np.testing.assert_allclose(eager_outputs, graph_outputs, atol=1e-6)
    assert np.all(graph_outputs[1, 1:] == 0)


def test_array_through_cond_differentiates_the_taken_branch():
    """Graph mode: tf.gradients through a cond whose branches write the array (it travels as its flow)."""
    import webflow.compat.v1 as tf1

    with wf.Graph().as_default():
        x = tf1.placeholder(tf1.float64, [2])
        taken = tf1.placeholder(tf1.bool, [])
        ta = tf1.TensorArray(tf1.float64, 2)
        ta = tf1.cond(taken, lambda: ta.write(0, x * 2.0), lambda: ta.write(0, tf1.sin(x)))
        y = ta.write(1, x).stack()
        grad = tf1.gradients(tf1.reduce_sum(y * y), x)[0]
        value = np.array([0.5, 1.0])
        with tf1.Session() as sess:
            np.testing.assert_allclose(sess.run(grad, {x: value, taken: True}), 10 * value)
            np.testing.assert_allclose(sess.run(grad, {x: value, taken: False}), np.sin(2 * value) + 2 * value)
