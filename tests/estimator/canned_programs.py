"""Premade-Estimator programs run under TensorFlow 2.15 and webflow (estimator_oracle.py); each sets `result`.

The programs expect `V1` (True: `est` is tf.compat.v1.estimator). Every model starts from known weights:
linear and baseline models from zeros (TF's initializers), DNNs
from values drawn by NumPy and loaded with `warm_start_from`, so the two frameworks' numbers agree up to
floating-point rounding.
"""

_SETUP = r"""
import os
SUM_REDUCTION = "weighted_sum" if V1 else "sum"  # tf.compat.v1.losses.Reduction.SUM or tf.keras's
rng = np.random.RandomState(0)
X = rng.rand(40, 2).astype(np.float32)
C = np.array([["a", "b", "c", "d"][i % 4] for i in range(40)])
W = (rng.rand(40) + 0.5).astype(np.float32)
Y2 = (X[:, 0] + 0.3 * rng.randn(40) > 0.5).astype(np.int64)
Y3 = rng.randint(0, 3, 40).astype(np.int64)
NAMED = np.array(["lo", "mid", "hi"])[Y3]
YR = (X @ np.array([[1.5], [-2.0]], np.float32) + 0.1).astype(np.float32)
features = {"x": X, "c": C, "w": W}
x_col = fc.numeric_column("x", shape=(2,))
c_col = fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b", "c"]))
cols = [x_col, c_col]
multi_col = fc.categorical_column_with_vocabulary_list("m", ["a", "b", "c"])
multi = {"x": X, "m": np.array([[["a", "b"], ["c", "a"], ["q", "c"], ["b", "b"]][i % 4] for i in range(40)]),
         "mw": np.array([[[0.5, 2.0], [1.5, 3.0], [1.0, 1.0], [2.0, 0.25]][i % 4] for i in range(40)], np.float32)}


def train_input(y, chosen):
    return lambda: tf.data.Dataset.from_tensor_slices((chosen, y)).repeat().batch(16)


def eval_input(y, chosen):
    return lambda: tf.data.Dataset.from_tensor_slices((chosen, y)).batch(16)


def start_checkpoint(name, shapes):
    values = {key: rng.uniform(-0.6, 0.6, shape).astype(np.float32) for key, shape in shapes}
    path = os.path.join(model_dir, name + "_start", "start.ckpt")
    os.makedirs(os.path.dirname(path))
    with tf.Graph().as_default():
        variables = [tf.Variable(value, name=key) for key, value in values.items()]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            tf.train.Saver(variables).save(session, path, write_meta_graph=False)
    return path


def dnn_shapes(width, hidden, units):
    shapes = []
    for i, size in enumerate(hidden):
        shapes += [(f"dnn/hiddenlayer_{i}/kernel", (width, size)), (f"dnn/hiddenlayer_{i}/bias", (size,))]
        width = size
    return shapes + [("dnn/logits/kernel", (width, units)), ("dnn/logits/bias", (units,))]


def summary(estimator, y, steps=5, chosen=None):
    chosen = features if chosen is None else chosen
    estimator.train(train_input(y, chosen), steps=steps)
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(chosen).batch(8)))
    return {"evaluation": estimator.evaluate(eval_input(y, chosen)), "predictions": predictions[:6],
            "variables": {n: estimator.get_variable_value(n) for n in estimator.get_variable_names()}}


def folder(name):
    return os.path.join(model_dir, name)
"""

LINEAR = _SETUP + r"""
result = {
    "linear_binary": summary(est.LinearClassifier(cols, folder("lb"), weight_column="w"), Y2),
    "linear_multi": summary(est.LinearClassifier(cols, folder("lm"), n_classes=3, label_vocabulary=["lo", "mid", "hi"]),
                            NAMED),
    "linear_regressor_ftrl": summary(est.LinearRegressor(cols, folder("lr")), YR),
    "linear_sum": summary(est.LinearClassifier(cols, folder("ls"), loss_reduction=SUM_REDUCTION), Y2),

}
for combiner in ["mean", "sqrtn"]:
    result["linear_" + combiner] = summary(est.LinearRegressor(
        [x_col, multi_col, fc.weighted_categorical_column(multi_col, "mw")], folder("lc" + combiner),
        sparse_combiner=combiner), YR, chosen=multi)
for name in ["SGD", "Adagrad", "Adam", "RMSProp"]:
    result["linear_" + name] = summary(est.LinearRegressor(cols, folder(name), optimizer=name), YR, steps=4)
"""

# (TF 2.15's baseline models fail to train when the features hold a string feature they do not use, or with
# weight_column: "GetNext() failed because the iterator has not been initialized"; so they get `x` only.)
BASELINE = _SETUP + r"""
result = {
    "baseline_classifier": summary(est.BaselineClassifier(folder("bc"), n_classes=3), Y3, chosen={"x": X}),
    "baseline_regressor": summary(est.BaselineRegressor(folder("br"), label_dimension=1), YR, chosen={"x": X}),
}
"""

DNN = _SETUP + r"""
binary_start = start_checkpoint("db", dnn_shapes(5, [4, 3], 1))
multi_start = start_checkpoint("dm", dnn_shapes(5, [4], 3))
regressor_start = start_checkpoint("dr", dnn_shapes(5, [3], 1))
combined_start = start_checkpoint("cc", dnn_shapes(2, [3], 1) + [("linear/linear_model/c_indicator/weights", (3, 1)),
                                                                    ("linear/linear_model/bias_weights", (1,))])
result = {
    "dnn_binary": summary(est.DNNClassifier([4, 3], cols, folder("db"), warm_start_from=binary_start), Y2),
    "dnn_multi": summary(est.DNNClassifier([4], cols, folder("dm"), n_classes=3, activation_fn=tf.nn.tanh,
                                           optimizer="Adam", warm_start_from=multi_start), Y3),
    "dnn_regressor": summary(est.DNNRegressor([3], cols, folder("dr"), weight_column="w", optimizer="SGD",
                                              warm_start_from=regressor_start), YR),
    "combined_classifier": summary(est.DNNLinearCombinedClassifier(
        folder("cc"), linear_feature_columns=[c_col], dnn_feature_columns=[x_col], dnn_hidden_units=[3],
        warm_start_from=combined_start), Y2),
    "combined_regressor": summary(est.DNNLinearCombinedRegressor(
        folder("cr"), linear_feature_columns=[c_col], dnn_feature_columns=[x_col], dnn_hidden_units=[3],
        warm_start_from=combined_start), YR),
}
"""

AUC = r"""
rng = np.random.RandomState(1)
labels = (rng.rand(60) > 0.6).astype(np.int64)
predictions = np.clip(rng.rand(60) * 0.7 + labels * 0.3, 0.0, 1.0).astype(np.float32)
predictions[:4] = [0.0, 1.0, 0.5, 1.0 / 199.0]
weights = rng.rand(60).astype(np.float32)
result = {}
with tf.Graph().as_default():
    metrics = {}
    for curve in ["ROC", "PR"]:
        for method in ["trapezoidal", "minoring", "majoring", "careful_interpolation"]:
            for weighted in [False, True]:
                for num_thresholds in [200, 7]:
                    key = f"{curve}/{method}/{weighted}/{num_thresholds}"
                    metrics[key] = tf.metrics.auc(labels[:30], predictions[:30], weights[:30] if weighted else None,
                                                  num_thresholds=num_thresholds, curve=curve,
                                                  summation_method=method)
    metrics["explicit_thresholds"] = tf.metrics.auc(labels[:30], predictions[:30], thresholds=[0.25, 0.5, 0.75])
    with tf.Session() as session:
        session.run(tf.local_variables_initializer())
        first = session.run({k: update for k, (_, update) in metrics.items()})
        session.run({k: update for k, (_, update) in metrics.items()})
        result = {"first": first, "second": session.run({k: value for k, (value, _) in metrics.items()})}
"""

DENSE_FEATURES = r"""
table = np.arange(8.0, dtype=np.float32).reshape(4, 2)
columns = [fc.numeric_column("x"),
           fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2,
                               initializer=tf.constant_initializer(table))]
with tf.Graph().as_default():
    features = {"x": tf.constant([[1.0], [2.0]]), "i": tf.constant([[3], [1]], tf.int64)}
    layer = DenseFeatures(columns)
    out = layer(features)
    second = DenseFeatures(columns)(features)
    names = sorted(v.name for v in tf.global_variables())
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        result = {"value": session.run(out), "second": session.run(second), "variables": names}
"""

WEIGHTED_COLUMNS = r"""
values = {"c": np.array([["a", "b"], ["b", "z"], ["q", "a"], ["z", "z"]]),
          "w": np.array([[0.5, 2.0], [1.5, 3.0], [1.0, 0.25], [2.0, 4.0]], np.float32)}
table = np.arange(6.0, dtype=np.float32).reshape(3, 2)
weighted = fc.weighted_categorical_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b", "q"]), "w")
columns = {"indicator": fc.indicator_column(weighted)}
for combiner in ["mean", "sqrtn", "sum"]:
    columns[combiner] = fc.embedding_column(weighted, 2, combiner=combiner, initializer=tf.constant_initializer(table))
result = {"name": weighted.name}
for key, column in columns.items():
    with tf.Graph().as_default():
        out = fc.input_layer({k: tf.constant(v) for k, v in values.items()}, [column])
        with tf.Session() as session:
            session.run([tf.global_variables_initializer(), tf.tables_initializer()])
            result[key] = session.run(out)
"""

CROSSED_COLUMNS = r"""
import os
values = {"c": np.array([["a"], ["b"], ["q"], [""]]), "n": np.array([[3], [7], [-1], [5]], np.int64),
          "m": np.array([["u", "v"], ["w", ""], ["u", "u"], ["v", "w"]]),
          "x": np.array([[0.5], [2.5], [7.0], [1.0]], np.float32)}
vocabulary = fc.categorical_column_with_vocabulary_list("c", ["a", "b", "q"])
bucketized = fc.bucketized_column(fc.numeric_column("x"), [1.0, 3.0])
crosses = {"strings_ints": fc.crossed_column(["c", "n"], 17),
           "with_columns": fc.crossed_column([vocabulary, bucketized, "m"], 23, hash_key=12345),
           "nested": fc.crossed_column([fc.crossed_column(["c", "n"], 5), "m"], 11)}
table = np.arange(46.0, dtype=np.float32).reshape(23, 2)
result = {name: {"name": column.name} for name, column in crosses.items()}
for name, column in crosses.items():
    wrapped = {"indicator": fc.indicator_column(column),
               "embedding": fc.embedding_column(column, 2, combiner="sum",
                                                initializer=tf.constant_initializer(table[:column.num_buckets]))}
    for kind, dense in wrapped.items():
        with tf.Graph().as_default():
            out = fc.input_layer({k: tf.constant(v) for k, v in values.items()}, [dense])
            with tf.Session() as session:
                session.run([tf.global_variables_initializer(), tf.tables_initializer()])
                result[name][kind] = session.run(out)


def crossed_input():
    return tf.data.Dataset.from_tensor_slices(({k: v for k, v in values.items()}, [[1.0], [2.0], [0.5], [3.0]])
                                              ).repeat().batch(4)


regressor = est.LinearRegressor([crosses["with_columns"], fc.numeric_column("x")], os.path.join(model_dir, "lin"))
regressor.train(crossed_input, steps=3)
result["linear_weights"] = regressor.get_variable_value(
    "linear/linear_model/c_X_m_X_x_bucketized/weights")
"""

BATCH_NORM = _SETUP + r"""
shapes = dnn_shapes(5, [4, 3], 1)
shapes += [(f"dnn/hiddenlayer_{i}/batchnorm_{i}/{name}", (size,)) for i, size in enumerate([4, 3])
           for name in ["gamma", "beta"]]
start = start_checkpoint("bn", shapes)
result = {
    "batch_norm": summary(est.DNNClassifier([4, 3], cols, folder("bn"), batch_norm=True, warm_start_from=start), Y2),
    "batch_norm_regressor": summary(est.DNNRegressor([4, 3], cols, folder("bnr"), batch_norm=True,
                                                     optimizer="SGD", warm_start_from=start), YR),
}
"""
