# ruff: noqa  (a public example program, kept in the tutorial's own style)
"""Custom layers: the TensorFlow tutorial "Custom layers" (tutorials/customization/custom_layers) as a program.

Keras's own layers, a layer written by subclassing `tf.keras.layers.Layer` (build / add_weight / call), a
ResNet identity block written as a subclassed `tf.keras.Model` with Conv2D and BatchNormalization, the same
stack as a `Sequential`, their variables and `summary()`. Inputs are random (NumPy, seeded by the caller) rather
than zeros so that the printed outputs say something.
"""

import tensorflow as tf
import numpy as np

print(tf.config.list_physical_devices('GPU'))

# Keras's layers: the number of outputs is the first argument; the input size is found on the first call.
layer = tf.keras.layers.Dense(100)
layer = tf.keras.layers.Dense(10, input_shape=(None, 5))

inputs = np.random.rand(10, 5).astype(np.float32)
print(np.round(layer(inputs).numpy(), 5).tolist())
print([var.name for var in layer.variables])
print(layer.kernel.shape, layer.bias.shape)


# A layer of our own: a matrix product with a kernel made in build().
class MyDenseLayer(tf.keras.layers.Layer):
    def __init__(self, num_outputs):
        super(MyDenseLayer, self).__init__()
        self.num_outputs = num_outputs

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", shape=[int(input_shape[-1]), self.num_outputs])

    def call(self, inputs):
        return tf.matmul(inputs, self.kernel)


layer = MyDenseLayer(10)
print(np.round(layer(inputs).numpy(), 5).tolist())
print([var.name for var in layer.trainable_variables])


# A ResNet identity block: three conv + batch-norm stages, the input added back at the end.
class ResnetIdentityBlock(tf.keras.Model):
    def __init__(self, kernel_size, filters):
        super(ResnetIdentityBlock, self).__init__(name='')
        filters1, filters2, filters3 = filters

        self.conv2a = tf.keras.layers.Conv2D(filters1, (1, 1))
        self.bn2a = tf.keras.layers.BatchNormalization()

        self.conv2b = tf.keras.layers.Conv2D(filters2, kernel_size, padding='same')
        self.bn2b = tf.keras.layers.BatchNormalization()

        self.conv2c = tf.keras.layers.Conv2D(filters3, (1, 1))
        self.bn2c = tf.keras.layers.BatchNormalization()

    def call(self, input_tensor, training=False):
        x = self.conv2a(input_tensor)
        x = self.bn2a(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2b(x)
        x = self.bn2b(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2c(x)
        x = self.bn2c(x, training=training)

        x += input_tensor
        return tf.nn.relu(x)


block = ResnetIdentityBlock(1, [1, 2, 3])
images = np.random.rand(2, 2, 3, 3).astype(np.float32)
print(np.round(block(images).numpy(), 5).tolist())
print(np.round(block(images, training=True).numpy(), 5).tolist())
print([layer.name for layer in block.layers])
print(len(block.variables))
print([(var.name, np.round(var.numpy(), 5).tolist()) for var in block.non_trainable_variables])
block.summary()

# The same stack as a Sequential model.
my_seq = tf.keras.Sequential([tf.keras.layers.Conv2D(1, (1, 1), input_shape=(None, None, 3)),
                              tf.keras.layers.BatchNormalization(),
                              tf.keras.layers.Conv2D(2, 1, padding='same'),
                              tf.keras.layers.BatchNormalization(),
                              tf.keras.layers.Conv2D(3, (1, 1)),
                              tf.keras.layers.BatchNormalization()])
print(np.round(my_seq(images).numpy(), 5).tolist())
my_seq.summary()
