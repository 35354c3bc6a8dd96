"""Premade LinearRegressor: least squares reached, and TensorFlow 2.15's numbers step by step."""

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from programs import LINEAR_REGRESSOR

import webflow
import webflow.compat.v1 as tf

est, fc = webflow.estimator, tf.feature_column  # TF 2.15's tf.estimator: the V2 classes


def test_full_batch_sgd_reaches_the_least_squares_solution(tmp_path):
    rng = np.random.RandomState(3)
    x = rng.rand(50, 2).astype(np.float32)
    y = (x @ np.array([2.0, -1.0]) + 0.5 + 0.05 * rng.randn(50)).astype(np.float32)
    design = np.concatenate([x, np.ones((50, 1))], axis=1).astype(np.float64)
    solution = np.linalg.lstsq(design, y.astype(np.float64), rcond=None)[0]  # the closed form
    regressor = est.LinearRegressor([fc.numeric_column("x", shape=(2,))], model_dir=str(tmp_path), optimizer="SGD")
    regressor.train(est.inputs.numpy_input_fn({"x": x}, y, batch_size=50, num_epochs=None, shuffle=False),
                    steps=1500)
    weights = regressor.get_variable_value("linear/linear_model/x/weights")[:, 0]
    bias = regressor.get_variable_value("linear/linear_model/bias_weights")
    np.testing.assert_allclose(np.concatenate([weights, bias]), solution, atol=2e-3)
    results = regressor.evaluate(est.inputs.numpy_input_fn({"x": x}, y, batch_size=50, shuffle=False))
    residual = np.mean((design @ solution - y) ** 2)
    np.testing.assert_allclose(results["average_loss"], residual, rtol=1e-3)
    np.testing.assert_allclose(results["label/mean"], y.mean(), rtol=1e-6)


def test_default_ftrl_takes_keras_ftrl_steps(tmp_path):
    # One full-batch step from zero weights: accumulator 0.1 + g^2, linear = g, w = -g * lr / sqrt(accumulator).
    x = np.array([[1.0], [2.0], [3.0], [4.0]], np.float32)
    y = np.array([1.0, 3.0, 2.0, 5.0], np.float32)
    regressor = est.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path))
    regressor.train(est.inputs.numpy_input_fn({"x": x}, y, batch_size=4, shuffle=False), steps=1)
    gradient = np.array([np.mean(-2 * y * x[:, 0]), np.mean(-2 * y)])  # d mean((w.x + b - y)^2) at zero
    expected = -gradient * 0.2 / np.sqrt(0.1 + gradient ** 2)
    got = [regressor.get_variable_value("linear/linear_model/x/weights")[0, 0],
           regressor.get_variable_value("linear/linear_model/bias_weights")[0]]
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    np.testing.assert_allclose(regressor.get_variable_value("training/Ftrl/linear/linear_model/x/weights/linear"),
                               [[gradient[0]]], rtol=1e-5)


def test_unknown_optimizer_name_is_refused(tmp_path):
    with pytest.raises(ValueError, match="Unsupported optimizer name: Nope"):
        est.LinearRegressor([fc.numeric_column("x")], model_dir=str(tmp_path), optimizer="Nope")


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
def test_linear_regressor_matches_tensorflow_2_15():
    expected, got = run_tf215(LINEAR_REGRESSOR), run_webflow(LINEAR_REGRESSOR)
    assert sorted(got["variables"]) == sorted(expected["variables"])
    for name, value in expected["variables"].items():
        np.testing.assert_allclose(got["variables"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    assert sorted(got["evaluation"]) == sorted(expected["evaluation"])
    for name, value in expected["evaluation"].items():
        np.testing.assert_allclose(got["evaluation"][name], value, rtol=1e-5, err_msg=name)
    np.testing.assert_allclose([p["predictions"] for p in got["predictions"]],
                               [p["predictions"] for p in expected["predictions"]], rtol=1e-5)
