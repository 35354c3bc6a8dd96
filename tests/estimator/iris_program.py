"""The Iris DNNClassifier program run under TensorFlow 2.15 and webflow (estimator_oracle.py runs it).

`iris_program(steps)` gives the source; it expects `data_dir` (tests/data) before it, and `est` (tf.estimator, or
tf.compat.v1.estimator: estimator_oracle's `v1=True`). Both frameworks start
from the same weights: Glorot-uniform values drawn by NumPy (seed 0), saved as a checkpoint that
`warm_start_from` loads; the training input is unshuffled (repeat, then batches of 32), so both see the
same batches and the runs differ only by floating-point rounding.
"""

import os

DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")

_PROGRAM = r"""
import os
NAMES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def load(name):
    table = np.loadtxt(os.path.join(data_dir, name), delimiter=",", skiprows=1, dtype=np.float32)
    return {key: table[:, i] for i, key in enumerate(NAMES)}, table[:, 4].astype(np.int64)


train_x, train_y = load("iris_training.csv")
test_x, test_y = load("iris_test.csv")
rng = np.random.RandomState(0)
shapes = [("dnn/hiddenlayer_0", 4, 10), ("dnn/hiddenlayer_1", 10, 10), ("dnn/logits", 10, 3)]
initial = {}
for scope, fan_in, fan_out in shapes:
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    initial[scope + "/kernel"] = rng.uniform(-limit, limit, (fan_in, fan_out)).astype(np.float32)
    initial[scope + "/bias"] = np.zeros(fan_out, np.float32)
os.makedirs(os.path.join(model_dir, "initial"))
start = os.path.join(model_dir, "initial", "start.ckpt")
with tf.Graph().as_default():
    variables = [tf.Variable(value, name=name) for name, value in initial.items()]
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        tf.train.Saver(variables).save(session, start, write_meta_graph=False)

columns = [fc.numeric_column(key) for key in NAMES]
classifier = est.DNNClassifier(hidden_units=[10, 10], feature_columns=columns, n_classes=3,
                               model_dir=os.path.join(model_dir, "run"), warm_start_from=start)
classifier.train(lambda: tf.data.Dataset.from_tensor_slices((train_x, train_y)).repeat().batch(32), steps=STEPS)
evaluation = classifier.evaluate(lambda: tf.data.Dataset.from_tensor_slices((test_x, test_y)).batch(32))
predictions = classifier.predict(lambda: tf.data.Dataset.from_tensor_slices(test_x).batch(32))
result = {"evaluation": evaluation,
          "probabilities": [p["probabilities"] for p in predictions],
          "variables": {name: classifier.get_variable_value(name) for name in initial}}
"""


def iris_program(steps: int) -> str:
    return f"data_dir = {DATA_DIR!r}\nSTEPS = {steps}\n" + _PROGRAM
