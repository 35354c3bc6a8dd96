"""`save_weights` files of webflow and tf_keras (oracle venv) key for key, and the optimizer's state in them.

For a Sequential (with a layer without weights between two Dense), a functional model (InputLayer, Dense,
BatchNormalization, Dense), a Sequential nested in a functional model and a subclassed model (layers in attributes
and in a list), each library trains 2 Adam steps, saves, and trains 2 more; the other library loads the file into a
fresh model, trains the same 2 steps and must end on the same weights (the optimizer's iterations and slots carried
over: a fresh Adam would land elsewhere). The sorted (key, shape, dtype) lists of both libraries' files, read by
TensorFlow and by webflow, are equal; so are those of `tf.train.Checkpoint(model=, optimizer=)`, of a recurrent
model (Bidirectional LSTM, TimeDistributed, GRU) and of SGD, RMSprop (momentum, centered), Adam on a schedule
(`_current_learning_rate`) and a LossScaleOptimizer (`loss_scale/good_steps`). After a layer's
`trainable` flip, the saved slots are restored by position as tf_keras does, and `assert_consumed` names the same
first left-over value.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow as wf
from webflow import keras

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

KINDS = ("sequential", "functional", "nested", "subclassed")
# Four float32 Adam steps on an 8x3 batch: the libraries differ by summation order only (measured: 3.9e-7 at most,
# 1.6e-6 once in a BatchNormalization beta: it normalizes batches of 4; a lost optimizer state moves weights ~1e-2).
TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}

# Run by both libraries: `keras` is webflow.keras here, tf_keras in the oracle.
SHARED = '''
import numpy as np
x = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
y = np.stack([np.sin(3 * x[:, 0]), x[:, 1] * x[:, 2]], axis=1).astype(np.float32)


class Stack(keras.Model):
    def __init__(self):
        super().__init__()
        self.first = keras.layers.Dense(4, activation="tanh")
        self.blocks = [keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(4)]
        self.out = keras.layers.Dense(2)

    def call(self, inputs):
        hidden = self.first(inputs)
        for block in self.blocks:
            hidden = block(hidden)
        return self.out(hidden)


def build(kind, frozen=False):
    keras.backend.clear_session()
    keras.utils.set_random_seed(7)   # the same start in every run (each library draws its own numbers)
    if kind == "sequential":
        model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(3,)),
                                  keras.layers.Activation("relu"), keras.layers.Dense(2)])
    elif kind == "square":
        model = keras.Sequential([keras.layers.Dense(3, activation="tanh", input_shape=(3,)),
                                  keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(2)])
    elif kind == "functional":
        inputs = keras.Input((3,))
        hidden = keras.layers.BatchNormalization()(keras.layers.Dense(4, activation="tanh")(inputs))
        model = keras.Model(inputs, keras.layers.Dense(2)(hidden))
    elif kind == "nested":
        inner = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(3,)), keras.layers.Dense(4)])
        inputs = keras.Input((3,))
        model = keras.Model(inputs, keras.layers.Dense(2)(inner(inputs)))
    else:
        model = Stack()
        model(x[:1])
    if frozen:
        model.layers[0].trainable = False
    return model


def compiled(model):
    model.compile(keras.optimizers.Adam(0.01), "mse")
    return model


def steps(model):
    model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)   # 2 steps


def weights(model):
    return [w.tolist() for w in model.get_weights()]


def save_then_continue(kind, prefix):
    model = compiled(build(kind))
    steps(model)
    model.save_weights(prefix)
    steps(model)
    return weights(model)


def load_then_continue(kind, prefix, compile_after=False, frozen=False):
    """(weights after 2 more steps, iterations right after loading, the first line assert_consumed raises)."""
    model = build(kind, frozen)
    if not compile_after:
        compiled(model)
    status = model.load_weights(prefix)
    if compile_after:
        compiled(model)
    loaded = int(model.optimizer.iterations.numpy())
    steps(model)
    try:
        status.assert_consumed()
        unconsumed = None
    except AssertionError as error:
        unconsumed = str(error).splitlines()[0]
    return weights(model), loaded, unconsumed


def load_into_a_built_optimizer(prefix):
    """The slots exist already (a step taken with the first layer frozen): restored at once, checked, refused."""
    model = compiled(build("square", frozen=True))
    steps(model)
    try:
        model.load_weights(prefix)
    except ValueError as error:
        return str(error)


def checkpoint_with_optimizer(prefix):
    model = compiled(build("functional"))
    steps(model)
    tf.train.Checkpoint(model=model, optimizer=model.optimizer).write(prefix)
    steps(model)
    return weights(model)


def restore_checkpoint_and_continue(prefix):
    model = compiled(build("functional"))
    status = tf.train.Checkpoint(model=model, optimizer=model.optimizer).read(prefix)
    loaded = int(model.optimizer.iterations.numpy())
    steps(model)
    status.assert_consumed()
    return weights(model), loaded


OPTIMIZERS = {"sgd": lambda: keras.optimizers.SGD(0.1),
              "rmsprop": lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
              "schedule": lambda: keras.optimizers.Adam(keras.optimizers.schedules.ExponentialDecay(0.01, 2, 0.5)),
              "loss_scale": lambda: keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1, momentum=0.9))}


def save_recurrent(prefix):
    """Wrappers and RNN cells: `layer_with_weights-1/forward_layer/cell/kernel` ..."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(7)
    model = keras.Sequential([keras.layers.Embedding(10, 4, input_length=5),
                              keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True)),
                              keras.layers.TimeDistributed(keras.layers.Dense(2)), keras.layers.GRU(3),
                              keras.layers.LayerNormalization(), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.1, momentum=0.5), "mse")
    model.fit(np.arange(40).reshape(8, 5) % 10, y, batch_size=4, shuffle=False, verbose=0)
    model.save_weights(prefix)


def save_with(optimizer, prefix):
    model = build("sequential")
    model.compile(OPTIMIZERS[optimizer](), "mse")
    steps(model)
    model.save_weights(prefix)
'''

KEYS = '''
def keys(prefix):
    dtypes = tf.train.load_checkpoint(prefix).get_variable_to_dtype_map()
    return sorted([name, list(shape), dtypes[name].name] for name, shape in tf.train.list_variables(prefix))
'''

# The saving program, in the library `lib`, then the loading one on the other library's files.
SAVE = '''
result["saved"] = {kind: save_then_continue(kind, f"{folder}/{lib}_{kind}/ckpt") for kind in KINDS}
result["square"] = save_then_continue("square", f"{folder}/{lib}_square/ckpt")
result["tfckpt"] = checkpoint_with_optimizer(f"{folder}/{lib}_tfckpt/ckpt")
for optimizer in OPTIMIZERS:
    save_with(optimizer, f"{folder}/{lib}_{optimizer}/ckpt")
save_recurrent(f"{folder}/{lib}_recurrent/ckpt")
'''
LOAD = '''
result["loaded"] = {kind: load_then_continue(kind, f"{folder}/{other}_{kind}/ckpt") for kind in KINDS}
result["compile_after"] = load_then_continue("sequential", f"{folder}/{other}_sequential/ckpt", compile_after=True)
result["frozen"] = {owner: load_then_continue("square", f"{folder}/{owner}_square/ckpt", frozen=True)
                    for owner in ("tf", "wf")}
result["built"] = load_into_a_built_optimizer(f"{folder}/tf_square/ckpt")
result["restored"] = restore_checkpoint_and_continue(f"{folder}/{other}_tfckpt/ckpt")
result["keys"] = {f"{owner}_{kind}": keys(f"{folder}/{owner}_{kind}/ckpt") for owner in ("tf", "wf")
                  for kind in KINDS + ("tfckpt", "recurrent") + tuple(OPTIMIZERS)}
'''


def _webflow(source: str, scope: dict) -> dict:
    scope = {**scope, "keras": keras, "tf": wf, "KINDS": KINDS}
    exec(SHARED + KEYS + source, scope)
    return scope


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = str(tmp_path_factory.mktemp("ckpt_keys"))
    ours = _webflow(SAVE, {"result": {}, "folder": folder, "lib": "wf"})["result"]
    header = (f"import tensorflow as tf\nkeras = tf.keras\nresult = {{}}\nfolder = {folder!r}\nKINDS = {KINDS!r}\n"
              "lib, other = 'tf', 'wf'\n")
    theirs = run_oracle(header + SHARED + KEYS + SAVE + LOAD, repeatable=True)
    ours.update(_webflow(LOAD, {"result": {}, "folder": folder, "other": "tf"})["result"])
    return {"ours": json.loads(json.dumps(ours)), "theirs": theirs, "folder": folder}


def _close(got: list, want: list) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(np.array(a), np.array(b), **TOLERANCE)


@pytest.mark.parametrize("kind", KINDS + ("tfckpt", "recurrent", "sgd", "rmsprop", "schedule", "loss_scale"))
def test_both_libraries_files_hold_the_same_keys_shapes_and_dtypes(runs: dict, kind: str) -> None:
    tf_file_by_tf = runs["theirs"]["keys"][f"tf_{kind}"]
    assert any(name.startswith("optimizer/_variables/1/") for name, *_ in tf_file_by_tf)
    for reader in ("ours", "theirs"):
        for owner in ("tf", "wf"):
            assert runs[reader]["keys"][f"{owner}_{kind}"] == tf_file_by_tf, (reader, owner)


@pytest.mark.parametrize("kind", KINDS)
def test_webflow_continues_training_from_a_tf_keras_file(runs: dict, kind: str) -> None:
    got, iterations, unconsumed = runs["ours"]["loaded"][kind]
    assert iterations == 2 and unconsumed is None
    _close(got, runs["theirs"]["saved"][kind])


@pytest.mark.parametrize("kind", KINDS)
def test_tf_keras_continues_training_from_a_webflow_file(runs: dict, kind: str) -> None:
    got, iterations, unconsumed = runs["theirs"]["loaded"][kind]
    assert iterations == 2 and unconsumed is None
    _close(got, runs["ours"]["saved"][kind])


def test_tf_train_checkpoint_of_model_and_optimizer_restores_both_ways(runs: dict) -> None:
    for loader, saver in (("ours", "theirs"), ("theirs", "ours")):
        got, iterations = runs[loader]["restored"]
        assert iterations == 2
        _close(got, runs[saver]["tfckpt"])


def test_a_model_compiled_after_load_weights_gets_the_optimizer_state(runs: dict) -> None:
    for loader, saver in (("ours", "theirs"), ("theirs", "ours")):
        got, iterations, unconsumed = runs[loader]["compile_after"]
        assert iterations == 2 and unconsumed is None
        _close(got, runs[saver]["saved"]["sequential"])


def test_the_optimizer_state_matters(runs: dict) -> None:
    """The same saved weights continued by a fresh Adam (no saved state) land measurably elsewhere: the
    comparisons above would see a lost optimizer state."""
    scope = _webflow("", {})
    loaded = scope["build"]("sequential")
    loaded.load_weights(f"{runs['folder']}/wf_sequential/ckpt")
    fresh = scope["compiled"](scope["build"]("sequential"))
    fresh.set_weights(loaded.get_weights())
    scope["steps"](fresh)
    continued = runs["ours"]["saved"]["sequential"]
    gap = max(float(np.abs(a - np.array(b)).max()) for a, b in zip(fresh.get_weights(), continued))
    assert gap > 1e-3


def test_after_a_trainable_flip_the_slots_are_restored_by_position_as_tf_keras_does(runs: dict) -> None:
    """tf_keras 2.21: the saved slots follow the optimizer's variable list by position; with the first layer frozen
    the list is shorter, a slot of another shape keeps its zeros, one of the same shape takes the frozen layer's
    state, and the values left over fail assert_consumed."""
    for owner in ("tf", "wf"):   # each library loads each file
        ours, theirs = runs["ours"]["frozen"][owner], runs["theirs"]["frozen"][owner]
        _close(ours[0], theirs[0])
        assert ours[1] == theirs[1] == 2
        assert theirs[2] == "Unresolved object in checkpoint (root).optimizer._variables.9: attributes {"
        assert ours[2] == theirs[2]


def test_load_weights_of_another_architecture_still_names_the_variable(tmp_path: object) -> None:
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,)), keras.layers.Dense(2)])
    model.compile(keras.optimizers.Adam(), "mse")
    model.save_weights(str(tmp_path / "ckpt"))
    other = keras.Sequential([keras.layers.Dense(5, input_shape=(3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(3, 4\) when attempting to "
                                         r"restore variable with shape \(3, 5\) and name dense_2/kernel:0"):
        other.load_weights(str(tmp_path / "ckpt"))


def test_a_built_optimizer_refuses_slots_of_another_shape_as_tf_keras_does(runs: dict) -> None:
    assert runs["theirs"]["built"] == ("Received incompatible tensor with shape (3, 3) when attempting to restore "
                                       "variable with shape (3, 2) and name Adam/m/dense_2/kernel:0.")
    assert runs["ours"]["built"] == runs["theirs"]["built"]
