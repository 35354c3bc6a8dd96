"""tf.estimator.Estimator: training equals plain gradient descent in NumPy, checkpoints and resume, evaluate,
predict, hooks, summaries; and the same program under TensorFlow 2.15."""

import glob
import os

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from programs import LINEAR_ESTIMATOR, NUMPY_INPUT, SUMMARY_STEPS

import webflow.compat.v1 as tf

est = tf.estimator
RNG = np.random.RandomState(0)
X = RNG.rand(64, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
W0 = np.array([[0.1], [0.2], [0.3]], np.float32)
LR, BATCH = 0.1, 16


def _train_input():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(BATCH)


def _model_fn(features, labels, mode, params):
    w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(W0))
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    prediction = tf.matmul(features["x"], w) + b
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"y": prediction})
    loss = tf.reduce_mean(tf.square(prediction - labels))
    train_op = tf.train.GradientDescentOptimizer(params["lr"]).minimize(loss, global_step=tf.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op,
                             eval_metric_ops={"mse": tf.metrics.mean_squared_error(labels, prediction)})


def _numpy_sgd(steps: int) -> tuple:
    """The oracle: full-precision gradient descent on the mean squared error over the same batches."""
    w, b = W0.astype(np.float64), np.zeros(1)
    for step in range(steps):
        start = (step * BATCH) % len(X)
        x, y = X[start:start + BATCH].astype(np.float64), Y[start:start + BATCH].astype(np.float64)
        error = x @ w + b - y
        w, b = w - LR * 2 * x.T @ error / BATCH, b - LR * 2 * error.mean(0)
    return w, b


def _estimator(model_dir, **config) -> est.Estimator:
    return est.Estimator(_model_fn, str(model_dir), config=est.RunConfig(**config), params={"lr": LR})


def test_training_equals_gradient_descent_and_checkpoints_follow_the_config(tmp_path):
    estimator = _estimator(tmp_path, save_checkpoints_steps=7)
    estimator.train(_train_input, steps=10)
    w, b = _numpy_sgd(10)
    np.testing.assert_allclose(estimator.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(estimator.get_variable_value("b"), b, rtol=1e-5, atol=1e-6)
    assert estimator.get_variable_value("global_step") == 10
    saved = sorted(os.path.basename(p)[:-6] for p in glob.glob(str(tmp_path / "*.index")))
    assert saved == ["model.ckpt-0", "model.ckpt-10", "model.ckpt-7"]  # at the start, every 7, at the end
    assert estimator.latest_checkpoint().endswith("model.ckpt-10")


def test_a_new_estimator_resumes_from_the_latest_checkpoint(tmp_path):
    _estimator(tmp_path).train(_train_input, steps=4)
    again = _estimator(tmp_path)
    again.train(_train_input, steps=3)  # `steps` adds to the restored global step
    assert again.get_variable_value("global_step") == 7
    again.train(_train_input, max_steps=5)  # already past: skipped
    assert again.get_variable_value("global_step") == 7
    again.train(_train_input, max_steps=9)  # `max_steps` caps
    assert again.get_variable_value("global_step") == 9
    # the dataset restarts with each train call: batches 0-3, 0-2, 0-1 of the repeated data
    w, b = W0.astype(np.float64), np.zeros(1)
    for steps in (4, 3, 2):
        w, b = _continue_sgd(w, b, steps)
    np.testing.assert_allclose(again.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)


def _continue_sgd(w, b, steps):
    for step in range(steps):
        x, y = X[step * BATCH:(step + 1) * BATCH].astype(np.float64), Y[step * BATCH:(step + 1) * BATCH]
        error = x @ w + b - y
        w, b = w - LR * 2 * x.T @ error / BATCH, b - LR * 2 * error.mean(0)
    return w, b


def test_evaluate_and_predict_use_the_trained_variables(tmp_path):
    estimator = _estimator(tmp_path)
    estimator.train(_train_input, steps=6)
    w, b = estimator.get_variable_value("w"), estimator.get_variable_value("b")
    results = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(20))
    errors = (X @ w + b - Y) ** 2
    batch_losses = [errors[i:i + 20].mean() for i in range(0, 64, 20)]  # 'loss' is the mean of batch losses
    assert sorted(results) == ["global_step", "loss", "mse"]
    assert results["global_step"] == 6
    np.testing.assert_allclose(results["loss"], np.mean(batch_losses), rtol=1e-5)
    np.testing.assert_allclose(results["mse"], errors.mean(), rtol=1e-5)
    limited = estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(20), steps=1)
    np.testing.assert_allclose(limited["mse"], errors[:20].mean(), rtol=1e-5)
    predictions = estimator.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X[:5]}).batch(2))
    assert not isinstance(predictions, (list, tuple))  # a generator
    got = np.array([p["y"] for p in predictions])
    np.testing.assert_allclose(got, X[:5] @ w + b, rtol=1e-5)


def test_summaries_are_written_to_model_dir_and_eval(tmp_path):
    estimator = _estimator(tmp_path, save_summary_steps=3)
    estimator.train(_train_input, steps=7)
    estimator.evaluate(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(32))
    loss_steps = [event.step for path in glob.glob(str(tmp_path / "events.out.tfevents.*"))
                  for event in tf.train.summary_iterator(path)
                  if any(value.tag == "loss" for value in event.summary.value)]
    assert loss_steps == [1, 4, 7]  # the first step, then every 3
    eval_tags = {value.tag for path in glob.glob(str(tmp_path / "eval" / "events.out.tfevents.*"))
                 for event in tf.train.summary_iterator(path) for value in event.summary.value}
    assert {"loss", "mse"} <= eval_tags


def test_summary_steps_over_two_train_calls():
    # TensorFlow 2.15 gives these steps in most runs of SUMMARY_STEPS; its SummarySaverHook reads the global
    # step while train_op increments it, so it sometimes gives [1, 3, 6, 8, 11]: no live comparison here.
    assert run_webflow(SUMMARY_STEPS) == [[step, ["loss"]] for step in (1, 4, 7, 8, 11)]


class _Counting(est.SessionRunHook):
    def __init__(self):
        self.calls = {"begin": 0, "after_create_session": 0, "before_run": 0, "after_run": 0, "end": 0}
        self.losses = []

    def begin(self):
        self.calls["begin"] += 1
        self.loss = tf.get_default_graph().get_tensor_by_name("Mean:0")

    def after_create_session(self, session, coord):
        self.calls["after_create_session"] += 1

    def before_run(self, run_context):
        self.calls["before_run"] += 1
        return est.SessionRunArgs(self.loss)

    def after_run(self, run_context, run_values):
        self.calls["after_run"] += 1
        self.losses.append(run_values.results)
        if len(self.losses) == 4:
            run_context.request_stop()

    def end(self, session):
        self.calls["end"] += 1


def test_hooks_see_every_step_and_can_stop_training(tmp_path):
    hook = _Counting()
    estimator = _estimator(tmp_path)
    estimator.train(_train_input, hooks=[hook], steps=100)
    assert hook.calls == {"begin": 1, "after_create_session": 1, "before_run": 4, "after_run": 4, "end": 1}
    assert estimator.get_variable_value("global_step") == 4
    w, b = W0.astype(np.float64), np.zeros(1)
    first_loss = np.mean((X[:BATCH] @ w + b - Y[:BATCH]) ** 2)
    np.testing.assert_allclose(hook.losses[0], first_loss, rtol=1e-5)
    estimator.train(_train_input, hooks=[est.StopAtStepHook(last_step=6)])
    assert estimator.get_variable_value("global_step") == 6


def test_logging_tensor_hook_logs_every_n_iter(tmp_path):
    import logging

    class Keep(logging.Handler):
        def __init__(self):
            super().__init__()
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage())

    logger, keep = tf.get_logger(), Keep()
    level = logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)
    try:
        hook = est.LoggingTensorHook({"the_loss": "Mean:0"}, every_n_iter=2)
        _estimator(tmp_path, log_step_count_steps=None).train(_train_input, hooks=[hook], steps=5)
    finally:
        logger.removeHandler(keep)
        logger.setLevel(level)
    assert len([m for m in keep.messages if m.startswith("the_loss = ")]) == 3  # iterations 0, 2, 4
    assert any(m.startswith("Loss for final step: ") for m in keep.messages)


def test_argument_errors_as_tensorflow_raises_them(tmp_path):
    estimator = _estimator(tmp_path)
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps."):
        estimator.train(_train_input, steps=1, max_steps=2)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        estimator.train(_train_input, steps=0)
    with pytest.raises(ValueError, match="Missing train_op."):
        est.EstimatorSpec(est.ModeKeys.TRAIN, loss=tf.constant(1.0))
    with pytest.raises(ValueError, match="must include features argument"):
        est.Estimator(lambda x, mode: None)
    with pytest.raises(ValueError, match="shuffle must be provided"):
        est.inputs.numpy_input_fn({"x": X}, Y)
    assert est.ModeKeys.PREDICT == "infer"


def test_numpy_input_fn_batches_in_order_and_ends_after_num_epochs(tmp_path):
    result = run_webflow(NUMPY_INPUT)
    assert result["step"] == 5  # 2 epochs of 5 rows in batches of 2: 3 + 2 batches (the epochs run on)
    xs = np.arange(10, dtype=np.float32).reshape(5, 2)
    ys = np.arange(5, dtype=np.float32).reshape(5, 1)
    w = np.array([[0.5], [-0.25]])
    rows = np.concatenate([np.arange(5), np.arange(5)])
    for start in range(0, 10, 2):
        x, y = xs[rows[start:start + 2]], ys[rows[start:start + 2]]
        w = w - 0.01 * 2 * x.T @ (x @ w - y)
    np.testing.assert_allclose(result["w"], w, rtol=1e-5)
    np.testing.assert_allclose(result["predictions"], xs @ w, rtol=1e-5)


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
@pytest.mark.parametrize("program", [LINEAR_ESTIMATOR, NUMPY_INPUT], ids=["linear", "numpy_input"])
def test_same_results_as_tensorflow_2_15(program):
    expected, got = run_tf215(program), run_webflow(program)
    _assert_close(got, expected)


def _assert_close(got, expected, where="result"):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            _assert_close(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list) and any(isinstance(item, (dict, str, list)) for item in expected):
        assert len(got) == len(expected), where
        for index, (a, b) in enumerate(zip(got, expected)):
            _assert_close(a, b, f"{where}[{index}]")
    elif isinstance(expected, str):
        assert got == expected, where
    else:
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=1e-7, err_msg=where)


def test_works_from_the_tf2_facade_while_eager(tmp_path):
    import webflow as wf

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer(W0))
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = wf.reduce_mean(wf.square(wf.matmul(features["x"], w) + b - labels))
        train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss, global_step=tf.train.get_global_step())
        return wf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    assert wf.executing_eagerly()
    estimator = wf.estimator.Estimator(model_fn, str(tmp_path))
    estimator.train(lambda: wf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(BATCH), steps=10)
    assert wf.executing_eagerly()
    w, b = _numpy_sgd(10)
    np.testing.assert_allclose(estimator.get_variable_value("w"), w, rtol=1e-5, atol=1e-6)
    results = estimator.evaluate(lambda: wf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(64))
    np.testing.assert_allclose(results["loss"], np.mean((X @ w + b - Y) ** 2), rtol=1e-5)
