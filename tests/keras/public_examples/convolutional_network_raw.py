# ruff: noqa  (a public example program, kept in the notebook's own style)
"""A convolutional network on MNIST from raw ops: tf.nn.conv2d, tf.nn.max_pool, weights in tf.Variables.

Re-creates TensorFlow-Examples' tensorflow_v2 notebook convolutional_network_raw.ipynb as a stand-alone program:
weights drawn by one unseeded `tf.initializers.RandomNormal()` (tf_keras picks its seed once: every call draws
from the same seed), a softmax output with a hand-written cross-entropy summed over the batch, Adam.
"""

from __future__ import absolute_import, division, print_function

import tensorflow as tf
import numpy as np

num_classes = 10

# Training parameters.
learning_rate = 0.001
training_steps = 200
batch_size = 128
display_step = 10

# Network parameters.
conv1_filters = 32
conv2_filters = 64
fc1_units = 1024

from tensorflow.keras.datasets import mnist
(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = np.array(x_train, np.float32), np.array(x_test, np.float32)
x_train, x_test = x_train / 255., x_test / 255.

train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_data = train_data.repeat().shuffle(5000).batch(batch_size).prefetch(1)


# A convolution with bias and relu; a k x k max pooling.
def conv2d(x, W, b, strides=1):
    x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding='SAME')
    x = tf.nn.bias_add(x, b)
    return tf.nn.relu(x)


def maxpool2d(x, k=2):
    return tf.nn.max_pool(x, ksize=[1, k, k, 1], strides=[1, k, k, 1], padding='SAME')


random_normal = tf.initializers.RandomNormal()

weights = {
    # 5x5 conv, 1 input channel, 32 filters
    'wc1': tf.Variable(random_normal([5, 5, 1, conv1_filters])),
    # 5x5 conv, 32 inputs, 64 filters
    'wc2': tf.Variable(random_normal([5, 5, conv1_filters, conv2_filters])),
    # fully connected, 7*7*64 inputs, 1024 units
    'wd1': tf.Variable(random_normal([7 * 7 * 64, fc1_units])),
    # 1024 inputs, 10 class scores
    'out': tf.Variable(random_normal([fc1_units, num_classes]))
}

biases = {
    'bc1': tf.Variable(tf.zeros([conv1_filters])),
    'bc2': tf.Variable(tf.zeros([conv2_filters])),
    'bd1': tf.Variable(tf.zeros([fc1_units])),
    'out': tf.Variable(tf.zeros([num_classes]))
}


def conv_net(x):
    # [-1, 28, 28, 1] grayscale images
    x = tf.reshape(x, [-1, 28, 28, 1])
    # [-1, 28, 28, 32], pooled to [-1, 14, 14, 32]
    conv1 = conv2d(x, weights['wc1'], biases['bc1'])
    conv1 = maxpool2d(conv1, k=2)
    # [-1, 14, 14, 64], pooled to [-1, 7, 7, 64]
    conv2 = conv2d(conv1, weights['wc2'], biases['bc2'])
    conv2 = maxpool2d(conv2, k=2)
    # flattened to [-1, 7*7*64], then 1024 relu units
    fc1 = tf.reshape(conv2, [-1, weights['wd1'].get_shape().as_list()[0]])
    fc1 = tf.add(tf.matmul(fc1, weights['wd1']), biases['bd1'])
    fc1 = tf.nn.relu(fc1)
    # the 10 class probabilities
    out = tf.add(tf.matmul(fc1, weights['out']), biases['out'])
    return tf.nn.softmax(out)


# Cross-entropy summed over the batch (the notebook's reduce_mean of a scalar).
def cross_entropy(y_pred, y_true):
    y_true = tf.one_hot(y_true, depth=num_classes)
    y_pred = tf.clip_by_value(y_pred, 1e-9, 1.)
    return tf.reduce_mean(-tf.reduce_sum(y_true * tf.math.log(y_pred)))


def accuracy(y_pred, y_true):
    correct_prediction = tf.equal(tf.argmax(y_pred, 1), tf.cast(y_true, tf.int64))
    return tf.reduce_mean(tf.cast(correct_prediction, tf.float32), axis=-1)


optimizer = tf.optimizers.Adam(learning_rate)


def run_optimization(x, y):
    with tf.GradientTape() as g:
        pred = conv_net(x)
        loss = cross_entropy(pred, y)
    trainable_variables = list(weights.values()) + list(biases.values())
    gradients = g.gradient(loss, trainable_variables)
    optimizer.apply_gradients(zip(gradients, trainable_variables))


for step, (batch_x, batch_y) in enumerate(train_data.take(training_steps), 1):
    run_optimization(batch_x, batch_y)
    if step % display_step == 0:
        pred = conv_net(batch_x)
        loss = cross_entropy(pred, batch_y)
        acc = accuracy(pred, batch_y)
        print("step: %i, loss: %f, accuracy: %f" % (step, loss, acc))

pred = conv_net(x_test)
print("Test Accuracy: %f" % accuracy(pred, y_test))
