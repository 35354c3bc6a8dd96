"""A shape mismatch: a (2, 3) matrix plus a vector of 4 cannot broadcast, so the graph cannot be built."""
import webflow.compat.v1 as tf

tf.disable_v2_behavior()

features = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="features")   # shape (2, 3)
bias = tf.constant([0.1, 0.2, 0.3, 0.4], name="bias")                         # shape (4,)
scaled = features * 2.0
shifted = scaled + bias    # the last dimensions are 3 and 4: a ValueError here, at graph build time

with tf.Session() as sess:
    print(sess.run(shifted))
