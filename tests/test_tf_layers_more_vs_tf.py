"""The TF1 layer functions beyond dense/conv2d (`tf.layers.conv1d`, `conv2d_transpose`, `separable_conv2d`,
`max_pooling1d`, `average_pooling1d`) under webflow.compat.v1 and real TF1 (tensorflow.compat.v1 in the oracle
venv): on the same weights, the variable names, the nodes' names, the static output shape, the output and the
gradients of sum(output ** 2) with respect to the input and every trainable variable agree to float32 precision."""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# name: (input shape, the layer call on the placeholder `x`)
CALLS = {
    "conv1d": ((2, 7, 3), "tf.layers.conv1d(x, 4, 3, activation=tf.nn.relu)"),
    "conv1d_same_dilated": ((2, 9, 2), "tf.layers.conv1d(x, 3, 2, padding='same', dilation_rate=2, name='c1')"),
    "conv1d_strided": ((2, 9, 2), "tf.layers.conv1d(x, 3, 3, strides=2)"),
    "conv2d_transpose": ((2, 4, 5, 3), "tf.layers.conv2d_transpose(x, 2, 3)"),
    "conv2d_transpose_same": ((2, 3, 4, 2), "tf.layers.conv2d_transpose(x, 3, (3, 2), strides=2, padding='same', "
                                            "activation=tf.nn.tanh)"),
    "conv2d_transpose_valid_strided": ((1, 3, 3, 2), "tf.layers.conv2d_transpose(x, 2, 2, strides=3, "
                                                     "use_bias=False)"),
    "separable_conv2d": ((2, 6, 5, 3), "tf.layers.separable_conv2d(x, 4, 3, depth_multiplier=2)"),
    "separable_conv2d_same": ((2, 7, 6, 2), "tf.layers.separable_conv2d(x, 2, 3, strides=2, padding='same', "
                                            "name='sep')"),
    "max_pooling1d": ((2, 7, 3), "tf.layers.max_pooling1d(x, 2, 2)"),
    "average_pooling1d": ((2, 7, 3), "tf.layers.average_pooling1d(x, 3, 2, padding='same')"),
    "two_layers": ((2, 5, 2), "tf.layers.conv1d(tf.layers.conv1d(x, 3, 2), 2, 2)"),
    "classes": ((2, 4, 4, 2), "tf.layers.Conv2DTranspose(2, 2, strides=2, name='up')(tf.layers.SeparableConv2D("
                              "3, 2)(x))"),
}

PROGRAM = """
rng = np.random.RandomState(0)
x_value = rng.uniform(-1, 1, {shape}).astype(np.float32)
x = tf.placeholder(tf.float32, (None,) + {shape}[1:])
y = {call}
forward_ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations() if op.type in
               ("Conv2D", "Conv2DBackpropInput", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "BiasAdd")]
variables = tf.trainable_variables()
grads = tf.gradients(tf.reduce_sum(y * y), [x] + variables)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for v in variables:
        sess.run(tf.assign(v, rng.uniform(-1, 1, v.shape.as_list()).astype(np.float32)))
    output, gradients = sess.run([y, grads], {{x: x_value}})
result = {{"forward_ops": forward_ops, "names": [v.name for v in variables], "shape": str(y.shape.as_list()),
          "output": output, "grads": gradients}}
"""


@pytest.fixture(scope="module")
def results() -> dict:
    programs = {name: PROGRAM.format(shape=shape, call=call) for name, (shape, call) in CALLS.items()}
    return {"ours": {name: run_webflow(source) for name, source in programs.items()},
            "theirs": run_tensorflow(programs)}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_layer_function_matches_tf1(results: dict, name: str) -> None:
    ours, theirs = results["ours"][name], results["theirs"][name]
    assert ours["names"] == theirs["names"]
    assert ours["forward_ops"] == theirs["forward_ops"]
    assert ours["shape"] == theirs["shape"]
    np.testing.assert_allclose(ours["output"], theirs["output"], rtol=2e-5, atol=2e-6)
    assert len(ours["grads"]) == len(theirs["grads"])
    for index, (mine, other) in enumerate(zip(ours["grads"], theirs["grads"])):
        np.testing.assert_allclose(mine, other, rtol=2e-5, atol=2e-5, err_msg=f"gradient {index}")
