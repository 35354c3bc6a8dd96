# ruff: noqa  (a public example program, kept in the notebook's own style)
"""Linear regression with TensorFlow 2: a weight and a bias fitted by gradient descent.

Re-creates TensorFlow-Examples' tensorflow_v2 notebook linear_regression.ipynb as a stand-alone program:
low-level TF2 (tf.Variable, tf.GradientTape, tf.optimizers.SGD) on 17 (x, y) points.
"""

from __future__ import absolute_import, division, print_function

import tensorflow as tf
import numpy as np
rng = np.random

# Parameters.
learning_rate = 0.01
training_steps = 1000
display_step = 50

# The data: 17 points roughly on a line.
X = np.array([3.3, 4.4, 5.5, 6.71, 6.93, 4.168, 9.779, 6.182, 7.59, 2.167,
              7.042, 10.791, 5.313, 7.997, 5.654, 9.27, 3.1])
Y = np.array([1.7, 2.76, 2.09, 3.19, 1.694, 1.573, 3.366, 2.596, 2.53, 1.221,
              2.827, 3.465, 1.65, 2.904, 2.42, 2.94, 1.3])
n_samples = X.shape[0]

# Weight and bias, started at random values.
W = tf.Variable(rng.randn(), name="weight")
b = tf.Variable(rng.randn(), name="bias")


# The model: W * x + b.
def linear_regression(x):
    return W * x + b


# Half the mean squared error.
def mean_square(y_pred, y_true):
    return tf.reduce_sum(tf.pow(y_pred - y_true, 2)) / (2 * n_samples)


# Plain stochastic gradient descent.
optimizer = tf.optimizers.SGD(learning_rate)


# One step: the loss under a tape, its gradients, an update of W and b.
def run_optimization():
    with tf.GradientTape() as g:
        pred = linear_regression(X)
        loss = mean_square(pred, Y)
    gradients = g.gradient(loss, [W, b])
    optimizer.apply_gradients(zip(gradients, [W, b]))


for step in range(1, training_steps + 1):
    run_optimization()
    if step % display_step == 0:
        pred = linear_regression(X)
        loss = mean_square(pred, Y)
        print("step: %i, loss: %f, W: %f, b: %f" % (step, loss, W.numpy(), b.numpy()))
