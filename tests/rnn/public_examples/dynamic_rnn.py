# ruff: noqa  (a public program kept as it was published: its imports, .format calls and the `len` variable)
""" Dynamic Recurrent Neural Network.

An LSTM classifies sequences of different lengths (padded to the same length, with their true lengths fed in
`seqlen`): linear sequences (0, 1, 2, 3, ...) against random ones (the public TensorFlow-Examples program
dynamic_rnn.py, re-created; the tests replace only its import lines and shorten training_steps).
"""

from __future__ import print_function

import tensorflow as tf
import random


# ====================
#  TOY DATA GENERATOR
# ====================
class ToySequenceData(object):
    """ Sequences of random length with a class each:
    - Class 0: linear sequences (i.e. [0, 1, 2, 3,...])
    - Class 1: random sequences (i.e. [1, 3, 10, 7,...])

    Every sequence is padded with zeros to 'max_seq_len' so that a batch is one array;
    'seqlen' keeps each sequence's true length for the RNN.
    """
    def __init__(self, n_samples=1000, max_seq_len=20, min_seq_len=3,
                 max_value=1000):
        self.data = []
        self.labels = []
        self.seqlen = []
        for i in range(n_samples):
            # a random length
            len = random.randint(min_seq_len, max_seq_len)
            # kept for the RNN's sequence_length
            self.seqlen.append(len)
            # linear or random, with probability 1/2 each
            if random.random() < .5:
                # a run of consecutive integers, scaled into [0, 1]
                rand_start = random.randint(0, max_value - len)
                s = [[float(i)/max_value] for i in
                     range(rand_start, rand_start + len)]
                # zeros up to max_seq_len
                s += [[0.] for i in range(max_seq_len - len)]
                self.data.append(s)
                self.labels.append([1., 0.])
            else:
                # independent random integers, scaled into [0, 1]
                s = [[float(random.randint(0, max_value))/max_value]
                     for i in range(len)]
                # zeros up to max_seq_len
                s += [[0.] for i in range(max_seq_len - len)]
                self.data.append(s)
                self.labels.append([0., 1.])
        self.batch_id = 0

    def next(self, batch_size):
        """ The next batch_size samples (fewer at the end of the data); after the end, from the start again.
        """
        if self.batch_id == len(self.data):
            self.batch_id = 0
        batch_data = (self.data[self.batch_id:min(self.batch_id +
                                                  batch_size, len(self.data))])
        batch_labels = (self.labels[self.batch_id:min(self.batch_id +
                                                  batch_size, len(self.data))])
        batch_seqlen = (self.seqlen[self.batch_id:min(self.batch_id +
                                                  batch_size, len(self.data))])
        self.batch_id = min(self.batch_id + batch_size, len(self.data))
        return batch_data, batch_labels, batch_seqlen


# ==========
#   MODEL
# ==========

# Parameters
learning_rate = 0.01
training_steps = 10000
batch_size = 128
display_step = 200

# Network Parameters
seq_max_len = 20 # longest sequence (the others are padded)
n_hidden = 64 # LSTM units
n_classes = 2 # linear or random

trainset = ToySequenceData(n_samples=1000, max_seq_len=seq_max_len)
testset = ToySequenceData(n_samples=500, max_seq_len=seq_max_len)

# tf Graph input
x = tf.placeholder("float", [None, seq_max_len, 1])
y = tf.placeholder("float", [None, n_classes])
# each sequence's true length
seqlen = tf.placeholder(tf.int32, [None])

# Output layer weights
weights = {
    'out': tf.Variable(tf.random_normal([n_hidden, n_classes]))
}
biases = {
    'out': tf.Variable(tf.random_normal([n_classes]))
}


def dynamicRNN(x, seqlen, weights, biases):

    # static_rnn takes a list of 'seq_max_len' tensors of shape (batch_size, n_input):
    # split the (batch_size, seq_max_len, n_input) input along the time axis
    x = tf.unstack(x, seq_max_len, 1)

    # One LSTM cell
    lstm_cell = tf.contrib.rnn.BasicLSTMCell(n_hidden)

    # With sequence_length the RNN stops each sequence at its own length: later outputs are zeros
    # and the state stays the last valid one
    outputs, states = tf.contrib.rnn.static_rnn(lstm_cell, x, dtype=tf.float32,
                                sequence_length=seqlen)

    # The output to classify is each sequence's last valid one (not the last time step's, which is
    # zero for a padded sequence): gather it by its flat index in the [batch * time, n_hidden] outputs.

    # 'outputs' is a list of [batch_size, n_hidden] per time step: stack to [n_step, batch_size, n_hidden]
    outputs = tf.stack(outputs)
    # then batch major: [batch_size, n_step, n_hidden]
    outputs = tf.transpose(outputs, [1, 0, 2])

    # row b's last output sits at b * seq_max_len + (seqlen[b] - 1)
    batch_size = tf.shape(outputs)[0]
    index = tf.range(0, batch_size) * seq_max_len + (seqlen - 1)
    outputs = tf.gather(tf.reshape(outputs, [-1, n_hidden]), index)

    # A linear layer on it
    return tf.matmul(outputs, weights['out']) + biases['out']


pred = dynamicRNN(x, seqlen, weights, biases)

# Loss and optimizer
cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate).minimize(cost)

# Evaluation
correct_pred = tf.equal(tf.argmax(pred,1), tf.argmax(y,1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

# Variables' initial values
init = tf.global_variables_initializer()

# Training
with tf.Session() as sess:

    sess.run(init)

    for step in range(1, training_steps + 1):
        batch_x, batch_y, batch_seqlen = trainset.next(batch_size)
        # one step of gradient descent
        sess.run(optimizer, feed_dict={x: batch_x, y: batch_y,
                                       seqlen: batch_seqlen})
        if step % display_step == 0 or step == 1:
            # accuracy and loss on this batch
            acc, loss = sess.run([accuracy, cost], feed_dict={x: batch_x, y: batch_y,
                                                seqlen: batch_seqlen})
            print("Step " + str(step*batch_size) + ", Minibatch Loss= " + \
                  "{:.6f}".format(loss) + ", Training Accuracy= " + \
                  "{:.5f}".format(acc))

    print("Optimization Finished!")

    # Accuracy on the test sequences
    test_data = testset.data
    test_label = testset.labels
    test_seqlen = testset.seqlen
    print("Testing Accuracy:", \
        sess.run(accuracy, feed_dict={x: test_data, y: test_label,
                                      seqlen: test_seqlen}))
