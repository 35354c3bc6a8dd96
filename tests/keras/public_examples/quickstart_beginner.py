# ruff: noqa  (a public example program, kept in the tutorial's own style)
"""TensorFlow 2 quickstart for beginners (tutorials/quickstart/beginner) as a program.

A Keras Sequential model (Flatten, Dense, Dropout, Dense) on MNIST: raw logits and their softmax, the loss of
an untrained model, `compile` / `fit` / `evaluate`, and a model that returns probabilities.
"""

import tensorflow as tf
print("TensorFlow version:", tf.__version__ != "")

mnist = tf.keras.datasets.mnist

(x_train, y_train), (x_test, y_test) = mnist.load_data()
x_train, x_test = x_train / 255.0, x_test / 255.0

model = tf.keras.models.Sequential([
  tf.keras.layers.Flatten(input_shape=(28, 28)),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(0.2),
  tf.keras.layers.Dense(10)
])

# The untrained model's scores ("logits") for one image, and the probabilities softmax makes of them.
predictions = model(x_train[:1]).numpy()
print(predictions)
print(tf.nn.softmax(predictions).numpy())

# The loss: about -log(1/10) = 2.3 for an untrained model.
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
print(loss_fn(y_train[:1], predictions).numpy())

model.compile(optimizer='adam',
              loss=loss_fn,
              metrics=['accuracy'])

model.fit(x_train, y_train, epochs=5)

model.evaluate(x_test,  y_test, verbose=2)

probability_model = tf.keras.Sequential([
  model,
  tf.keras.layers.Softmax()
])
print(probability_model(x_test[:5]))
