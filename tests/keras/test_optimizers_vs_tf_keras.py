"""Every tf_keras optimizer, run unchanged by webflow (`keras` = webflow.keras, `tf` = webflow) and by tf_keras in
the oracle venv: 10-step trajectories on the same variables and loss (so the same gradients), with clipnorm,
clipvalue, global_clipnorm, weight_decay and learning-rate schedules; the schedules' values step by step;
`get_config` of each optimizer and its `from_config` round trip; `optimizers.get` by name. Results agree to
float32 precision (relative 1e-5)."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, optimizer_trajectories, run_programs_on_both

import webflow
from webflow import keras

SPECS = [
    "SGD(0.1, momentum=0.9, nesterov=True, weight_decay=0.1)", "SGD(0.1, clipnorm=0.5)",
    "SGD(0.1, clipvalue=0.3)", "SGD(0.1, global_clipnorm=0.7)", "Adam(0.1, amsgrad=True, clipnorm=1.0)",
    "AdamW(0.1)", "AdamW(0.05, weight_decay=0.2, amsgrad=True)", "Adadelta(1.0)", "Adadelta(0.5, rho=0.8)",
    "Adamax(0.1)", "Adamax(0.1, beta_1=0.5, epsilon=0.01)", "Nadam(0.1)", "Nadam(0.05, beta_1=0.8)",
    "Ftrl(0.1)", "Ftrl(0.1, learning_rate_power=-0.7, l1_regularization_strength=0.01, "
    "l2_regularization_strength=0.02, l2_shrinkage_regularization_strength=0.03, beta=0.5)",
    "Ftrl(0.2, learning_rate_power=0.0, initial_accumulator_value=0.5)",
    "RMSprop(0.1, weight_decay=0.05)", "Adagrad(0.1, clipvalue=0.5)",
    "SGD(keras.optimizers.schedules.PiecewiseConstantDecay([2, 5], [0.3, 0.1, 0.02]))",
    "Adam(keras.optimizers.schedules.PolynomialDecay(0.1, 6, 0.01, power=2.0))",
    "SGD(keras.optimizers.schedules.InverseTimeDecay(0.3, 2, 0.5, staircase=True))",
    "AdamW(keras.optimizers.schedules.CosineDecay(0.1, 8, alpha=0.1))",
    "SGD(keras.optimizers.schedules.CosineDecayRestarts(0.2, 3))",
]

SCHEDULES = [
    "PiecewiseConstantDecay([2, 5], [0.3, 0.1, 0.02])", "PolynomialDecay(0.1, 6, 0.01, power=2.0)",
    "PolynomialDecay(0.1, 4, cycle=True)", "InverseTimeDecay(0.3, 2, 0.5)", "InverseTimeDecay(0.3, 2, 0.5, True)",
    "CosineDecay(0.1, 8, alpha=0.1)", "CosineDecay(0.01, 6, warmup_target=0.1, warmup_steps=4)",
    "CosineDecayRestarts(0.2, 3)", "CosineDecayRestarts(0.2, 2, t_mul=1.0, m_mul=0.5, alpha=0.05)",
    "CosineDecayRestarts(0.2, 2, t_mul=3.0, m_mul=0.7)", "ExponentialDecay(0.5, 3, 0.5)",
]

NAMES = ["SGD", "Adam", "AdamW", "Adadelta", "Adamax", "Nadam", "Ftrl", "RMSprop", "Adagrad"]

PROGRAMS = {
    "trajectories": optimizer_trajectories(SPECS),
    "schedules": f"""
result = {{}}
for spec in {SCHEDULES!r}:
    schedule = eval("keras.optimizers.schedules." + spec)
    again = type(schedule).from_config(schedule.get_config())
    result[spec] = {{"values": [float(schedule(step)) for step in range(14)],
                     "again": [float(again(step)) for step in range(14)], "config": schedule.get_config()}}
""",
    "configs": f"""
result = {{}}
for name in {NAMES!r}:
    optimizer = getattr(keras.optimizers, name)(clipnorm=1.5, weight_decay=0.01)
    config = optimizer.get_config()
    again = type(optimizer).from_config(config)
    by_name = keras.optimizers.get(name.lower())
    result[name] = {{"config": {{k: v for k, v in config.items() if k != "jit_compile"}},
                     "round_trip": again.get_config() == config, "by_name": type(by_name).__name__,
                     "default": {{k: v for k, v in by_name.get_config().items() if k != "jit_compile"}}}}
scheduled = keras.optimizers.SGD(keras.optimizers.schedules.CosineDecay(0.1, 10))
result["scheduled"] = scheduled.get_config()["learning_rate"]
result["deserialized"] = keras.optimizers.get(keras.optimizers.serialize(scheduled)).get_config()["learning_rate"]
""",
}


@pytest.fixture(scope="module")
def results() -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    return run_programs_on_both(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_tf_keras(results: dict, name: str) -> None:
    assert_close(results["ours"][name], results["theirs"][name], name)


def test_only_one_clipnorm() -> None:
    with pytest.raises(ValueError, match="clipnorm"):
        keras.optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0)
    with pytest.raises(ValueError, match="weight_decay"):
        keras.optimizers.AdamW(weight_decay=None)
    assert webflow.optimizers.get("adamw").weight_decay == 0.004


@pytest.mark.parametrize("spec", ["AdamW(keras.optimizers.schedules.CosineDecay(0.1, 8), clipnorm=0.5)",
                                  "Nadam(0.1)", "Ftrl(0.1, l1_regularization_strength=0.01)",
                                  "Adadelta(1.0, global_clipnorm=1.0)", "Adamax(0.1, clipvalue=0.3)",
                                  "SGD(0.1, momentum=0.9, weight_decay=0.1)"])
def test_traced_steps_match_eager_steps(spec: str) -> None:
    """Steps traced by wf.function (after a first eager step has made the slots) = the eager steps."""
    def run(traced: bool) -> np.ndarray:
        optimizer = eval("keras.optimizers." + spec)
        v = webflow.Variable(np.array([1.0, -2.0, 3.0], np.float32))

        def step() -> None:
            with webflow.GradientTape() as tape:
                loss = webflow.reduce_sum(v * v * np.array([1.0, 0.5, 0.1], np.float32))
            optimizer.minimize(loss, [v], tape=tape)

        step()
        step = webflow.function(step) if traced else step
        for _ in range(5):
            step()
        return v.numpy()

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6)


def test_leftover_arguments_as_tf_keras() -> None:
    # tf_keras 2.x (checked in the oracle venv): `lr=` is warned about and ignored, `decay=` is an error
    assert keras.optimizers.SGD(lr=0.5).learning_rate.numpy() == pytest.approx(0.01)   # a variable, as in tf_keras
    with pytest.raises(ValueError, match="decay is deprecated in the new TF-Keras optimizer"):
        keras.optimizers.SGD(decay=0.1)
    with pytest.raises(TypeError, match="foo is not a valid argument"):
        keras.optimizers.Adam(foo=1)
