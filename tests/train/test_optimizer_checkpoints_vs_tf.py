"""Checkpoints of TF1 optimizer state interchange with TensorFlow 2.21 (tf.train.Saver on both sides).

The program makes its variables in `variable_scope("lin")` + `name_scope("head")` and trains them with two
optimizers of one class, one minimizing in another scope: slots `train/lin/v/Adam`, `lin/v/Adam_2`, beta powers
`train/step/beta1_power`, `beta1_power` ... TensorFlow trains two steps and saves; webflow restores that
checkpoint (every value as TensorFlow saved it), trains one more step and saves; TensorFlow restores webflow's
checkpoint and trains one more step: both must then hold the same values.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_optimizer_variable_names import OPTIMIZERS
from tf_subprocess import SKIP_REASON, TF_PYTHON, plain, run_tensorflow

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

PROGRAM = """
with tf.variable_scope("lin"):
    with tf.name_scope("head"):
        v = tf.get_variable("v", shape=[2, 3], initializer=tf.ones_initializer())
        b = tf.Variable([1.0, 2.0], name="b")
        loss = tf.reduce_sum(v * v * np.arange(6, dtype=np.float32).reshape(2, 3)) + tf.reduce_sum(b * b * b)
first = OPT
with tf.variable_scope("train"), tf.name_scope("step"):
    first_step = first.minimize(loss)
second_step = OPT.minimize(loss * 0.5)
saver = tf.train.Saver()
session = tf.Session()
if RESTORE:
    saver.restore(session, RESTORE)
else:
    session.run(tf.global_variables_initializer())
restored = {x.op.name: session.run(x) for x in tf.global_variables()}
for _ in range(STEPS):
    session.run(first_step)   # one after the other: in one run their updates of v would race
    session.run(second_step)
if SAVE:
    saver.save(session, SAVE)
result = {"restored": restored, "trained": {x.op.name: session.run(x) for x in tf.global_variables()},
          "keys": sorted(name for name, _ in tf.train.list_variables(SAVE or RESTORE))}
"""


def _program(optimizer: str, restore: str | None, save: str | None, steps: int) -> str:
    return f"RESTORE = {restore!r}\nSAVE = {save!r}\nSTEPS = {steps}\n" + PROGRAM.replace("OPT", optimizer)


def _webflow_result(source: str) -> dict:
    import webflow.compat.v1 as tf
    from webflow.estimator.ftrl_v1 import FtrlOptimizer

    tf.disable_v2_behavior()
    scope = {"tf": tf, "np": np, "FtrlOptimizer": FtrlOptimizer}
    with tf.Graph().as_default():
        exec(source.replace("tf.train.FtrlOptimizer", "FtrlOptimizer"), scope)
        scope["session"].close()
    return plain(scope["result"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("optimizer_checkpoints")


@pytest.fixture(scope="module")
def round_trip(folder) -> dict:
    """{optimizer: (TF's first run, webflow's run, TF's second run)}."""
    for optimizer in OPTIMIZERS:
        for side in ("tf", "wf"):
            (folder / optimizer / side).mkdir(parents=True)
    first = run_tensorflow({o: _program(OPTIMIZERS[o], None, str(folder / o / "tf" / "model"), 2)
                            for o in OPTIMIZERS})
    mine = {o: _webflow_result(_program(OPTIMIZERS[o], str(folder / o / "tf" / "model"),
                                        str(folder / o / "wf" / "model"), 1)) for o in OPTIMIZERS}
    second = run_tensorflow({o: _program(OPTIMIZERS[o], str(folder / o / "wf" / "model"), None, 1)
                             for o in OPTIMIZERS})
    return {o: (first[o], mine[o], second[o]) for o in OPTIMIZERS}


def _assert_same_values(actual: dict, expected: dict) -> None:
    assert sorted(actual) == sorted(expected)
    for name in expected:
        np.testing.assert_allclose(actual[name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_webflow_restores_tensorflows_checkpoint(optimizer: str, round_trip: dict) -> None:
    theirs, mine, _ = round_trip[optimizer]
    assert mine["keys"] == theirs["keys"]
    _assert_same_values(mine["restored"], theirs["trained"])


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS))
def test_tensorflow_restores_webflows_checkpoint_and_trains_on(optimizer: str, round_trip: dict, folder) -> None:
    _, mine, theirs = round_trip[optimizer]
    _assert_same_values(theirs["restored"], mine["trained"])
    # one more step from that state: webflow's against TensorFlow's
    again = _webflow_result(_program(OPTIMIZERS[optimizer], str(folder / optimizer / "wf" / "model"), None, 1))
    _assert_same_values(again["trained"], theirs["trained"])
