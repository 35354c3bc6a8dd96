"""The TF1 tutorial "Deep MNIST for experts": conv 5x5x32, pool, conv 5x5x64, pool, fc 1024, dropout; Adam 1e-4.

Plain TF1 code on webflow, as the tutorial wrote it (20,000 steps of 50 images reach about 99.2%):

    python benchmarks/mnist_deep_cnn.py --data ../shared/data/mnist
"""

from mnist_common import Clock, batched_accuracy, parse_args, read_mnist, report

import webflow.compat.v1 as tf

tf.disable_v2_behavior()
args = parse_args(__doc__.splitlines()[0], steps=20000, batch_size=50)
mnist = read_mnist(args)
tf.set_random_seed(args.seed)


def weight_variable(shape):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def conv2d(x, W):  # noqa: N803 - the tutorial's spelling
    return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")


def max_pool_2x2(x):
    return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")


x = tf.placeholder(tf.float32, [None, 784])
y_ = tf.placeholder(tf.float32, [None, 10])
x_image = tf.reshape(x, [-1, 28, 28, 1])

W_conv1 = weight_variable([5, 5, 1, 32])
b_conv1 = bias_variable([32])
h_pool1 = max_pool_2x2(tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1))

W_conv2 = weight_variable([5, 5, 32, 64])
b_conv2 = bias_variable([64])
h_pool2 = max_pool_2x2(tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2))

W_fc1 = weight_variable([7 * 7 * 64, 1024])
b_fc1 = bias_variable([1024])
h_fc1 = tf.nn.relu(tf.matmul(tf.reshape(h_pool2, [-1, 7 * 7 * 64]), W_fc1) + b_fc1)

keep_prob = tf.placeholder(tf.float32)
h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob)

W_fc2 = weight_variable([1024, 10])
b_fc2 = bias_variable([10])
y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2

cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y_conv))
train_step = tf.train.AdamOptimizer(1e-4).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

clock = Clock()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        batch = mnist.train.next_batch(args.batch_size)
        if step % args.log_every == 0:
            train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1], keep_prob: 1.0})
            print(f"step {step}, training accuracy {train_accuracy:.3f}  ({clock.seconds():.0f} s)", flush=True)
        train_step.run(feed_dict={x: batch[0], y_: batch[1], keep_prob: 0.5})
    test_accuracy = batched_accuracy(sess, accuracy, {"x": x, "y": y_, keep_prob: 1.0},
                                     mnist.test.images, mnist.test.labels)
report("Deep MNIST CNN", args.steps, args.batch_size, clock, test_accuracy)
