# ruff: noqa  (a public example program, kept in the notebook's own style)
"""Logistic regression on MNIST with TensorFlow 2.

Re-creates TensorFlow-Examples' tensorflow_v2 notebook logistic_regression.ipynb as a stand-alone program:
a softmax over W x + b, hand-written cross-entropy, tf.optimizers.SGD, batches from tf.data.
"""

from __future__ import absolute_import, division, print_function

import tensorflow as tf
import numpy as np

# MNIST: 10 classes, 28 * 28 = 784 pixels per image.
num_classes = 10
num_features = 784

# Training parameters.
learning_rate = 0.01
training_steps = 1000
batch_size = 256
display_step = 50

# MNIST as float32 vectors in [0, 1].
from tensorflow.keras.datasets import mnist
(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = np.array(x_train, np.float32), np.array(x_test, np.float32)
x_train, x_test = x_train.reshape([-1, num_features]), x_test.reshape([-1, num_features])
x_train, x_test = x_train / 255., x_test / 255.

# Shuffled batches, repeated for ever.
train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_data = train_data.repeat().shuffle(5000).batch(batch_size).prefetch(1)

# Weights [784, 10] and biases [10].
W = tf.Variable(tf.ones([num_features, num_classes]), name="weight")
b = tf.Variable(tf.zeros([num_classes]), name="bias")


# Class probabilities: softmax(x W + b).
def logistic_regression(x):
    return tf.nn.softmax(tf.matmul(x, W) + b)


# Cross-entropy of the predicted probabilities against one-hot labels.
def cross_entropy(y_pred, y_true):
    y_true = tf.one_hot(y_true, depth=num_classes)
    # keep log() away from 0
    y_pred = tf.clip_by_value(y_pred, 1e-9, 1.)
    return tf.reduce_mean(-tf.reduce_sum(y_true * tf.math.log(y_pred), 1))


# Fraction of images whose most probable class is the label.
def accuracy(y_pred, y_true):
    correct_prediction = tf.equal(tf.argmax(y_pred, 1), tf.cast(y_true, tf.int64))
    return tf.reduce_mean(tf.cast(correct_prediction, tf.float32))


optimizer = tf.optimizers.SGD(learning_rate)


def run_optimization(x, y):
    with tf.GradientTape() as g:
        pred = logistic_regression(x)
        loss = cross_entropy(pred, y)
    gradients = g.gradient(loss, [W, b])
    optimizer.apply_gradients(zip(gradients, [W, b]))


for step, (batch_x, batch_y) in enumerate(train_data.take(training_steps), 1):
    run_optimization(batch_x, batch_y)
    if step % display_step == 0:
        pred = logistic_regression(batch_x)
        loss = cross_entropy(pred, batch_y)
        acc = accuracy(pred, batch_y)
        print("step: %i, loss: %f, accuracy: %f" % (step, loss, acc))

# Accuracy on the 10,000 test images.
pred = logistic_regression(x_test)
print("Test Accuracy: %f" % accuracy(pred, y_test))
