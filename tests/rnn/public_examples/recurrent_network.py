# ruff: noqa  (a public program kept as it was published: its imports, .format calls and the `len` variable)
""" Recurrent Neural Network.

An LSTM that reads an MNIST digit row by row and classifies it (the public TensorFlow-Examples program
recurrent_network.py, re-created; the tests replace only its import lines and shorten training_steps).
"""

from __future__ import print_function

import tensorflow as tf
from tensorflow.contrib import rnn

# MNIST, labels as one-hot rows
from tensorflow.examples.tutorials.mnist import input_data
mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)

'''
An image is 28 rows of 28 pixels: the network sees each image as a sequence of 28 time steps, one row
(28 values) per step, and classifies it from the LSTM's last output.
'''

# Training Parameters
learning_rate = 0.001
training_steps = 10000
batch_size = 128
display_step = 200

# Network Parameters
num_input = 28  # pixels per row
timesteps = 28  # rows per image
num_hidden = 128  # LSTM units
num_classes = 10  # digits 0-9

# tf Graph input
X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])

# Output layer weights
weights = {
    'out': tf.Variable(tf.random_normal([num_hidden, num_classes]))
}
biases = {
    'out': tf.Variable(tf.random_normal([num_classes]))
}


def RNN(x, weights, biases):

    # static_rnn takes a list of `timesteps` tensors of shape (batch_size, num_input):
    # split the (batch_size, timesteps, num_input) input along the time axis
    x = tf.unstack(x, timesteps, 1)

    # One LSTM cell, unrolled over the time steps
    lstm_cell = rnn.BasicLSTMCell(num_hidden, forget_bias=1.0)
    outputs, states = rnn.static_rnn(lstm_cell, x, dtype=tf.float32)

    # A linear layer on the last time step's output
    return tf.matmul(outputs[-1], weights['out']) + biases['out']


logits = RNN(X, weights, biases)
prediction = tf.nn.softmax(logits)

# Loss and optimizer
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
    logits=logits, labels=Y))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)

# Evaluation
correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

# Variables' initial values
init = tf.global_variables_initializer()

# Training
with tf.Session() as sess:

    sess.run(init)

    for step in range(1, training_steps+1):
        batch_x, batch_y = mnist.train.next_batch(batch_size)
        # each image as 28 rows of 28 pixels
        batch_x = batch_x.reshape((batch_size, timesteps, num_input))
        # one step of gradient descent
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            # loss and accuracy on this batch
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x,
                                                                 Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + \
                  "{:.4f}".format(loss) + ", Training Accuracy= " + \
                  "{:.3f}".format(acc))

    print("Optimization Finished!")

    # Accuracy on the first 128 test images
    test_len = 128
    test_data = mnist.test.images[:test_len].reshape((-1, timesteps, num_input))
    test_label = mnist.test.labels[:test_len]
    print("Testing Accuracy:", \
        sess.run(accuracy, feed_dict={X: test_data, Y: test_label}))
