"""House prices: normalised feature matrix, matmul with a weight vector, batch gradient descent."""

import numpy as np


def program(tf):
    # size (sq ft), bedrooms, age (years) -> price (k$)
    features = np.array([[2104, 3, 45], [1600, 3, 30], [2400, 3, 20], [1416, 2, 50],
                         [3000, 4, 10], [1985, 4, 25], [1534, 3, 35], [1427, 3, 40]], dtype=np.float32)
    prices = np.array([[399.9], [329.9], [369.0], [232.0], [539.9], [299.9], [314.9], [198.999]], dtype=np.float32)

    mean = np.mean(features, axis=0)
    std = np.std(features, axis=0)
    normalized = (features - mean) / std
    # a bias column of ones, as in the classic tutorial
    design = np.concatenate([np.ones((len(features), 1), np.float32), normalized], axis=1).astype(np.float32)

    X = tf.placeholder(tf.float32, [None, 4], name="X")
    Y = tf.placeholder(tf.float32, [None, 1], name="Y")
    W = tf.Variable(tf.zeros([4, 1]), name="W")
    y_hat = tf.matmul(X, W)
    loss = tf.reduce_mean(tf.square(y_hat - Y)) / 2.0
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)

    # the same normalisation done in the graph
    raw = tf.constant(features)
    mu, var = tf.nn.moments(raw, axes=[0])
    in_graph_norm = (raw - mu) / tf.sqrt(var)

    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(200):
            _, current = sess.run([train, loss], {X: design, Y: prices})
            if step % 40 == 0:
                losses.append(current)
        weights, final = sess.run([W, loss], {X: design, Y: prices})
        query = (np.array([[1650, 3, 30]], np.float32) - mean) / std
        query = np.concatenate([[[1.0]], query], axis=1).astype(np.float32)
        predicted = sess.run(y_hat, {X: query})
        graph_norm = sess.run(in_graph_norm)
    return {
        "losses": np.array(losses),
        "weights": weights,
        "final_loss": final,
        "predicted": predicted,
        # float32 mean/variance summed in a different order than NumPy: compared at float32 precision
        "in_graph_norm": graph_norm,
        "y_hat": str(y_hat),
        "loss_shape": str(loss.shape),
    }
