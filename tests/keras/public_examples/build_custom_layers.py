# ruff: noqa  (a public example program, kept in the notebook's own style)
"""Custom Keras layers trained on MNIST: one with its own weights (add_weight), one made of inner Dense layers.

Re-creates TensorFlow-Examples' tensorflow_v2 notebook build_custom_layers.ipynb as a stand-alone program:
`layers.Layer` subclasses with `build` / `call` / `get_config`, a Model whose `__call__` is overridden, Adam.
"""

from __future__ import absolute_import, division, print_function

import tensorflow as tf
from tensorflow.keras import Model, layers
import numpy as np

num_classes = 10
num_features = 784

# Training parameters.
learning_rate = 0.01
training_steps = 500
batch_size = 256
display_step = 50

from tensorflow.keras.datasets import mnist
(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = np.array(x_train, np.float32), np.array(x_test, np.float32)
x_train, x_test = x_train.reshape([-1, num_features]), x_test.reshape([-1, num_features])
x_train, x_test = x_train / 255., x_test / 255.

train_data = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_data = train_data.repeat().shuffle(5000).batch(batch_size).prefetch(1)


# y = relu(x W + b), with W and b made in build() once the input width is known.
class CustomLayer1(layers.Layer):

    def __init__(self, num_units, **kwargs):
        self.num_units = num_units
        super(CustomLayer1, self).__init__(**kwargs)

    def build(self, input_shape):
        shape = tf.TensorShape((input_shape[1], self.num_units))
        # the initializer given as a class: Keras makes the instance
        self.weight = self.add_weight(name='W', shape=shape, initializer=tf.initializers.RandomNormal,
                                      trainable=True)
        # no initializer: Keras's default for a float weight (glorot_uniform)
        self.bias = self.add_weight(name='b', shape=[self.num_units])
        super(CustomLayer1, self).build(input_shape)

    def call(self, inputs):
        x = tf.matmul(inputs, self.weight)
        x = x + self.bias
        return tf.nn.relu(x)

    def get_config(self):
        base_config = super(CustomLayer1, self).get_config()
        base_config['num_units'] = self.num_units
        return base_config


# Two Dense layers with a residual connection: x + Dense(relu(Dense_1(x))).
class CustomLayer2(layers.Layer):

    def __init__(self, num_units, **kwargs):
        self.num_units = num_units
        super(CustomLayer2, self).__init__(**kwargs)

    def build(self, input_shape):
        self.inner_layer1 = layers.Dense(1)
        self.inner_layer2 = layers.Dense(self.num_units)
        super(CustomLayer2, self).build(input_shape)

    def call(self, inputs):
        x = self.inner_layer1(inputs)
        x = tf.nn.relu(x)
        x = self.inner_layer2(x)
        return x + inputs

    def get_config(self):
        base_config = super(CustomLayer2, self).get_config()
        base_config['num_units'] = self.num_units
        return base_config


class CustomNet(Model):

    def __init__(self):
        super(CustomNet, self).__init__()
        self.layer1 = CustomLayer1(64)
        self.layer2 = CustomLayer2(64)
        self.out = layers.Dense(num_classes)

    # The forward pass, written as __call__ itself.
    def __call__(self, x, is_training=False):
        x = self.layer1(x)
        x = tf.nn.relu(x)
        x = self.layer2(x)
        x = self.out(x)
        if not is_training:
            x = tf.nn.softmax(x)
        return x


custom_net = CustomNet()


def cross_entropy(y_pred, y_true):
    y_true = tf.cast(y_true, tf.int64)
    crossentropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    return tf.reduce_mean(crossentropy)


def accuracy(y_pred, y_true):
    correct_prediction = tf.equal(tf.argmax(y_pred, 1), tf.cast(y_true, tf.int64))
    return tf.reduce_mean(tf.cast(correct_prediction, tf.float32))


optimizer = tf.optimizers.Adam(learning_rate)


def run_optimization(x, y):
    with tf.GradientTape() as g:
        pred = custom_net(x, is_training=True)
        loss = cross_entropy(pred, y)
        # (as in the notebook, the gradients and the update are inside the tape's block)
        gradients = g.gradient(loss, custom_net.trainable_variables)
        optimizer.apply_gradients(zip(gradients, custom_net.trainable_variables))


for step, (batch_x, batch_y) in enumerate(train_data.take(training_steps), 1):
    run_optimization(batch_x, batch_y)
    if step % display_step == 0:
        pred = custom_net(batch_x, is_training=True)
        loss = cross_entropy(pred, batch_y)
        acc = accuracy(pred, batch_y)
        print("step: %i, loss: %f, accuracy: %f" % (step, loss, acc))

print("layer1 config: %s" % sorted(custom_net.layer1.get_config().items()))
print("weights: %s" % [(w.name, w.shape.as_list()) for w in custom_net.trainable_variables])
