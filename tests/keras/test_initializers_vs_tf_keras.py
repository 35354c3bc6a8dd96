"""keras.initializers against tf_keras (oracle venv): seeded initializers give tf_keras's exact values (both draw
from the stateless Philox ops with seed [seed, 0]), with the same configs and names; and, independently of
TensorFlow, every random initializer's sample mean / std / range agrees with its formula."""

from __future__ import annotations

import math

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_on_both

import webflow
from webflow import keras

SPECS = [
    "RandomUniform(seed=1)", "RandomUniform(-2.0, 3.0, seed=2)", "RandomNormal(seed=3)",
    "RandomNormal(1.0, 2.0, seed=4)", "TruncatedNormal(seed=5)", "TruncatedNormal(0.5, 3.0, seed=6)",
    "GlorotUniform(seed=7)", "GlorotNormal(seed=8)", "HeNormal(seed=9)", "HeUniform(seed=10)",
    "LecunNormal(seed=11)", "LecunUniform(seed=12)", "VarianceScaling(2.5, 'fan_out', 'untruncated_normal', 13)",
    "VarianceScaling(0.5, 'fan_avg', 'normal', seed=14)", "VarianceScaling(1.5, 'fan_in', 'uniform', seed=15)",
    "Orthogonal(seed=16)", "Orthogonal(gain=2.0, seed=17)", "Identity(gain=3.0)", "Constant(0.25)", "Zeros()",
    "Ones()",
]
SHAPES = [[3, 4], [4, 3], [2, 3, 4, 5], [7]]

PROGRAM = f"""
result = {{}}
for spec in {SPECS!r}:
    init = eval("keras.initializers." + spec)
    values = {{}}
    for shape in {SHAPES!r}:
        if spec.startswith("Identity") and len(shape) != 2 or spec.startswith("Orthogonal") and len(shape) < 2:
            continue
        values[str(shape)] = np.asarray(init(shape)).tolist()
    again = np.asarray(init([3, 4])).tolist()
    result[spec] = {{"values": values, "again": again, "config": init.get_config(),
                     "round_trip": type(init).from_config(init.get_config()).get_config()}}
result["float64"] = np.asarray(keras.initializers.HeNormal(seed=21)([3, 3], dtype="float64")).tolist()
result["names"] = {{name: type(keras.initializers.get(name)).__name__ for name in [
    "glorot_uniform", "GlorotUniform", "he_normal", "orthogonal", "zeros", "ones", "random_normal",
    "truncated_normal", "uniform", "normal", "lecun_uniform", "identity", "variance_scaling"]}}
result["serialized"] = keras.initializers.serialize(keras.initializers.HeUniform(seed=3))
result["deserialized"] = keras.initializers.deserialize(result["serialized"]).get_config()
"""


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_seeded_initializers_match_tf_keras() -> None:
    ours, theirs = run_on_both(PROGRAM)
    for spec in SPECS:
        assert sorted(ours[spec]["values"]) == sorted(theirs[spec]["values"]), spec
        for shape, expected in theirs[spec]["values"].items():
            np.testing.assert_allclose(ours[spec]["values"][shape], expected, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{spec} {shape}")
        np.testing.assert_allclose(ours[spec]["again"], theirs[spec]["again"], rtol=1e-5, atol=1e-6)
        assert ours[spec]["config"] == theirs[spec]["config"], spec
        assert ours[spec]["round_trip"] == theirs[spec]["round_trip"], spec
    np.testing.assert_allclose(ours["float64"], theirs["float64"], rtol=1e-12)
    for key in ("names", "serialized", "deserialized"):
        assert ours[key] == theirs[key], key


# --- statistics: sample moments against the formulas (no TensorFlow) ------------------------------------
FAN_IN, FAN_OUT = 400, 600
SHAPE = [FAN_IN, FAN_OUT]
# std of N(0, 1) truncated to (-2, 2), derived: 1 - 2 * 2 * phi(2) / (2 * Phi(2) - 1)
TRUNCATED_STD = math.sqrt(1 - 4 * math.exp(-2.0) / math.sqrt(2 * math.pi) / math.erf(2 / math.sqrt(2)))
STATS = [  # (initializer, expected mean, expected std, bound on |x| or None)
    ("RandomUniform(-0.3, 0.5, seed=1)", 0.1, 0.8 / math.sqrt(12), None),
    ("RandomNormal(0.2, 0.7, seed=2)", 0.2, 0.7, None),
    ("TruncatedNormal(0.0, 0.7, seed=3)", 0.0, 0.7 * TRUNCATED_STD, 1.4),
    ("GlorotUniform(seed=4)", 0.0, math.sqrt(2.0 / (FAN_IN + FAN_OUT)), math.sqrt(6.0 / (FAN_IN + FAN_OUT))),
    ("GlorotNormal(seed=5)", 0.0, math.sqrt(2.0 / (FAN_IN + FAN_OUT)), None),
    ("HeNormal(seed=6)", 0.0, math.sqrt(2.0 / FAN_IN), None),
    ("HeUniform(seed=7)", 0.0, math.sqrt(2.0 / FAN_IN), math.sqrt(6.0 / FAN_IN)),
    ("LecunNormal(seed=8)", 0.0, math.sqrt(1.0 / FAN_IN), None),
    ("LecunUniform(seed=9)", 0.0, math.sqrt(1.0 / FAN_IN), math.sqrt(3.0 / FAN_IN)),
    ("VarianceScaling(3.0, 'fan_out', 'untruncated_normal', seed=10)", 0.0, math.sqrt(3.0 / FAN_OUT), None),
]


@pytest.mark.parametrize("spec, mean, std, bound", STATS, ids=[s[0] for s in STATS])
def test_sample_moments_follow_the_formula(spec: str, mean: float, std: float, bound: float | None) -> None:
    values = np.asarray(eval("keras.initializers." + spec)(SHAPE)).astype(np.float64)
    assert values.shape == tuple(SHAPE) and values.dtype == np.float64
    count = values.size
    assert abs(values.mean() - mean) < 5 * std / math.sqrt(count)
    assert abs(values.std() / std - 1) < 0.01
    if bound is not None:
        assert np.abs(values - mean).max() <= bound * (1 + 1e-6)


def test_orthogonal_identity_and_errors() -> None:
    q = np.asarray(keras.initializers.Orthogonal(gain=1.5, seed=1)([6, 4]))
    np.testing.assert_allclose(q.T @ q, 2.25 * np.eye(4), atol=1e-5)
    kernel = np.asarray(keras.initializers.Orthogonal(seed=2)([3, 3, 2, 5])).reshape(-1, 5)
    np.testing.assert_allclose(kernel.T @ kernel, np.eye(5), atol=1e-5)
    np.testing.assert_array_equal(np.asarray(keras.initializers.Identity(2.0)([2, 3])), 2 * np.eye(2, 3))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        keras.initializers.Orthogonal()([3])
    with pytest.raises(ValueError, match="only be used for 2D"):
        keras.initializers.Identity()([2, 2, 2])
    with pytest.raises(ValueError, match="Invalid `mode`"):
        keras.initializers.VarianceScaling(mode="fan")
    unseeded = keras.initializers.HeNormal()
    np.testing.assert_array_equal(np.asarray(unseeded([3])), np.asarray(unseeded([3])))  # tf_keras: kept seed
    assert webflow.initializers.he_normal is keras.initializers.HeNormal
