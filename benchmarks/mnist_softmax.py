"""The TF1 tutorial "MNIST for ML beginners": softmax regression, plain TF1 code on webflow.

    python benchmarks/mnist_softmax.py --data ../shared/data/mnist      # ~92% test accuracy
"""

from mnist_common import Clock, batched_accuracy, parse_args, read_mnist, report

import webflow.compat.v1 as tf

tf.disable_v2_behavior()
args = parse_args(__doc__.splitlines()[0], steps=1000, batch_size=100)
mnist = read_mnist(args)

x = tf.placeholder(tf.float32, [None, 784])
W = tf.Variable(tf.zeros([784, 10]))
b = tf.Variable(tf.zeros([10]))
y = tf.matmul(x, W) + b
y_ = tf.placeholder(tf.float32, [None, 10])

cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

clock = Clock()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        batch_xs, batch_ys = mnist.train.next_batch(args.batch_size)
        sess.run(train_step, feed_dict={x: batch_xs, y_: batch_ys})
        if step % args.log_every == 0:
            loss = sess.run(cross_entropy, {x: batch_xs, y_: batch_ys})
            print(f"step {step}: loss {loss:.4f}  ({clock.seconds():.1f} s)")
    test_accuracy = batched_accuracy(sess, accuracy, {"x": x, "y": y_}, mnist.test.images, mnist.test.labels)
report("softmax regression", args.steps, args.batch_size, clock, test_accuracy)
