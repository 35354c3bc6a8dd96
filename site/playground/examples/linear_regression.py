"""Fit y = 2x + 1 with a linear model, in classic TensorFlow 1 style: build a graph, then run it."""
import webflow.compat.v1 as tf

tf.disable_v2_behavior()   # TF1 behaviour: graph mode, `?` in printed shapes

# The data comes in through placeholders; None is the batch dimension.
x = tf.placeholder(tf.float32, shape=[None, 1], name="x")
y = tf.placeholder(tf.float32, shape=[None, 1], name="y")

# The model's parameters are variables: the optimizer changes them.
W = tf.Variable(tf.zeros([1, 1]), name="W")
b = tf.Variable(tf.zeros([1]), name="b")
prediction = tf.matmul(x, W) + b
loss = tf.reduce_mean(tf.square(prediction - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

xs = [[0.0], [1.0], [2.0], [3.0]]
ys = [[1.0], [3.0], [5.0], [7.0]]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(3):
        _, loss_value = sess.run([train, loss], feed_dict={x: xs, y: ys})
        print(f"step {step}: loss = {float(loss_value):.4f}")
    # The last run is the one the graph view shows: the ops it ran are marked, with their times.
    W_value, b_value, loss_value = sess.run([W, b, loss], feed_dict={x: xs, y: ys})
    print(f"W = {float(W_value[0][0]):.4f}, b = {float(b_value[0]):.4f}, loss = {float(loss_value):.4f}")
    print("prediction shape:", prediction.shape)
