"""keras.callbacks against tf_keras (oracle venv): the same small regression model, initial weights and data, fit
with SGD and one callback per case, run by webflow.keras and by tf_keras. Compared: the learning-rate trajectory
(history "lr") and the epochs ReduceLROnPlateau reduces it at, the messages printed (verbose=1), the epoch at which
EarlyStopping stops and the weights it restores, the batch TerminateOnNaN stops at, CSVLogger's file (same header
and epochs; values within float32 round-off), the final weights (so a traced step really used the new rate), and
TensorBoard's event files: scalar tags and values per run, read back by the real TensorBoard's EventAccumulator
(for both libraries' files) and by webflow's summary_iterator."""

from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

from webflow import keras

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Each case: the callbacks fit gets. A huge min_delta makes "no improvement after epoch 1" certain, so the decisions
# do not hang on round-off; "plateau_real" uses the default min_delta on the real val_loss.
CASES = {
    "plateau": "[keras.callbacks.ReduceLROnPlateau(monitor='loss', factor=0.5, patience=2, min_delta=100.0, "
               "cooldown=1, min_lr=0.003, verbose=1)]",
    "plateau_real": "[keras.callbacks.ReduceLROnPlateau(factor=0.2, patience=1, verbose=1)]",
    "scheduler": "[keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 2 else lr * 0.5, "
                 "verbose=1)]",
    "scheduler_old": "[keras.callbacks.LearningRateScheduler(lambda epoch: 0.05 / (epoch + 1))]",
    "early": "[keras.callbacks.EarlyStopping(monitor='loss', patience=2, min_delta=100.0, "
             "restore_best_weights=True, verbose=1)]",
    "early_full": "[keras.callbacks.EarlyStopping(monitor='loss', patience=100, min_delta=100.0, "
                  "restore_best_weights=True, verbose=1)]",
    "batch_hook": "[keras.callbacks.LambdaCallback(on_batch_end=lambda batch, logs: print('b', batch)), "
                  "type('Seen', (keras.callbacks.Callback,), "
                  "{{'on_batch_end': lambda self, batch, logs=None: print('seen', batch)}})()]",
    "csv": "[keras.callbacks.ReduceLROnPlateau(monitor='loss', patience=1, min_delta=100.0), "
           "keras.callbacks.CSVLogger(os.path.join(folder, '{lib}.csv'), separator=';')]",
    "nan": "[keras.callbacks.TerminateOnNaN()]",
    "checkpoint": "[keras.callbacks.ModelCheckpoint(os.path.join(folder, '{lib}_ckpt', 'w_{{epoch:02d}}'), "
                  "monitor='val_loss', save_best_only=True, save_weights_only=True, verbose=1), "
                  "keras.callbacks.ModelCheckpoint(os.path.join(folder, '{lib}_ckpt', 'max_{{epoch:02d}}'), "
                  "monitor='loss', mode='max', save_best_only=True, save_weights_only=True, verbose=1)]",
    "tensorboard": "[keras.callbacks.TensorBoard(os.path.join(folder, 'tb_{lib}'))]",
}

SOURCE = """
import contextlib, io, os
import numpy as np
result = {{}}
for case, callbacks in CASES.items():
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(8, activation="relu", input_shape=(3,)), keras.layers.Dense(1)])
    model.set_weights(initial)
    model.compile(keras.optimizers.SGD(0.02), "mse")
    targets = y_nan if case == "nan" else y
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
        history = model.fit(x, targets, batch_size=16, epochs=8, shuffle=False, validation_data=(xv, yv),
                            verbose=0, callbacks=eval(callbacks.format(lib="{lib}")))
    result[case] = {{"history": {{k: [float(v) for v in vs] for k, vs in history.history.items()}},
                    "epochs": list(history.epoch), "printed": captured.getvalue(),
                    "weights": [w.tolist() for w in model.get_weights()],
                    "lr": float(np.asarray(model.optimizer.learning_rate))}}
result["checkpoint"]["files"] = sorted(os.listdir(os.path.join(folder, "{lib}_ckpt")))
with open(os.path.join(folder, "{lib}.csv")) as f:
    result["csv"]["file"] = f.read()
"""

READ_TENSORBOARD = """
import glob, os
from tensorboard.backend.event_processing import event_accumulator
from tensorflow.python.framework import tensor_util
result = {}
for lib in ("webflow", "tf_keras"):
    runs = {}
    for run in ("train", "validation"):
        acc = event_accumulator.EventAccumulator(os.path.join(FOLDER, "tb_" + lib, run)).Reload()
        runs[run] = {tag: [[e.step, float(tensor_util.MakeNdarray(e.tensor_proto))] for e in acc.Tensors(tag)]
                     for tag in acc.Tags()["tensors"]
                     if acc.SummaryMetadata(tag).plugin_data.plugin_name == "scalars"}
        runs[run + "_other"] = sorted(tag for tag in acc.Tags()["tensors"] if tag not in runs[run])
    result[lib] = runs
"""


def _data() -> dict:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    xv = rng.normal(size=(32, 3)).astype(np.float32)
    yv = (xv @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    y_nan = y.copy()
    y_nan[37] = np.nan   # in batch 2 (16 a batch): TerminateOnNaN stops there
    return {"x": x, "y": y, "xv": xv, "yv": yv, "y_nan": y_nan}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = str(tmp_path_factory.mktemp("callbacks"))
    data = _data()
    rng = np.random.default_rng(11)   # fixed initial weights: the same run (and decisions) every time
    initial = [(rng.normal(size=shape) * 0.5).astype(np.float32) for shape in ((3, 8), (8,), (8, 1), (1,))]
    np.savez(os.path.join(folder, "data.npz"), *initial, **data)
    scope = {**data, "keras": keras, "initial": initial, "folder": folder, "CASES": CASES}
    exec(SOURCE.format(lib="webflow"), scope)
    ours = json.loads(json.dumps(scope["result"]))
    oracle = run_oracle(
        "import json, os, numpy as np, tensorflow as tf\nkeras = tf.keras\n"
        f"folder = {folder!r}\nCASES = json.loads({json.dumps(json.dumps(CASES))})\n"
        f"_d = np.load(os.path.join(folder, 'data.npz'))\n"
        f"initial = [_d[f'arr_{{i}}'] for i in range({len(initial)})]\n"
        "x, y, xv, yv, y_nan = (_d[k] for k in ('x', 'y', 'xv', 'yv', 'y_nan'))\n" + SOURCE.format(lib="tf_keras"))
    boards = run_oracle(f"FOLDER = {folder!r}\n" + READ_TENSORBOARD)
    return {"ours": ours, "oracle": oracle, "boards": boards, "folder": folder}


def _same_history(ours: dict, theirs: dict) -> None:
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-7, err_msg=key)


@pytest.mark.parametrize("case", ["plateau", "plateau_real", "scheduler", "scheduler_old", "early", "early_full",
                                  "batch_hook"])
def test_learning_rate_and_stopping_decisions(runs: dict, case: str) -> None:
    ours, theirs = runs["ours"][case], runs["oracle"][case]
    assert ours["epochs"] == theirs["epochs"]
    assert ours["history"].get("lr") == theirs["history"].get("lr")   # float32 rates: exactly equal
    _same_history(ours["history"], theirs["history"])
    assert ours["printed"] == theirs["printed"]
    assert ours["lr"] == theirs["lr"]
    for mine, oracle in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_allclose(mine, oracle, rtol=1e-5, atol=1e-6)


def test_plateau_reduces_at_the_epochs_tf_keras_does(runs: dict) -> None:
    lr = runs["oracle"]["plateau"]["history"]["lr"]
    assert len(set(lr)) > 2 and min(lr) == pytest.approx(0.003)   # reductions, cooldown and min_lr all happen
    assert runs["ours"]["plateau"]["history"]["lr"] == lr


def test_early_stopping_restores_the_best_weights(runs: dict) -> None:
    ours, theirs = runs["ours"]["early"], runs["oracle"]["early"]
    assert len(theirs["epochs"]) < 8 and ours["epochs"] == theirs["epochs"]
    assert "Restoring model weights from the end of the best epoch: 1." in theirs["printed"]


def test_terminate_on_nan(runs: dict) -> None:
    ours, theirs = runs["ours"]["nan"], runs["oracle"]["nan"]
    assert theirs["printed"] == "Batch 2: Invalid loss, terminating training\n"
    assert ours["printed"] == theirs["printed"] and ours["epochs"] == theirs["epochs"] == [0]


def test_csv_logger_file(runs: dict) -> None:
    ours, theirs = runs["ours"]["csv"]["file"], runs["oracle"]["csv"]["file"]
    our_rows = [line.split(";") for line in ours.splitlines()]
    their_rows = [line.split(";") for line in theirs.splitlines()]
    assert our_rows[0] == their_rows[0] == ["epoch", "loss", "lr", "val_loss"]
    assert [row[2] for row in our_rows] == [row[2] for row in their_rows]   # the rates as NumPy prints float32
    assert len(our_rows) == len(their_rows) == 9
    assert ours.count("\r\n") == theirs.count("\r\n")
    for mine, oracle in zip(our_rows[1:], their_rows[1:]):
        assert mine[0] == oracle[0]
        np.testing.assert_allclose([float(v) for v in mine[1:]], [float(v) for v in oracle[1:]], rtol=1e-5)


def test_tensorboard_scalars(runs: dict) -> None:
    ours, theirs = runs["boards"]["webflow"], runs["boards"]["tf_keras"]
    assert ours["train_other"] == theirs["train_other"] == ["keras"]   # the model's JSON for the graph dashboard
    for run in ("train", "validation"):
        assert sorted(ours[run]) == sorted(theirs[run]), run
        for tag in theirs[run]:
            mine, oracle = np.array(ours[run][tag]), np.array(theirs[run][tag])
            np.testing.assert_array_equal(mine[:, 0], oracle[:, 0])   # the steps: epochs / iterations
            np.testing.assert_allclose(mine[:, 1], oracle[:, 1], rtol=1e-5)


def test_tensorboard_files_read_by_webflow(runs: dict) -> None:
    from webflow.summary.summary_iterator import summary_iterator
    tags = set()
    for name in glob.glob(os.path.join(runs["folder"], "tb_webflow", "train", "*")):
        tags |= {value.tag for event in summary_iterator(name) for value in event.summary.value}
    assert tags == {*runs["boards"]["tf_keras"]["train"], "keras"}


VERBOSE_SOURCE = """
import contextlib, io
import numpy as np
rng = np.random.default_rng(7)
x = rng.normal(size=(64, 3)).astype(np.float32)
y = x[:, :1] * 2.0
y_nan = y.copy()
y_nan[37] = np.nan
result = {}
for verbose in (1, 2):
    for case in ("plateau", "nan"):
        keras.backend.clear_session()
        model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,), kernel_initializer="ones")])
        model.compile(keras.optimizers.SGD(0.02), "mse")
        callback = (keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=1, min_delta=100.0, verbose=1)
                    if case == "plateau" else keras.callbacks.TerminateOnNaN())
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured):
            model.fit(x, y if case == "plateau" else y_nan, batch_size=16, epochs=3, shuffle=False,
                      verbose=verbose, callbacks=[callback])
        result[f"{case}{verbose}"] = captured.getvalue()
"""


def _untimed(text: str) -> str:
    import re
    # a bar's intermediate updates (those with an ETA) are printed only when 0.05 s have passed since the last:
    # how many there are depends on the machine's load, so they are dropped before comparing
    text = re.sub(r"\n?\d+/\d+ \[[=>.]*\] - ETA: \d+s[^\n]*?(?=Batch \d+:|\n|$)", "", text)
    return re.sub(r"\d+(ms|us|s)/(step|epoch)|- \d+s |ETA: \d+s", "T", text)


def test_progress_output_with_callbacks() -> None:
    # the bar (verbose=1) and the epoch lines (verbose=2): `lr` in the epoch's logs, the reduction message,
    # TerminateOnNaN's line and the epoch ending at its batch; the timings are masked
    scope = {"keras": keras}
    exec(VERBOSE_SOURCE, scope)
    theirs = run_oracle("import tensorflow as tf\nkeras = tf.keras\n" + VERBOSE_SOURCE)
    assert "Epoch 2: ReduceLROnPlateau reducing learning rate to 0.0020000000949949026." in theirs["plateau2"]
    assert "lr: 0.0020" in theirs["plateau1"] and "Batch 2: Invalid loss" in theirs["nan1"]
    for key in theirs:
        assert _untimed(scope["result"][key]) == _untimed(theirs[key]), key


def test_model_checkpoint_save_best_only(runs: dict) -> None:
    ours, theirs = runs["ours"]["checkpoint"], runs["oracle"]["checkpoint"]
    assert ours["files"] == theirs["files"]   # w_01.index, w_01.data-00000-of-00001 ... and `checkpoint`
    import re
    number = r"\d+\.\d{5}"   # the losses printed with 5 decimals: equal up to float32 round-off in the last one
    mine, oracle = (text.replace(f"{lib}_ckpt", "LIB") for text, lib in ((ours["printed"], "webflow"),
                                                                      (theirs["printed"], "tf_keras")))
    assert re.sub(number, "X", mine) == re.sub(number, "X", oracle)
    np.testing.assert_allclose([float(v) for v in re.findall(number, mine)],
                               [float(v) for v in re.findall(number, oracle)], atol=2e-5)
    assert "Epoch 2: loss did not improve from" in theirs["printed"] and "max_02.index" not in theirs["files"]


def test_a_traced_step_reads_the_learning_rate_at_run_time() -> None:
    import webflow as wf
    optimizer = keras.optimizers.SGD(0.25)
    variable = wf.Variable([1.0])

    @wf.function
    def step() -> None:
        optimizer.apply_gradients([(wf.constant([1.0]), variable)])

    step()                                        # 1 - 0.25
    keras.backend.set_value(optimizer.lr, 1.0)    # between runs, as ReduceLROnPlateau does
    step()                                        # 0.75 - 1.0, with no retrace
    assert variable.numpy().tolist() == [-0.25] and step.experimental_get_tracing_count() == 1
    assert keras.backend.get_value(optimizer.learning_rate) == 1.0
    assert optimizer.get_config()["learning_rate"] == 1.0
