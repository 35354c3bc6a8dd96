"""TF1 premade Estimators' checkpoints under TensorFlow's names: the optimizer slots of the (partitioned in TF)
linear and DNN variables, and Adam's beta powers. A model_dir is trained in turns by TensorFlow 2.15 and by
webflow and must end where TensorFlow alone ends."""

import shutil

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow

from webflow.estimator.checkpoint_keys import partitioned_slot_key

_PROGRAM = r"""
X = (np.arange(24, dtype=np.float32).reshape(12, 2) / 10.0) - 1.0
Y = X @ np.array([[1.5], [-2.0]], np.float32) + 0.25


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(12)   # every step: the same batch


columns = [fc.numeric_column("x", shape=(2,))]
if KIND == "linear":
    model = est.LinearRegressor(columns, FOLDER)
else:
    model = est.DNNRegressor([3], columns, FOLDER, optimizer="Adam")
model.train(input_fn, steps=STEPS)
result = {n: model.get_variable_value(n) for n in model.get_variable_names()}
"""


def test_slot_names_follow_tf_slot_creators_cut():
    # `linear/` is as long as `part_0/`: the cut keeps `part_0/Ftrl`; `dnn/` is 3 letters shorter: `t_0/...`
    assert partitioned_slot_key("linear/linear_model/x/weights", "Ftrl_1", "linear") == \
        "linear/linear_model/x/weights/part_0/Ftrl_1"
    assert partitioned_slot_key("dnn/hiddenlayer_0/kernel", "Adagrad", "dnn") == \
        "dnn/hiddenlayer_0/kernel/t_0/Adagrad"


def _train(runner, kind: str, folder, steps: int) -> dict:
    source = f"KIND = {kind!r}\nFOLDER = {str(folder)!r}\nSTEPS = {steps}\n" + _PROGRAM
    return runner(source, v1=True)


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
@pytest.mark.parametrize("kind", ["linear", "dnn"])
def test_checkpoints_pass_between_tensorflow_and_webflow(kind, tmp_path):
    alone, turns = tmp_path / "alone", tmp_path / "turns"
    first = _train(run_tf215, kind, alone, 3)
    shutil.copytree(alone, turns)
    expected = _train(run_tf215, kind, alone, 4)
    mine = _train(run_webflow, kind, turns, 2)    # webflow restores TF's checkpoint (all slots by TF's names)
    got = _train(run_tf215, kind, turns, 2)       # and TF restores webflow's
    assert sorted(mine) == sorted(first) == sorted(expected)
    if kind == "linear":
        assert "linear/linear_model/x/weights/part_0/Ftrl" in expected
    else:
        assert {"dnn/head/beta1_power", "dnn/hiddenlayer_0/kernel/t_0/Adam_1"} <= set(expected)
    assert got["global_step"] == expected["global_step"] == 7
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
