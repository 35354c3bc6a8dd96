"""A run-time error: the graph builds (the placeholder's shape is left open), but the batch fed has 2 features
where the weights expect 3, so MatMul fails inside Session.run (tf.errors.InvalidArgumentError)."""
import webflow.compat.v1 as tf

tf.disable_v2_behavior()

x = tf.placeholder(tf.float32, shape=[None, None], name="x")   # any number of features is accepted here...
W = tf.Variable(tf.ones([3, 2]), name="W")                      # ...but the weights expect 3
logits = tf.matmul(x, W)
probabilities = tf.nn.softmax(logits)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    print("3 features:", sess.run(probabilities, feed_dict={x: [[1.0, 2.0, 3.0]]}).tolist())
    print("2 features:", sess.run(probabilities, feed_dict={x: [[1.0, 2.0]]}).tolist())
