"""Premade Estimators, tf.compat.v1.metrics.auc and DenseFeatures against TensorFlow 2.15, on identical weights.

Each program (canned_programs.py) runs under both; variable names (optimizer slots included), their values
after training, evaluate()'s metric dict and the predictions must agree.
"""

import numpy as np
import pytest
from canned_programs import AUC, BASELINE, BATCH_NORM, CROSSED_COLUMNS, DENSE_FEATURES, DNN, LINEAR, WEIGHTED_COLUMNS
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow

pytestmark = pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)


def _close(got, expected, where, rtol=2e-4, atol=2e-5):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            _close(got[key], expected[key], f"{where}/{key}", rtol, atol)
    elif isinstance(expected, list) and expected and isinstance(expected[0], (dict, list, str)):
        assert len(got) == len(expected), where
        for index, (g, e) in enumerate(zip(got, expected)):
            _close(g, e, f"{where}[{index}]", rtol, atol)
    elif isinstance(expected, str):
        assert got == expected, where
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expected, np.float64), rtol=rtol,
                                   atol=atol, err_msg=where)


PROGRAMS = {"LINEAR": LINEAR, "BASELINE": BASELINE, "DNN": DNN, "BATCH_NORM": BATCH_NORM}
# TF1's premade linear and DNN models save their optimizer slots under the names of a partitioned variable
# (`linear/linear_model/x/weights/part_0/Ftrl`, `dnn/hiddenlayer_0/kernel/t_0/Adagrad`) and Adam's beta powers
# under the head's name scope (`dnn/head/beta1_power`): webflow's checkpoints must hold exactly these names.


@pytest.fixture(scope="module", params=["LINEAR", "BASELINE", "DNN", "BATCH_NORM"])
def both(request):
    source = "V1 = False\n" + PROGRAMS[request.param]
    return run_tf215(source), run_webflow(source)


@pytest.fixture(scope="module", params=["LINEAR", "BASELINE", "DNN", "BATCH_NORM"])
def both_v1(request):
    source = "V1 = True\n" + PROGRAMS[request.param]
    return run_tf215(source, v1=True), run_webflow(source, v1=True)


def test_premade_estimators_match_tensorflow_2_15(both):
    expected, got = both
    assert sorted(got) == sorted(expected)
    for model in expected:
        assert sorted(got[model]["variables"]) == sorted(expected[model]["variables"]), model
        assert sorted(got[model]["evaluation"]) == sorted(expected[model]["evaluation"]), model
        _close(got[model], expected[model], model)


def test_v1_premade_estimators_match_tensorflow_2_15(both_v1):
    """tf.compat.v1.estimator: SUM loss reduction, TF1 optimizers, tf.compat.v1.metrics.auc; checkpoint names
    (optimizer slots included) and shapes exactly TF's."""
    expected, got = both_v1
    assert sorted(got) == sorted(expected)
    for model in expected:
        assert sorted(got[model]["variables"]) == sorted(expected[model]["variables"]), model
        for name, value in expected[model]["variables"].items():
            assert np.shape(got[model]["variables"][name]) == np.shape(value), f"{model}/{name}"
        _close(got[model], expected[model], model)


def test_auc_matches_tensorflow_2_15():
    expected, got = run_tf215(AUC), run_webflow(AUC)
    _close(got, expected, "auc", rtol=1e-5, atol=1e-6)


def test_dense_features_match_tensorflow_2_15():
    expected = run_tf215("DenseFeatures = tf.keras.layers.DenseFeatures\n" + DENSE_FEATURES)
    got = run_webflow("DenseFeatures = fc.DenseFeatures\n" + DENSE_FEATURES)
    assert got["variables"] == expected["variables"]
    _close(got, expected, "dense_features", rtol=1e-6, atol=0)


def test_weighted_categorical_column_matches_tensorflow_2_15():
    expected, got = run_tf215(WEIGHTED_COLUMNS), run_webflow(WEIGHTED_COLUMNS)
    _close(got, expected, "weighted", rtol=1e-6, atol=1e-7)


def test_crossed_column_matches_tensorflow_2_15():
    expected, got = run_tf215(CROSSED_COLUMNS), run_webflow(CROSSED_COLUMNS)
    _close(got, expected, "crossed", rtol=1e-6, atol=0)
