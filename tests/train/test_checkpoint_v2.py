"""TF2 object-based checkpoints (train/checkpoint.py, checkpoint_management.py, object_graph.py, module.py) and
string tensors in the bundle (io/checkpoint_bundle.py), against real TensorFlow 2.21.

With WEBFLOW_TF_PYTHON one TensorFlow subprocess (checkpoint_v2_oracle.py) restores webflow's checkpoint of a
tf.Module of every dtype into the same structure, writes its own checkpoints of the same objects and values
(webflow must reproduce their `.index`, `.data` and `checkpoint` bytes, and restore one), runs a
CheckpointManager, and records its error messages, which webflow must repeat. The rest runs without TensorFlow.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checkpoint_v2_model import MODEL_SOURCE  # noqa: E402
from checkpoint_v2_oracle import run_oracle  # noqa: E402
from tf_subprocess import SKIP_REASON, TF_PYTHON  # noqa: E402

import webflow as wf  # noqa: E402
import webflow.compat.v1 as tf1  # noqa: E402
from webflow.framework import errors  # noqa: E402
from webflow.io import checkpoint_bundle  # noqa: E402

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

MODEL = {"tf": wf, "tf1": tf1}
exec(MODEL_SOURCE, MODEL)   # make(seed), train_state(seed) ... with tf = webflow, tf1 = webflow.compat.v1

STRINGS = [("words", np.array([[b"ab", b""], [b"x" * 300, "\u00e9t\u00e9".encode()]], dtype=object)),
           ("n", np.arange(3, dtype=np.int32)), ("empty", np.array(b"", dtype=object))]


def expected_state(seed: int) -> dict:
    values = MODEL["model_values"](seed)
    return {name: value.tolist() if isinstance(value, np.ndarray) else value.item() for name, value in values.items()}


def small_checkpoint() -> wf.train.Checkpoint:
    return wf.train.Checkpoint(v=wf.Variable(np.zeros((2, 3), np.float32), name="w"))


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    base = tmp_path_factory.mktemp("checkpoint_v2")
    _, _, checkpoint = MODEL["make"](0)
    paths = {"webflow_saved": checkpoint.save(str(base / "webflow" / "ckpt")),
             "webflow_small": small_checkpoint().write(str(base / "small" / "ckpt")),
             "webflow_strings": str(base / "strings" / "s"),
             "tf_dir": str(base / "tf"), "tf_manager": str(base / "tf_manager")}
    checkpoint_bundle.write_bundle(paths["webflow_strings"], STRINGS)
    net, adam, momentum, checkpoint = MODEL["train_state"](5)
    MODEL["fill"](MODEL["optimizer_variables"](net, adam, momentum), 13)
    paths["webflow_optimizer"] = checkpoint.write(str(base / "optimizer" / "ckpt"))
    result = run_oracle(paths)
    result["paths"] = paths
    return result


def read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


# --- webflow -> TensorFlow -----------------------------------------------------------------------------------

@needs_tf
def test_tensorflow_restores_a_webflow_checkpoint_of_every_dtype(oracle: dict) -> None:
    assert oracle["restored_webflow"] == expected_state(0)   # assert_consumed() passed in TensorFlow too
    assert oracle["restored_save_counter"] == 1


@needs_tf
def test_tensorflow_lists_the_keys_and_shapes_webflow_lists(oracle: dict) -> None:
    ours = [[name, shape] for name, shape in wf.train.list_variables(oracle["paths"]["webflow_saved"])]
    assert oracle["webflow_list_variables"] == ours
    assert [name for name, _ in ours] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "model/blocks/0/.ATTRIBUTES/VARIABLE_VALUE",
        "model/blocks/1/ids/.ATTRIBUTES/VARIABLE_VALUE", "model/blocks/1/mask/.ATTRIBUTES/VARIABLE_VALUE",
        "model/count/.ATTRIBUTES/VARIABLE_VALUE", "model/dense/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "scale/.ATTRIBUTES/VARIABLE_VALUE"]


@needs_tf
def test_tensorflow_reads_webflow_string_tensors(oracle: dict) -> None:
    assert oracle["webflow_strings"] == ["ab", "", "x" * 300, "\u00e9t\u00e9"]


# --- the same bytes --------------------------------------------------------------------------------------------

@needs_tf
def test_save_writes_tensorflows_bytes(oracle: dict, tmp_path: os.PathLike) -> None:
    """The same objects and values give byte-identical .index, .data and `checkpoint` files."""
    _, _, checkpoint = MODEL["make"](0)
    ours = checkpoint.save(os.path.join(tmp_path, "ckpt"))
    theirs = oracle["tf_saved"]
    assert os.path.basename(ours) == os.path.basename(theirs) == "ckpt-1"
    for suffix in (".index", ".data-00000-of-00001"):
        assert read(ours + suffix) == read(theirs + suffix), suffix
    assert read(os.path.join(tmp_path, "checkpoint")).decode() == oracle["save_state"]
    written = checkpoint.write(os.path.join(tmp_path, "written"))
    for suffix in (".index", ".data-00000-of-00001"):   # save_counter (now 1) is part of both
        assert read(written + suffix) == read(os.path.join(oracle["paths"]["tf_dir"], "written" + suffix))


@needs_tf
def test_nested_checkpoints_shared_variables_and_escaped_names_are_tensorflows(oracle: dict,
                                                                                tmp_path: os.PathLike) -> None:
    ours = MODEL["nested"](0).write(os.path.join(tmp_path, "nested"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert read(ours + suffix) == read(oracle["tf_nested"] + suffix), suffix
    keys = [name for name, _ in wf.train.list_variables(ours)]
    assert "table/b..x.Sy/.ATTRIBUTES/VARIABLE_VALUE" in keys   # "." written "..", "/" written ".S"
    # each variable once, under its shortest path: the kernel as model.alias (depth 3, not model.dense.kernel),
    # the count as model.count (not model.pair[0])
    assert "inner/model/alias/.ATTRIBUTES/VARIABLE_VALUE" in keys and not any("kernel" in key for key in keys)
    assert not any("pair" in key for key in keys)
    restored = MODEL["nested"](8)
    restored.read(oracle["tf_nested"]).assert_consumed()   # (written without a save counter)
    assert restored.inner.model.alias.numpy().tolist() == expected_state(0)["kernel"]
    assert restored.table["b.x/y"].numpy() == 2.5


@needs_tf
def test_a_checkpoint_with_a_root_object_is_tensorflows(oracle: dict, tmp_path: os.PathLike) -> None:
    """Checkpoint(model, scale=...): keys without `model/`, and the same bytes; and it restores both ways."""
    _, model, _ = MODEL["make"](0)
    checkpoint = wf.train.Checkpoint(model, scale=wf.Variable(np.float32(0.5), name="scale"))
    ours = checkpoint.save(os.path.join(tmp_path, "rooted"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert read(ours + suffix) == read(oracle["tf_rooted"] + suffix), suffix
    assert "dense/kernel/.ATTRIBUTES/VARIABLE_VALUE" in dict(wf.train.list_variables(ours))
    _, other, _ = MODEL["make"](5)
    scale = wf.Variable(np.float32(0.0))
    restoring = wf.train.Checkpoint(other, scale=scale)
    restoring.restore(oracle["tf_rooted"]).assert_consumed()
    assert MODEL["model_state"](other, restoring) == {**expected_state(0), "scale": 0.5}
    assert restoring.save_counter.numpy() == 1


@needs_tf
def test_string_tensors_are_written_as_tensorflow_writes_them(oracle: dict, tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "strings")
    checkpoint_bundle.write_bundle(prefix, STRINGS)
    theirs = os.path.join(oracle["paths"]["tf_dir"], "strings")
    for suffix in (".index", ".data-00000-of-00001"):
        assert read(prefix + suffix) == read(theirs + suffix), suffix
    reader = checkpoint_bundle.BundleReader(theirs)
    assert reader.tensor("words").tolist() == STRINGS[0][1].tolist()
    assert reader.tensor("empty").shape == () and reader.tensor("empty")[()] == b""
    assert wf.train.load_checkpoint(theirs).get_tensor("empty") == b""


# --- TensorFlow -> webflow -----------------------------------------------------------------------------------

@needs_tf
def test_webflow_restores_a_tensorflow_checkpoint(oracle: dict) -> None:
    _, model, checkpoint = MODEL["make"](7)
    path = os.path.join(oracle["paths"]["tf_dir"], "for_webflow-1")
    checkpoint.restore(path).assert_consumed()
    assert MODEL["model_state"](model, checkpoint) == expected_state(1)
    assert checkpoint.save_counter.numpy() == 1
    assert model.blocks[0].dtype == wf.float16 and model.blocks[1]["mask"].dtype == wf.bool


@needs_tf
def test_module_variables_and_submodules_in_tensorflows_order(oracle: dict) -> None:
    _, model, _ = MODEL["make"](0)
    assert [v.name for v in model.variables] == oracle["tf_variables"]
    assert [v.name for v in model.trainable_variables] == oracle["tf_trainable"]
    assert [m.name for m in model.submodules] == oracle["tf_submodules"] == ["dense"]


# --- TF1 optimizers' state: slots and non-slot variables ----------------------------------------------------

@needs_tf
def test_optimizer_state_is_written_as_tensorflow_writes_it(oracle: dict, tmp_path: os.PathLike,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from webflow.train import optimizer as optimizer_module

    # slot names are numbered program-wide (as TensorFlow does): start the count afresh, as the oracle's did
    monkeypatch.setattr(optimizer_module, "_EAGER_SLOT_NAMES", {})
    net, adam, momentum, checkpoint = MODEL["train_state"](0)
    MODEL["fill"](MODEL["optimizer_variables"](net, adam, momentum), 11)
    ours = checkpoint.write(os.path.join(tmp_path, "optimizer"))
    for suffix in (".index", ".data-00000-of-00001"):
        assert read(ours + suffix) == read(oracle["tf_optimizer"] + suffix), suffix
    keys = [name for name, _ in wf.train.list_variables(ours)]
    assert "net/w/.OPTIMIZER_SLOT/adam/m/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "adam/beta1_power/.ATTRIBUTES/VARIABLE_VALUE" in keys


@needs_tf
def test_tensorflow_restores_webflows_optimizer_state(oracle: dict) -> None:
    rng = np.random.RandomState(13)   # fill(..., 13) drew these, in optimizer_variables' order
    net, adam, momentum, _ = MODEL["train_state"](5)
    shapes = [(v.shape.as_list(), v.dtype.as_numpy_dtype) for v in MODEL["optimizer_variables"](net, adam, momentum)]
    expected = [np.asarray(rng.randn(*shape), dtype).tolist() for shape, dtype in shapes]
    assert oracle["restored_optimizer"] == expected


@needs_tf
def test_webflow_restores_tensorflows_optimizer_state(oracle: dict) -> None:
    net, adam, momentum, checkpoint = MODEL["train_state"](3)   # slots made by a first step
    checkpoint.read(oracle["optimizer_for_webflow"]).assert_consumed()   # (read: no save counter made)
    values = [v.numpy().tolist() for v in MODEL["optimizer_variables"](net, adam, momentum)]
    assert values == oracle["optimizer_for_webflow_values"]


def test_optimizer_state_restored_before_the_first_step_resumes_training_exactly(tmp_path: os.PathLike) -> None:
    """Slots and beta powers restored into a fresh optimizer (deferred until its first step makes them): the
    next steps are the same as the uninterrupted run's."""
    def step(net: wf.Module, optimizer: tf1.train.Optimizer) -> None:
        with wf.GradientTape() as tape:
            loss = wf.reduce_sum(wf.square(net.w * 3.0 - 1.0))
        optimizer.apply_gradients(zip(tape.gradient(loss, [net.w]), [net.w]))

    def fresh() -> tuple:
        net = wf.Module()
        net.w = wf.Variable(np.array([0.5, -2.0, 4.0], np.float32))
        return net, tf1.train.AdamOptimizer(0.05)

    net, adam = fresh()
    for _ in range(3):
        step(net, adam)
    path = wf.train.Checkpoint(net=net, opt=adam).save(os.path.join(tmp_path, "resume"))
    other_net, other_adam = fresh()
    status = wf.train.Checkpoint(net=other_net, opt=other_adam).restore(path)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint \\(root\\).opt.beta1_power"):
        status.assert_consumed()   # Adam makes its beta powers at its first step
    for _ in range(2):
        step(net, adam)
        step(other_net, other_adam)
    status.assert_consumed()
    assert other_net.w.numpy().tolist() == net.w.numpy().tolist()
    assert other_adam.get_slot(other_net.w, "v").numpy().tolist() == adam.get_slot(net.w, "v").numpy().tolist()


# --- CheckpointManager -----------------------------------------------------------------------------------------

def state_lines(text: str) -> list:
    """The state file's lines with the times blanked (they differ run to run)."""
    return [line.split(":")[0] if "timestamp" in line else line for line in text.splitlines()]


@needs_tf
def test_checkpoint_manager_keeps_deletes_and_records_as_tensorflow(oracle: dict, tmp_path: os.PathLike) -> None:
    directory = os.path.join(tmp_path, "manager")
    manager = wf.train.CheckpointManager(small_checkpoint(), directory, max_to_keep=2)
    rel = lambda paths: [os.path.relpath(p, directory) for p in paths]  # noqa: E731
    theirs = lambda paths: [os.path.relpath(p, oracle["paths"]["tf_manager"]) for p in paths]  # noqa: E731
    assert rel([manager.save() for _ in range(4)]) == theirs(oracle["manager_saves"])
    assert rel(manager.checkpoints) == theirs(oracle["manager_checkpoints"]) == ["ckpt-3", "ckpt-4"]
    assert sorted(os.listdir(directory)) == oracle["manager_files"]
    assert rel([manager.save(checkpoint_number=10)]) == theirs([oracle["manager_numbered"]])
    with open(os.path.join(directory, "checkpoint")) as handle:
        ours = handle.read()
    assert state_lines(ours) == state_lines(oracle["manager_state"])
    state = wf.train.get_checkpoint_state(directory)
    stamps = list(state.all_model_checkpoint_timestamps)
    assert len(stamps) == 2 and state.last_preserved_timestamp < stamps[0] <= stamps[1]
    # a new manager takes the listed checkpoints over and goes on numbering from its checkpoint's counter
    again = wf.train.CheckpointManager(small_checkpoint(), directory, max_to_keep=3)
    their_again = oracle["manager_again"]
    assert rel(again.checkpoints) == theirs(their_again[0])
    assert rel([again.latest_checkpoint]) == theirs([their_again[1]])
    assert rel([again.save()]) == theirs([their_again[2]])
    assert sorted(os.listdir(directory)) == oracle["manager_again_files"]


# --- errors: TensorFlow's types and words ----------------------------------------------------------------------

def message(call) -> list | None:  # noqa: ANN001
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the type is what is compared
        return [type(error).__name__, str(error)]
    return None


def unordered(error: list) -> tuple:
    """An unmatched-objects message with its list as a set: TensorFlow lists them from a set, in no set order."""
    head, _, listed = error[1].partition("objects: [")
    return error[0], head, frozenset(item.strip("<>") for item in listed[:-1].split(">, <"))


@needs_tf
def test_errors_say_what_tensorflow_says(oracle: dict) -> None:
    source = oracle["paths"]["webflow_small"]
    shape = message(lambda: wf.train.Checkpoint(v=wf.Variable(np.zeros((3, 2), np.float32))).restore(source))
    assert shape == oracle["shape_error"] and shape[0] == "ValueError"
    dtype = message(lambda: wf.train.Checkpoint(v=wf.Variable(np.zeros((2, 3), np.float64))).restore(source))
    assert dtype[0] == oracle["dtype_error"][0] == "InvalidArgumentError"
    assert dtype[1] in oracle["dtype_error"][1]   # TensorFlow adds the name of the op that raised it
    extra = wf.train.Checkpoint(v=wf.Variable(np.zeros((2, 3), np.float32)), extra=wf.Variable(1.0))
    status = extra.restore(source)   # `extra` and the save counter it makes have no value in `source`
    assert unordered(message(status.assert_consumed)) == unordered(oracle["unmatched_python"])
    assert unordered(message(status.assert_existing_objects_matched)) == \
        unordered(oracle["unmatched_python_existing"])
    empty = wf.train.Checkpoint()
    status = empty.restore(source)
    assert message(status.assert_consumed) == oracle["unmatched_counter"]
    partial = wf.train.Checkpoint(scale=wf.Variable(0.0))
    status = partial.restore(oracle["paths"]["webflow_saved"])
    assert message(status.assert_existing_objects_matched) == oracle["unresolved_existing"] is None
    unresolved = message(status.assert_consumed)
    assert unresolved == oracle["unresolved_checkpoint"]
    assert unresolved[1].startswith("Unresolved object in checkpoint (root).model.count: attributes {")
    assert message(lambda: wf.train.Checkpoint().restore(source + "-9")) == oracle["not_found"]
    assert message(wf.train.Checkpoint().restore(None).assert_consumed) == oracle["none_status"]
    assert message(lambda: wf.train.Checkpoint(a=1)) == oracle["not_trackable"]
    assert message(lambda: wf.Module(name="a b")) == oracle["bad_module_name"]
    assert type("MyDenseLayer", (wf.Module,), {})().name == oracle["module_default_name"] == "my_dense_layer"


def test_a_failed_restore_changes_no_variable(tmp_path: os.PathLike) -> None:
    source = wf.train.Checkpoint(a=wf.Variable([1.0, 2.0]), b=wf.Variable(3.0)).write(os.path.join(tmp_path, "c"))
    a, b = wf.Variable([0.0, 0.0]), wf.Variable([0.0])   # b has another shape
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        wf.train.Checkpoint(a=a, b=b).restore(source)
    assert a.numpy().tolist() == [0.0, 0.0]


def test_a_damaged_string_tensor_raises_data_loss(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "s")
    checkpoint_bundle.write_bundle(prefix, STRINGS[:1])
    data = bytearray(read(prefix + ".data-00000-of-00001"))
    data[-1] ^= 1   # a byte of the last element
    with open(prefix + ".data-00000-of-00001", "wb") as handle:
        handle.write(bytes(data))
    with pytest.raises(errors.DataLossError, match="Checksum does not match"):
        checkpoint_bundle.BundleReader(prefix).tensor("words")


def test_a_corrupt_object_graph_raises_data_loss(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "graph")
    checkpoint_bundle.write_bundle(prefix, [("_CHECKPOINTABLE_OBJECT_GRAPH", np.array(b"\xff\xff", dtype=object))])
    with pytest.raises(errors.DataLossError, match="corrupt _CHECKPOINTABLE_OBJECT_GRAPH in"):
        wf.train.Checkpoint(v=wf.Variable(1.0)).restore(prefix)


@needs_tf
def test_a_tf1_checkpoint_is_restored_by_name_as_tensorflow_does(oracle: dict) -> None:
    """No object graph (TF1's Saver wrote it): each variable takes the value stored under its own name."""
    kernel = wf.Variable(np.zeros((2, 2), np.float32), name="dense/kernel")
    missing = wf.Variable(1.0, name="missing")
    checkpoint = wf.train.Checkpoint(k=kernel, z=missing)
    status = checkpoint.restore(oracle["name_based_path"])
    assert type(status).__name__ == oracle["name_based"][0] == "NameBasedSaverStatus"
    assert [kernel.numpy().tolist(), float(missing.numpy()), int(checkpoint.save_counter.numpy())] == \
        oracle["name_based"][1]
    for i, assertion in enumerate((status.assert_consumed, status.assert_existing_objects_matched)):
        assert message(assertion) == oracle["name_based"][2 + i]
    other = wf.Variable(np.zeros((3, 2), np.float32), name="dense/kernel")
    assert message(lambda: wf.train.Checkpoint(k=other).restore(oracle["name_based_path"])) == \
        oracle["name_based"][4]


# --- deferred restoration, without TensorFlow -----------------------------------------------------------------

class Lazy(wf.Module):
    def build(self) -> None:
        self.kernel = wf.Variable(np.zeros(2, np.float32))


def test_a_variable_made_after_restore_gets_its_value(tmp_path: os.PathLike) -> None:
    source = Lazy()
    source.build()
    source.kernel.assign([1.0, 2.0])
    path = wf.train.Checkpoint(m=source).save(os.path.join(tmp_path, "lazy"))
    target = Lazy()
    checkpoint = wf.train.Checkpoint(m=target)
    status = checkpoint.restore(path)
    with pytest.raises(AssertionError, match="Unresolved object in checkpoint"):
        status.assert_consumed()
    target.build()   # the restoration waiting for `kernel` runs now
    assert target.kernel.numpy().tolist() == [1.0, 2.0]
    status.assert_consumed()
    assert checkpoint.save_counter.numpy() == 1


def test_restored_values_survive_a_round_trip(tmp_path: os.PathLike) -> None:
    values, model, checkpoint = MODEL["make"](3)
    path = checkpoint.save(os.path.join(tmp_path, "round"))
    _, other, other_checkpoint = MODEL["make"](4)
    other_checkpoint.restore(path).assert_consumed().assert_nontrivial_match()
    assert MODEL["model_state"](other, other_checkpoint) == expected_state(3)
    assert wf.train.latest_checkpoint(str(tmp_path)) == path
