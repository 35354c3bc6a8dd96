"""A premade DNNClassifier(hidden_units=[10, 10], n_classes=3) on the Iris data shipped in tests/data.

The program (iris_program.py) trains 20,000 steps of batches of 32 (unshuffled, repeated) with the default
optimizer (Keras's Adagrad, learning rate 0.001), starting from Glorot-uniform weights drawn by NumPy with
seed 0 and loaded by `warm_start_from`, then evaluates on the 30 test rows.

TensorFlow 2.15 (tensorflow-estimator 2.15, Python 3.11), run once by hand on 2026-11-26 with
`run_tf215(iris_program(20000))` from estimator_oracle.py, gave:
    accuracy 0.96666664 (29 of 30), average_loss 0.48943391, global_step 20000.
(At 5,000 steps: accuracy 0.73333335, average_loss 0.72336704; at 10,000: 0.9, 0.59977776.)
The same program with tf.compat.v1.estimator's DNNClassifier (the TF1 class: SUM loss, TF1 Adagrad at 0.05),
`run_tf215(iris_program(2000), v1=True)`, 2,000 steps: accuracy 0.96666664, average_loss 0.05291652,
loss 1.5874956 (the mean of the batches' summed losses).
webflow must reach the same accuracy and a loss within 1e-4 (the same weights and batches: only rounding
differs); with WEBFLOW_TF215_PYTHON set the test also runs TensorFlow 2.15 live and compares the trained
weights and the test-set probabilities.
"""

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from iris_program import iris_program

STEPS = 20000
TF215_ACCURACY, TF215_AVERAGE_LOSS = 0.96666664, 0.48943391
V1_STEPS = 2000
V1_TF215 = {"accuracy": 0.96666664, "average_loss": 0.05291652, "loss": 1.5874956}


@pytest.fixture(scope="module")
def webflow_run():
    return run_webflow(iris_program(STEPS))


def test_dnn_classifier_reaches_tensorflow_2_15_accuracy_on_iris(webflow_run):
    evaluation = webflow_run["evaluation"]
    assert evaluation["global_step"] == STEPS
    assert sorted(evaluation) == ["accuracy", "average_loss", "global_step", "loss"]
    np.testing.assert_allclose(evaluation["accuracy"], TF215_ACCURACY, atol=1e-6)
    np.testing.assert_allclose(evaluation["average_loss"], TF215_AVERAGE_LOSS, atol=1e-4)
    predicted = np.argmax(webflow_run["probabilities"], axis=1)
    labels = np.loadtxt(__file__.replace("estimator/test_iris_dnn.py", "data/iris_test.csv"), delimiter=",",
                        skiprows=1)[:, 4]
    np.testing.assert_allclose(np.mean(predicted == labels), evaluation["accuracy"], atol=1e-6)


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
def test_dnn_classifier_matches_tensorflow_2_15_live(webflow_run):
    expected = run_tf215(iris_program(STEPS))
    for key, value in expected["evaluation"].items():
        np.testing.assert_allclose(webflow_run["evaluation"][key], value, rtol=1e-4, err_msg=key)
    np.testing.assert_allclose(webflow_run["probabilities"], expected["probabilities"], atol=1e-4)
    for name, value in expected["variables"].items():
        np.testing.assert_allclose(webflow_run["variables"][name], value, rtol=1e-3, atol=1e-4, err_msg=name)


@pytest.fixture(scope="module")
def webflow_v1_run():
    return run_webflow(iris_program(V1_STEPS), v1=True)


def test_v1_dnn_classifier_reaches_tensorflow_2_15_figures_on_iris(webflow_v1_run):
    evaluation = webflow_v1_run["evaluation"]
    assert evaluation["global_step"] == V1_STEPS
    np.testing.assert_allclose(evaluation["accuracy"], V1_TF215["accuracy"], atol=1e-6)
    np.testing.assert_allclose(evaluation["average_loss"], V1_TF215["average_loss"], rtol=1e-3)
    np.testing.assert_allclose(evaluation["loss"], V1_TF215["loss"], rtol=1e-3)


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
def test_v1_dnn_classifier_matches_tensorflow_2_15_live(webflow_v1_run):
    expected = run_tf215(iris_program(V1_STEPS), v1=True)
    for key, value in expected["evaluation"].items():
        np.testing.assert_allclose(webflow_v1_run["evaluation"][key], value, rtol=1e-4, err_msg=key)
    np.testing.assert_allclose(webflow_v1_run["probabilities"], expected["probabilities"], atol=1e-4)
