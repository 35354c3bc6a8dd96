"""A two-layer perceptron on MNIST (784 -> 256 ReLU -> 10, Adam), plain TF1 code on webflow.

    python benchmarks/mnist_mlp.py --data ../shared/data/mnist      # ~98% test accuracy
"""

from mnist_common import Clock, batched_accuracy, parse_args, read_mnist, report

import webflow.compat.v1 as tf

tf.disable_v2_behavior()
args = parse_args(__doc__.splitlines()[0], steps=6000, batch_size=100)
mnist = read_mnist(args)
tf.set_random_seed(args.seed)

x = tf.placeholder(tf.float32, [None, 784])
y_ = tf.placeholder(tf.float32, [None, 10])

W1 = tf.Variable(tf.truncated_normal([784, 256], stddev=0.05))
b1 = tf.Variable(tf.zeros([256]))
hidden = tf.nn.relu(tf.matmul(x, W1) + b1)
W2 = tf.Variable(tf.truncated_normal([256, 10], stddev=0.05))
b2 = tf.Variable(tf.zeros([10]))
y = tf.matmul(hidden, W2) + b2

cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
train_step = tf.train.AdamOptimizer(1e-3).minimize(cross_entropy)
correct_prediction = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))

clock = Clock()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        batch_xs, batch_ys = mnist.train.next_batch(args.batch_size)
        _, loss = sess.run([train_step, cross_entropy], feed_dict={x: batch_xs, y_: batch_ys})
        if step % args.log_every == 0:
            print(f"step {step}: loss {loss:.4f}  ({clock.seconds():.1f} s)", flush=True)
    test_accuracy = batched_accuracy(sess, accuracy, {"x": x, "y": y_}, mnist.test.images, mnist.test.labels)
report("two-layer perceptron", args.steps, args.batch_size, clock, test_accuracy)
