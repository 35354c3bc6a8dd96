"""Programs run under TensorFlow 2.15 and webflow (estimator_oracle.py): SparseTensor features and shared embeddings
in input_layer, DenseFeatures and the premade Estimators. Each sets `result`; `V1` picks tf.compat.v1.estimator."""

_FEATURES = r"""
def sparse_features():
    return {
        "a": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 1], [3, 0]],
                             tf.constant([1, 3, 3, 2, 0, 1], tf.int64), [4, 3]),
        "wt": tf.SparseTensor([[0, 0], [0, 1], [0, 2], [1, 0], [2, 1], [3, 0]],
                              tf.constant([0.5, 2.0, 1.0, 3.0, 1.5, 0.25]), [4, 3]),
        "b": tf.constant([[2], [1], [0], [3]], tf.int64),
        "w": tf.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 0]], tf.constant(["x", "y", "x", "q"]), [4, 2]),
        "h": tf.SparseTensorValue(np.array([[0, 0], [1, 1], [3, 0], [3, 1]]), np.array(["cat", "dog", "emu", "cat"]),
                                  np.array([4, 2])),
        "n": tf.SparseTensor([[0, 0], [2, 0], [2, 1]], tf.constant([7, 8, 9], tf.int64), [4, 2]),
    }


a = fc.categorical_column_with_identity("a", 4)
b = fc.categorical_column_with_identity("b", 4)
w = fc.categorical_column_with_vocabulary_list("w", ["x", "y"])
"""

# Every categorical kind read from SparseTensors, through indicator and embedding columns (each combiner):
# outputs, variable names and the gradients of a weighted sum of the outputs.
SPARSE_LAYER = _FEATURES + r"""
table = np.arange(8.0, dtype=np.float32).reshape(4, 2) / 4 - 0.5
init = tf.constant_initializer(table)
columns = {
    "identity": fc.indicator_column(a),
    "vocabulary": fc.indicator_column(w),
    "vocabulary_oov": fc.indicator_column(fc.categorical_column_with_vocabulary_list("w", ["y", "x"],
                                                                                     num_oov_buckets=2)),
    "hash": fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 5)),
    "hash_int": fc.indicator_column(fc.categorical_column_with_hash_bucket("n", 3, dtype=tf.int64)),
    "weighted": fc.indicator_column(fc.weighted_categorical_column(a, "wt")),
    "crossed_raw": fc.indicator_column(fc.crossed_column(["w", "b"], 7)),
    "crossed_columns": fc.indicator_column(fc.crossed_column([a, w], 11)),
    "mean": fc.embedding_column(a, 2, initializer=init),
    "sum": fc.embedding_column(a, 2, combiner="sum", initializer=init),
    "sqrtn": fc.embedding_column(a, 2, combiner="sqrtn", initializer=init),
    "weighted_sqrtn": fc.embedding_column(fc.weighted_categorical_column(a, "wt"), 2, combiner="sqrtn",
                                          initializer=init),
    "vocabulary_mean": fc.embedding_column(w, 2, initializer=tf.constant_initializer(table[:2])),
}


def run_layer(column):
    with tf.Graph().as_default():
        out = fc.input_layer(sparse_features(), [column])
        variables = tf.global_variables()
        scale = tf.constant(np.arange(1.0, 1.0 + 4 * int(out.shape[1])).reshape(4, -1), tf.float32)
        grads = tf.gradients(tf.reduce_sum(out * scale), variables) if variables else []
        grads = [tf.convert_to_tensor(g) for g in grads]
        with tf.Session() as session:
            session.run([tf.global_variables_initializer(), tf.tables_initializer()])
            value, grad_values = session.run([out, grads])
    return {"value": value, "variables": [v.name for v in variables], "grads": grad_values}


result = {name: run_layer(column) for name, column in columns.items()}
try:
    fc.input_layer({"x": tf.SparseTensor([[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("x")])
except ValueError as error:
    result["numeric_error"] = str(error)
"""

# Shared tables: TF1's shared_embedding_columns in input_layer (twice: the second layer reuses the table), TF2's
# shared_embeddings in DenseFeatures; names, outputs, gradients from every user, and input_layer refusing TF2's.
SHARED = _FEATURES + r"""
import tensorflow as tf2   # replaced by webflow in webflow's run
DenseFeatures = getattr(fc, "DenseFeatures", None) or tf.keras.layers.DenseFeatures
table = np.arange(8.0, dtype=np.float32).reshape(4, 2) / 4 - 0.5
result = {}
for api in ["v1", "v2"]:
    with tf.Graph().as_default():
        make = fc.shared_embedding_columns if api == "v1" else tf2.feature_column.shared_embeddings
        shared = make([b, fc.weighted_categorical_column(a, "wt")], 2, combiner="sqrtn",
                      initializer=tf.constant_initializer(table))
        features = sparse_features()
        if api == "v1":
            out = fc.input_layer(features, shared + [fc.indicator_column(w)])
            again = fc.input_layer(features, shared[:1])
        else:
            out = DenseFeatures(shared + [fc.indicator_column(w)])(features)
            again = DenseFeatures(shared[:1])(features)
            try:
                fc.input_layer(features, shared)
            except ValueError as error:
                result["input_layer_error"] = str(error)
        variables = tf.global_variables()
        scale = tf.constant(np.arange(1.0, 1.0 + 4 * int(out.shape[1])).reshape(4, -1), tf.float32)
        grads = [tf.convert_to_tensor(g) for g in tf.gradients(tf.reduce_sum(out * scale) + tf.reduce_sum(again),
                                                              variables)]
        with tf.Session() as session:
            session.run([tf.global_variables_initializer(), tf.tables_initializer()])
            values = session.run({"out": out, "again": again, "grads": grads})
        result[api] = {"names": [c.name for c in shared], "variables": [v.name for v in variables], **values}
"""

# Premade Estimators on SparseTensor features (an input_fn returning tensors) with shared embeddings; DNNs start
# from known weights (warm_start_from), linear models from zeros.
ESTIMATORS = _FEATURES + r"""
import os
import tensorflow as tf2   # replaced by webflow in webflow's run
rng = np.random.RandomState(3)


def input_fn():
    labels = tf.constant([[1], [0], [1], [0]], tf.int64)
    return tf.data.Dataset.from_tensors((sparse_features(), labels)).repeat()


def predict_fn():
    return tf.data.Dataset.from_tensors(sparse_features())


def start_checkpoint(name, shapes):
    path = os.path.join(model_dir, name + "_start", "start.ckpt")
    os.makedirs(os.path.dirname(path))
    with tf.Graph().as_default():
        variables = [tf.Variable(rng.uniform(-0.6, 0.6, shape).astype(np.float32), name=key) for key, shape in shapes]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            tf.train.Saver(variables).save(session, path, write_meta_graph=False)
    return path


def trained(estimator, steps=3):
    estimator.train(input_fn, steps=steps)
    predictions = [p["logits"] for p in estimator.predict(predict_fn)]
    return {"variables": {n: estimator.get_variable_value(n) for n in estimator.get_variable_names()},
            "predictions": predictions, "evaluation": estimator.evaluate(input_fn, steps=1)}


with tf.Graph().as_default():   # shared embeddings are made in graph mode (eager execution refuses them)
    make = fc.shared_embedding_columns if V1 else tf2.feature_column.shared_embeddings
    shared = make([a, b], 2)
table_name = ("dnn/input_from_feature_columns/input_layer/a_b_shared_embedding/embedding_weights" if V1
              else "a_b_shared_embedding")
hidden = [("dnn/hiddenlayer_0/kernel", (6, 3)), ("dnn/hiddenlayer_0/bias", (3,)), ("dnn/logits/kernel", (3, 1)),
          ("dnn/logits/bias", (1,)), (table_name, (4, 2))]
start = start_checkpoint("dnn", hidden)
dnn = est.DNNClassifier([3], shared + [fc.indicator_column(w)], os.path.join(model_dir, "dnn"), optimizer="SGD",
                        warm_start_from=start)
result = {"dnn": trained(dnn),
          "linear": trained(est.LinearClassifier([a, w, fc.crossed_column(["w", b], 5),
                                                  fc.weighted_categorical_column(a, "wt")],
                                                 os.path.join(model_dir, "linear"), sparse_combiner="mean"))}
"""
