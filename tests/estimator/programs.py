"""Programs run both under TensorFlow 2.15 and webflow (see estimator_oracle.py); each sets `result`."""

FEATURE_COLUMNS = r"""
values = {"x": np.array([[1.0], [5.0], [12.0], [2.0]], np.float32),
          "c": np.array([["a"], ["z"], ["b"], [""]]),
          "i": np.array([[0], [3], [1], [2]], np.int32),
          "h": np.array([["cat"], ["dog"], ["emu"], ["gnu"]]),
          "n": np.array([[7], [8], [9], [10]], np.int64),
          "p": np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)}
table = np.arange(12.0, dtype=np.float32).reshape(6, 2)
columns = {
    "numeric": fc.numeric_column("x"),
    "numeric_2d": fc.numeric_column("p", shape=(2,), normalizer_fn=lambda t: t * 2.0),
    "bucketized": fc.bucketized_column(fc.numeric_column("x"), [2.0, 10.0]),
    "bucketized_2d": fc.bucketized_column(fc.numeric_column("p", shape=(2,)), [4.0]),
    "vocabulary": fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"])),
    "vocabulary_oov": fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("c", ["b", "a", "q"], num_oov_buckets=3)),
    "identity": fc.indicator_column(fc.categorical_column_with_identity("i", 4)),
    "hash": fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 5)),
    "hash_int": fc.indicator_column(fc.categorical_column_with_hash_bucket("n", 7, dtype=tf.int64)),
    "embedding": fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 6), 2,
                                     initializer=tf.constant_initializer(table)),
}
columns["all"] = [c for name, c in columns.items() if name != "vocabulary_oov"]  # names must be unique


def run_layer(chosen):
    with tf.Graph().as_default():
        features = {key: tf.constant(value) for key, value in values.items()}
        out = fc.input_layer(features, chosen if isinstance(chosen, list) else [chosen])
        names = [v.name for v in tf.global_variables()]
        with tf.Session() as session:
            session.run([tf.global_variables_initializer(), tf.tables_initializer()])
            return {"value": session.run(out), "variables": names}


result = {name: run_layer(chosen) for name, chosen in columns.items()}
"""

# A linear model_fn trained with SGD from fixed initial values: checkpoints, resume, evaluate, predict.
LINEAR_ESTIMATOR = r"""
import os
rng = np.random.RandomState(0)
X = rng.rand(64, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


def train_input():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(16)


def model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer([[0.1], [0.2], [0.3]]))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    prediction = tf.matmul(features["x"], w) + b
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"y": prediction, "twice": 2.0 * prediction})
    loss = tf.reduce_mean(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(params["lr"]).minimize(
        loss, global_step=tf.train.get_global_step())
    metrics = {"mse": tf.metrics.mean_squared_error(labels, prediction),
               "close": tf.metrics.accuracy(tf.cast(tf.abs(prediction - labels) < 0.5, tf.int32),
                                            tf.ones_like(labels, tf.int32))}
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


config = est.RunConfig(save_checkpoints_steps=7, save_summary_steps=5)
first = est.Estimator(model_fn, model_dir, config=config, params={"lr": 0.1})
first.train(train_input, steps=10)
after_10 = {"w": first.get_variable_value("w"), "b": first.get_variable_value("b"),
            "step": first.get_variable_value("global_step")}
second = est.Estimator(model_fn, model_dir, params={"lr": 0.1})
second.train(train_input, steps=5)
second.train(train_input, max_steps=12)
second.train(train_input, max_steps=18)
evaluation = second.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(20))
predictions = list(second.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X[:3]}).batch(2)))
only_y = list(second.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X[:3]}).batch(2),
                             predict_keys=["y"]))
checkpoints = sorted(f[:-len(".index")] for f in os.listdir(model_dir) if f.endswith(".index"))
result = {"after_10": after_10, "step": second.get_variable_value("global_step"),
          "w": second.get_variable_value("w"), "evaluation": evaluation, "predictions": predictions,
          "only_y": only_y, "checkpoints": checkpoints}
"""

# numpy_input_fn without shuffling: batches in order, the last one short, OutOfRange after num_epochs.
NUMPY_INPUT = r"""
X = np.arange(10, dtype=np.float32).reshape(5, 2)
Y = np.arange(5, dtype=np.float32).reshape(5, 1)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [2, 1], initializer=tf.constant_initializer([[0.5], [-0.25]]))
    prediction = tf.matmul(features["x"], w)
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions=prediction)
    loss = tf.reduce_sum(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


estimator = est.Estimator(model_fn, model_dir)
estimator.train(tf.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=2, num_epochs=2, shuffle=False))
result = {"step": estimator.get_variable_value("global_step"), "w": estimator.get_variable_value("w"),
          "predictions": list(estimator.predict(
              tf.estimator.inputs.numpy_input_fn({"x": X}, batch_size=4, shuffle=False)))}
"""

# Steps at which train() writes the `loss` summary (save_summary_steps=3), over two train calls.
SUMMARY_STEPS = r"""
import glob
rng = np.random.RandomState(0)
X = rng.rand(64, 3).astype(np.float32)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=tf.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


estimator = est.Estimator(model_fn, model_dir, config=est.RunConfig(save_summary_steps=3))
for steps in (7, 4):
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, X[:, :1])).repeat().batch(16), steps=steps)
result = [[event.step, [value.tag for value in event.summary.value]]
          for path in sorted(glob.glob(model_dir + "/events.out.tfevents.*"))
          for event in tf.train.summary_iterator(path) if event.summary.value]
"""

# LinearRegressor with SGD on a numeric, a bucketized and a vocabulary column (zero initial weights).
LINEAR_REGRESSOR = r"""
rng = np.random.RandomState(1)
x = rng.rand(40, 2).astype(np.float32)
c = np.array(["a", "b", "c", "a"] * 10)
y = (x @ np.array([1.5, -0.5], np.float32) + (c == "b") * 0.7 + 0.2).astype(np.float32)
columns = [fc.numeric_column("x", shape=(2,)),
           fc.bucketized_column(fc.numeric_column("x", shape=(2,)), [0.5]),
           fc.categorical_column_with_vocabulary_list("c", ["a", "b"])]
regressor = est.LinearRegressor(columns, model_dir=model_dir, optimizer="SGD")
train = tf.estimator.inputs.numpy_input_fn({"x": x, "c": c}, y, batch_size=8, num_epochs=None, shuffle=False)
regressor.train(train, steps=30)
names = sorted(n for n in regressor.get_variable_names() if n.startswith("linear/linear_model"))
evaluation = regressor.evaluate(tf.estimator.inputs.numpy_input_fn({"x": x, "c": c}, y, batch_size=16,
                                                                    shuffle=False))
predictions = list(regressor.predict(tf.estimator.inputs.numpy_input_fn({"x": x[:3], "c": c[:3]},
                                                                         shuffle=False)))
result = {"variables": {n: regressor.get_variable_value(n) for n in names}, "evaluation": evaluation,
          "predictions": predictions}
"""

# tf.train.MonitoredTrainingSession: restore-or-init, checkpoints and summaries by steps, StopAtStepHook,
# the end of the input leaving the `with` block quietly, and a second session resuming from the checkpoint.
MONITORED_SESSION = r"""
import glob, os
rng = np.random.RandomState(0)
X = rng.rand(48, 2).astype(np.float32)
Y = (X @ np.array([[1.0], [-1.0]], np.float32)).astype(np.float32)


def build():
    x, y = tf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices((X, Y)).batch(8)).get_next()
    w = tf.get_variable("w", [2, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    tf.summary.scalar("loss", loss)
    step = tf.train.get_or_create_global_step()
    return tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=step), loss, w


steps = []
with tf.Graph().as_default():
    train_op, loss, w = build()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, save_checkpoint_steps=4,
                                           save_summaries_steps=2,
                                           hooks=[tf.train.StopAtStepHook(last_step=100)]) as session:
        while not session.should_stop():
            steps.append(float(session.run(loss)))
            session.run(train_op)
first = sorted(f[:-6] for f in os.listdir(model_dir) if f.endswith(".index"))
with tf.Graph().as_default():
    train_op, loss, w = build()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=model_dir, save_checkpoint_steps=4,
                                           hooks=[tf.train.StopAtStepHook(num_steps=2)]) as session:
        while not session.should_stop():
            _, final_w, final_step = session.run([train_op, w, tf.train.get_global_step()])
summaries = sorted(event.step for path in glob.glob(model_dir + "/events.out.tfevents.*")
                   for event in tf.train.summary_iterator(path) if event.summary.value)
result = {"losses": steps, "first": first, "w": final_w, "step": final_step,
          "checkpoints": sorted(f[:-6] for f in os.listdir(model_dir) if f.endswith(".index")),
          "summaries": summaries}
"""
