"""Premade Estimators' heads, optimizers, warm starting, AUC and DenseFeatures, checked against NumPy.

Each expected figure is computed here in NumPy from the model's own predictions or from the formulas of
TensorFlow's documentation (no TensorFlow needed); test_canned_vs_tf215.py compares with TF 2.15 itself.
"""

import numpy as np
import pytest

import webflow
import webflow.compat.v1 as tf

est, fc = webflow.estimator, tf.feature_column  # TF 2.15's tf.estimator: the V2 classes
rng = np.random.RandomState(5)
X = rng.rand(48, 3).astype(np.float32)
Y = (X @ np.array([2.0, -1.0, 0.5]) + 0.2 * rng.randn(48) > 0.6).astype(np.int64)
COLUMNS = [fc.numeric_column("x", shape=(3,))]


def _input(y=Y, repeat=False, batch=16):
    def input_fn():
        data = tf.data.Dataset.from_tensor_slices(({"x": X}, y))
        return (data.repeat() if repeat else data).batch(batch)
    return input_fn


def _keras_auc(labels, scores, curve, n=200):
    """Keras's AUC from scratch: bucket ceil(p * (n - 1)) - 1, cumulative counts, trapezoid or PR interpolation."""
    bucket = np.maximum(np.ceil(np.clip(scores, 0, 1) * (n - 1)) - 1, 0)
    tp = np.array([np.sum((bucket >= i) & (labels == 1)) for i in range(n)], np.float64)
    fp = np.array([np.sum((bucket >= i) & (labels == 0)) for i in range(n)], np.float64)
    fn, tn = labels.sum() - tp, (1 - labels).sum() - fp
    if curve == "ROC":
        tpr, fpr = tp / (tp + fn), np.where(fp + tn > 0, fp / np.maximum(fp + tn, 1e-30), 0)
        return np.sum((fpr[:-1] - fpr[1:]) * (tpr[:-1] + tpr[1:]) / 2)
    total = 0.0
    for i in range(n - 1):
        dtp, p_a, p_b = tp[i] - tp[i + 1], tp[i] + fp[i], tp[i + 1] + fp[i + 1]
        if p_a - p_b <= 0 or tp[i + 1] + fn[i + 1] <= 0:
            continue
        slope = dtp / (p_a - p_b)
        intercept = tp[i + 1] - slope * p_b
        ratio = p_a / p_b if p_a > 0 and p_b > 0 else 1.0
        total += slope * (dtp + intercept * np.log(ratio)) / (tp[i + 1] + fn[i + 1])
    return total


def test_binary_head_metrics_follow_from_the_predictions(tmp_path):
    classifier = est.LinearClassifier(COLUMNS, str(tmp_path))
    classifier.train(_input(repeat=True), steps=20)
    results = classifier.evaluate(_input())
    predictions = list(classifier.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(16)))
    logistic = np.array([p["logistic"][0] for p in predictions], np.float64)
    logits = np.array([p["logits"][0] for p in predictions], np.float64)
    classes = (logits > 0).astype(np.int64)
    assert [p["class_ids"][0] for p in predictions] == classes.tolist()
    assert [p["classes"][0] for p in predictions] == [str(c).encode() for c in classes]
    losses = np.maximum(logits, 0) - logits * Y + np.log1p(np.exp(-np.abs(logits)))
    true_positives = np.sum((classes == 1) & (Y == 1))
    expected = {"accuracy": np.mean(classes == Y), "average_loss": losses.mean(), "label/mean": Y.mean(),
                "prediction/mean": logistic.mean(), "accuracy_baseline": max(Y.mean(), 1 - Y.mean()),
                "precision": true_positives / np.sum(classes == 1), "recall": true_positives / np.sum(Y == 1),
                "auc": _keras_auc(Y, logistic, "ROC"), "auc_precision_recall": _keras_auc(Y, logistic, "PR"),
                # 'loss': the mean of the three batches' mean losses (16 examples each)
                "loss": np.mean([losses[i:i + 16].mean() for i in (0, 16, 32)])}
    assert sorted(results) == sorted(list(expected) + ["global_step"])
    for key, value in expected.items():
        np.testing.assert_allclose(results[key], value, rtol=1e-5, atol=1e-6, err_msg=key)


def test_multi_class_head_with_a_label_vocabulary_and_weights(tmp_path):
    names = np.array(["cat", "dog", "emu"])
    labels = names[(X[:, 0] * 3).astype(int)]
    weights = (1.0 + X[:, 1]).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": X, "w": weights}, labels)).batch(48)
    classifier = est.DNNClassifier([5], COLUMNS, str(tmp_path), n_classes=3, weight_column="w",
                                   label_vocabulary=["cat", "dog", "emu"], optimizer="Adam")
    classifier.train(input_fn, steps=30)
    results = classifier.evaluate(input_fn)
    predictions = list(classifier.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(48)))
    probabilities = np.array([p["probabilities"] for p in predictions], np.float64)
    ids = np.array([{"cat": 0, "dog": 1, "emu": 2}[label] for label in labels])
    losses = -np.log(probabilities[np.arange(48), ids])
    np.testing.assert_allclose(results["average_loss"], np.sum(weights * losses) / weights.sum(), rtol=1e-5)
    np.testing.assert_allclose(results["loss"], np.mean(weights * losses), rtol=1e-5)  # SUM_OVER_BATCH_SIZE
    correct = probabilities.argmax(1) == ids
    np.testing.assert_allclose(results["accuracy"], np.sum(weights * correct) / weights.sum(), rtol=1e-6)
    assert predictions[0]["all_classes"].tolist() == [b"cat", b"dog", b"emu"]


def test_regression_head_loss_reductions(tmp_path):
    target = X @ np.array([[1.0], [2.0], [-1.0]], np.float32)
    for reduction, scale in (("sum_over_batch_size", 1 / 48), ("sum", 1.0)):
        regressor = est.DNNRegressor([4], COLUMNS, str(tmp_path / reduction), loss_reduction=reduction)
        regressor.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, target)).batch(48), steps=1)
        results = regressor.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, target)).batch(48))
        predictions = np.array([p["predictions"][0] for p in regressor.predict(
            lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(48))])
        squared = (predictions - target[:, 0]) ** 2
        np.testing.assert_allclose(results["average_loss"], squared.mean(), rtol=1e-5)
        np.testing.assert_allclose(results["loss"], squared.sum() * scale, rtol=1e-5)
        np.testing.assert_allclose(results["prediction/mean"], predictions.mean(), rtol=1e-5)


def test_adagrad_default_learning_rate_and_variable_names(tmp_path):
    # DNN weights warm-started from known values; one step of Keras Adagrad (lr 0.001, accumulator 0.1).
    start = str(tmp_path / "start")
    values = {"dnn/hiddenlayer_0/kernel": rng.uniform(-1, 1, (3, 2)).astype(np.float32),
              "dnn/hiddenlayer_0/bias": np.zeros(2, np.float32),
              "dnn/logits/kernel": rng.uniform(-1, 1, (2, 1)).astype(np.float32),
              "dnn/logits/bias": np.zeros(1, np.float32)}
    with tf.Graph().as_default():
        variables = [tf.Variable(v, name=k) for k, v in values.items()]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            tf.train.Saver(variables).save(session, start, write_meta_graph=False)
    regressor = est.DNNRegressor([2], COLUMNS, str(tmp_path / "run"), warm_start_from=start)
    target = X[:, :1] * 3.0
    regressor.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, target)).batch(48), steps=1)
    hidden = np.maximum(X @ values["dnn/hiddenlayer_0/kernel"], 0)
    error = hidden @ values["dnn/logits/kernel"] - target
    gradient = 2 * error.mean()  # d loss / d logits bias
    expected_bias = -0.001 * gradient / (np.sqrt(0.1 + gradient ** 2) + 1e-7)
    np.testing.assert_allclose(regressor.get_variable_value("dnn/logits/bias"), [expected_bias], rtol=1e-4)
    assert "training/Adagrad/dnn/logits/bias/accumulator" in regressor.get_variable_names()


def test_warm_start_needs_the_variables_in_the_checkpoint(tmp_path):
    first = est.LinearRegressor(COLUMNS, str(tmp_path / "a"), optimizer="SGD")
    first.train(_input(X[:, 0], repeat=True), steps=3)
    settings = est.WarmStartSettings(str(tmp_path / "a"), vars_to_warm_start=".*bias.*")
    second = est.LinearRegressor(COLUMNS, str(tmp_path / "b"), optimizer="SGD", warm_start_from=settings)
    second.train(_input(X[:, 0], repeat=True), steps=1)
    with pytest.raises(ValueError, match="not found"):
        est.DNNRegressor([2], COLUMNS, str(tmp_path / "c"), warm_start_from=str(tmp_path / "a")).train(
            _input(X[:, 0]), steps=1)


def test_constructor_checks():
    with pytest.raises(ValueError, match="n_classes must be > 1"):
        est.DNNClassifier([3], COLUMNS, n_classes=1)
    with pytest.raises(ValueError, match="hidden_units must be defined"):
        est.DNNClassifier([], COLUMNS)
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        est.LinearClassifier(COLUMNS, loss_reduction="mean")
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns"):
        est.DNNLinearCombinedClassifier()


def test_dropout_is_used_in_training_only(tmp_path):
    classifier = est.DNNClassifier([8], COLUMNS, str(tmp_path), dropout=0.5, optimizer="Adam")
    classifier.train(_input(repeat=True), steps=5)
    predict = lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(48)  # noqa: E731
    first = [p["logits"] for p in classifier.predict(predict)]
    second = [p["logits"] for p in classifier.predict(predict)]
    np.testing.assert_array_equal(first, second)  # no dropout when predicting


def _numpy_v1_auc(labels, scores, curve, method, n=200):
    thresholds = [-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7]
    tp = np.array([np.sum((scores > t) & (labels == 1)) for t in thresholds], np.float64)
    fp = np.array([np.sum((scores > t) & (labels == 0)) for t in thresholds], np.float64)
    fn, tn = labels.sum() - tp, (1 - labels).sum() - fp
    recall = (tp + 1e-7) / (tp + fn + 1e-7)
    x, y = (fp / (fp + tn + 1e-7), recall) if curve == "ROC" else (recall, (tp + 1e-7) / (tp + fp + 1e-7))
    heights = {"trapezoidal": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[method]
    return np.sum((x[:-1] - x[1:]) * heights)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("method", ["trapezoidal", "minoring", "majoring"])
def test_v1_auc_against_numpy(curve, method):
    labels = (rng.rand(40) > 0.5).astype(np.int64)
    scores = np.clip(rng.rand(40) * 0.8 + 0.2 * labels, 0, 1).astype(np.float32)
    with tf.Graph().as_default():
        value, update = tf.metrics.auc(labels, scores, curve=curve, summation_method=method)
        with tf.Session() as session:
            session.run(tf.local_variables_initializer())
            session.run(update)
            np.testing.assert_allclose(session.run(value), _numpy_v1_auc(labels, scores, curve, method), rtol=1e-5)
        with pytest.raises(ValueError, match="curve must be either ROC or PR"):
            tf.metrics.auc(labels, scores, curve="XY")


def test_dense_features_equals_input_layer():
    columns = [fc.numeric_column("a"), fc.indicator_column(fc.categorical_column_with_identity("i", 3))]
    with tf.Graph().as_default():
        features = {"a": tf.constant([[1.5], [2.5]]), "i": tf.constant([[2], [0]], tf.int64)}
        layer = fc.DenseFeatures(columns)
        with tf.Session() as session:
            np.testing.assert_array_equal(session.run(layer(features)),
                                          session.run(fc.input_layer(features, columns)))
        assert layer.variables == []


def test_a_keras_optimizer_object_takes_the_same_steps_as_its_name(tmp_path):
    # A name gets the linear models' learning rate 0.2: an object at 0.2 must take the very same steps.
    runs = {}
    for key, optimizer in (("name", "Adam"), ("object", webflow.keras.optimizers.Adam(0.2)),
                           ("slower", webflow.keras.optimizers.Adam(0.01))):
        regressor = est.LinearRegressor(COLUMNS, str(tmp_path / key), optimizer=optimizer)
        regressor.train(_input(X[:, 0], repeat=True), steps=3)
        runs[key] = regressor.get_variable_value("linear/linear_model/x/weights")
    np.testing.assert_allclose(runs["object"], runs["name"], rtol=1e-6)
    assert np.abs(runs["slower"]).max() < np.abs(runs["name"]).max()
    amsgrad = est.LinearRegressor(COLUMNS, str(tmp_path / "ams"), optimizer=webflow.keras.optimizers.Adam(amsgrad=True))
    with pytest.raises(NotImplementedError, match="amsgrad=False only"):
        amsgrad.train(_input(X[:, 0]), steps=1)
