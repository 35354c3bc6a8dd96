"""bfloat16 against TensorFlow 2.21 / tf_keras (oracle venv): Cast's rounding bit for bit on hand-picked values (ties,
NaN, infinities, denormals, the largest values), how bfloat16 tensors print, ops and their gradients on bfloat16, the
ops TensorFlow refuses, a Conv/Dense model under 'mixed_bfloat16' (dtypes, outputs, 10 SGD steps' losses from the
same initial weights), TensorProtos, and checkpoints written by one library and read by the other (the data file
byte for byte)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow
from webflow import keras
from webflow.framework import errors

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
ULP = 2.0**-7  # bfloat16's relative spacing at worst

# float32 bit patterns: ties to even (down, up), just above a tie, NaNs (quiet, negative, signalling), infinities,
# float32 denormals (one rounding to a bfloat16 denormal, the smallest rounding to 0), the largest float32 (to inf),
# the largest bfloat16, one rounding up across a power of 2, -0
BITS = [0x3F808000, 0x3F818000, 0x3F808001, 0xC0404000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7F800000, 0xFF800000,
        0x00011234, 0x00000001, 0x00018000, 0x7F7FFFFF, 0x7F7F0000, 0x3FFFFFFF, 0x80000000, 0x40490FD0, 0x477FE000]
# (no double below float32's normal range: TensorFlow's threads flush the float32 denormal that double -> float makes)
DOUBLES = [1.0 + 2.0**-8 + 2.0**-30, 1.0 + 2.0**-9, 3.141592653589793, -1e-30, 1e39]

# The same source in both libraries (`tf` = webflow or tensorflow, eager).
SHARED = """
d = tf.bfloat16
result["dtype"] = [d.name, d.size, float(d.min), float(d.max), d.is_floating, d.as_datatype_enum, repr(d), str(d),
                   tf.as_dtype("bfloat16") == d, tf.as_dtype(14) == d]
values = np.array(BITS, np.uint32).view(np.float32)
as_bf16 = tf.cast(tf.constant(values), tf.bfloat16)
result["cast_dtype"] = as_bf16.dtype.name
result["cast_bits"] = np.asarray(tf.cast(as_bf16, tf.float32).numpy()).view(np.uint32).tolist()
result["from_double"] = tf.cast(tf.cast(tf.constant(DOUBLES, tf.float64), tf.bfloat16), tf.float64).numpy().tolist()
result["to_int"] = tf.cast(tf.constant([2.75, -3.5, 300.0], tf.bfloat16), tf.int32).numpy().tolist()
a = tf.constant([[1.0, -2.5, 0.001], [300.0, 3.14159, 1e10]], tf.bfloat16)
s = tf.constant(3.14159, tf.bfloat16)
result["text"] = [repr(a), str(a), repr(s), str(s), repr(tf.Variable(a[0]))[len("<tf.Variable 'Variable:0' "):]]
rng = np.random.RandomState(3)
x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
k = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
w = rng.standard_normal((64, 5)).astype(np.float32)
bias = rng.standard_normal(5).astype(np.float32)
labels = np.array([1, 4])
xb, kb, wb, bb = (tf.cast(tf.constant(v), tf.bfloat16) for v in (x, k, w, bias))
with tf.GradientTape() as tape:
    tape.watch([xb, kb, wb, bb])
    conv = tf.nn.relu(tf.nn.conv2d(xb, kb, 1, "SAME"))
    pooled = tf.nn.max_pool2d(conv, 2, 2, "VALID")
    averaged = tf.nn.avg_pool2d(conv, 3, 3, "VALID")
    flat = tf.reshape(pooled, [2, 36])
    logits = tf.nn.bias_add(tf.matmul(tf.concat([flat, tf.reshape(averaged, [2, 16]), flat[:, :12]], 1), wb), bb)
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent) + tf.reduce_sum(tf.sigmoid(logits) * tf.tanh(logits)) * 0.01
grads = tape.gradient(loss, [xb, kb, wb, bb])
outs = {"conv": conv, "pooled": pooled, "averaged": averaged, "logits": logits, "softmax": tf.nn.softmax(logits),
        "log_softmax": tf.nn.log_softmax(logits), "xent": xent, "loss": loss, "mean": tf.reduce_mean(conv, [1, 2]),
        "max": tf.reduce_max(logits, 1), "exp": tf.exp(logits * 0.1), "sqrt": tf.sqrt(tf.abs(logits)),
        "grad_x": grads[0], "grad_k": grads[1], "grad_w": grads[2], "grad_b": grads[3]}
result["ops"] = {name: [t.dtype.name, tf.cast(t, tf.float32).numpy().tolist()] for name, t in outs.items()}
v = tf.Variable(tf.constant([1.0, 2.0, 3.0], tf.bfloat16))
v.assign_sub(tf.constant([0.00390625, 0.01, 1.0], tf.bfloat16) * 0.5)
result["variable"] = [v.dtype.name, tf.cast(v, tf.float32).numpy().tolist()]
# a bfloat16 variable keeps only the rounded update: 1 - 0.001 is 1 again, 0.01 - 0.001 is not 0.01
u = tf.Variable(tf.constant([1.0, 256.0, 0.01], tf.bfloat16))
sgd = keras.optimizers.SGD(0.001, momentum=0.5)
for _ in range(5):
    u.assign_sub(tf.constant([0.001, 1.0, 0.001], tf.bfloat16))
    sgd.apply_gradients([(tf.constant([1.0, 1.0, 1.0], tf.bfloat16), u)])
result["updates"] = np.asarray(tf.cast(u, tf.float32)).view(np.uint32).tolist()
protos = [tf.make_tensor_proto(v, dtype=tf.bfloat16) for v in ([1.5, 3.14159, -2.0], 2.5, [[0.1]])]
protos.append(tf.make_tensor_proto(0.0, dtype=tf.bfloat16, shape=[2, 2]))
result["protos"] = [p.SerializeToString().hex() for p in protos]
result["from_protos"] = [np.asarray(tf.make_ndarray(p), np.float32).tolist() for p in protos]
try:
    tf.truncatemod(a, a)
    result["truncatemod"] = "no error"
except Exception as error:
    result["truncatemod"] = type(error).__name__
"""

# an OpDef that refuses bfloat16 (InTopKV2's predictions are float32 only): TypeError while building the graph
REFUSED_BY_OP_DEF = """
with v1.Graph().as_default():
    try:
        v1.nn.in_top_k(v1.placeholder(v1.bfloat16, [1, 2]), [0], 1)
        result["in_top_k"] = "no error"
    except TypeError as error:
        result["in_top_k"] = str(error)
"""

KERAS = """
keras.backend.clear_session()
keras.mixed_precision.set_global_policy("mixed_bfloat16")
inputs = keras.Input((8, 8, 1))
x = keras.layers.Conv2D(4, 3, activation="relu")(inputs)
x = keras.layers.MaxPooling2D()(x)
x = keras.layers.Flatten()(x)
x = keras.layers.Dense(16, activation="relu")(x)
outputs = keras.layers.Dense(3)(x)
model = keras.Model(inputs, outputs)
model.set_weights(initial)
rng = np.random.RandomState(0)
xs = rng.rand(32, 8, 8, 1).astype(np.float32)
ys = rng.randint(0, 3, 32)
first = model(xs[:4])
model.compile(keras.optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
losses = [float(model.train_on_batch(xs[i % 2 * 16:(i % 2 + 1) * 16], ys[i % 2 * 16:(i % 2 + 1) * 16]))
          for i in range(10)]
policy = keras.mixed_precision.global_policy()
result["keras"] = {"layers": [[layer.name, layer.compute_dtype, layer.variable_dtype] for layer in model.layers],
                   "weights": [w.dtype.name for w in model.weights], "first_dtype": first.dtype.name,
                   "first": np.asarray(tf.cast(first, tf.float32)).tolist(), "losses": losses,
                   "optimizer": type(model.optimizer).__name__, "policy": [policy.name, policy.compute_dtype],
                   "kernel": np.asarray(model.weights[0]).tolist()}
keras.mixed_precision.set_global_policy("float32")
"""

# TensorFlow reads webflow's checkpoints (object-based and TF1 Saver) and writes its own for webflow to read.
TF_CHECKPOINTS = """
reader = tf.train.load_checkpoint(os.path.join(DIRECTORY, "wf_object"))
key = "v/.ATTRIBUTES/VARIABLE_VALUE"
result["read_wf"] = [reader.get_variable_to_dtype_map()[key].name,
                     np.asarray(reader.get_tensor(key).astype(np.float32)).view(np.uint32).tolist()]
restored = tf.Variable(tf.zeros([len(CHECKPOINT_VALUES)], tf.bfloat16))
tf.train.Checkpoint(v=restored).read(os.path.join(DIRECTORY, "wf_object")).assert_consumed()
result["restored_wf"] = tf.cast(restored, tf.float32).numpy().view(np.uint32).tolist()
tf.train.Checkpoint(v=tf.Variable(tf.constant(CHECKPOINT_VALUES, tf.bfloat16))).write(
    os.path.join(DIRECTORY, "tf_object"))
graph = tf.Graph()
with graph.as_default():
    variable = tf.compat.v1.Variable(tf.constant(CHECKPOINT_VALUES, tf.bfloat16), name="v")
    with tf.compat.v1.Session() as session:
        session.run(variable.initializer)
        tf.compat.v1.train.Saver([variable]).save(session, os.path.join(DIRECTORY, "tf_saver"),
                                                  write_meta_graph=False, write_state=False)
"""
CHECKPOINT_VALUES = [1.00390625, -3.14159, 1e-30, 65504.0, -0.0, 3e38]


def _run_shared(tf: object, extra: dict) -> dict:
    scope = {"tf": tf, "np": np, "keras": keras, "BITS": BITS, "DOUBLES": DOUBLES, "result": {}, **extra}
    exec(SHARED, scope)
    return scope["result"]


def _initial_weights() -> list:
    rng = np.random.RandomState(1)
    shapes = [(3, 3, 1, 4), (4,), (36, 16), (16,), (16, 3), (3,)]
    return [rng.uniform(-0.5, 0.5, shape).astype(np.float32) for shape in shapes]


def _write_webflow_checkpoints(directory: str) -> None:
    variable = webflow.Variable(webflow.constant(CHECKPOINT_VALUES, webflow.bfloat16))
    webflow.train.Checkpoint(v=variable).write(os.path.join(directory, "wf_object"))
    import webflow.compat.v1 as tf1

    graph = tf1.Graph()
    with graph.as_default():
        saved = tf1.Variable(tf1.constant(CHECKPOINT_VALUES, tf1.bfloat16), name="v")
        with tf1.Session() as session:
            session.run(saved.initializer)
            tf1.train.Saver([saved]).save(session, os.path.join(directory, "wf_saver"), write_meta_graph=False,
                                          write_state=False)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """(webflow's results, TensorFlow's, the directory holding both libraries' checkpoints)."""
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    directory = str(tmp_path_factory.mktemp("bfloat16"))
    _write_webflow_checkpoints(directory)
    ours = _run_shared(webflow, {})
    scope = {"keras": keras, "tf": webflow, "np": np, "initial": _initial_weights(), "result": ours}
    exec(KERAS, scope)
    import webflow.compat.v1 as v1

    exec(REFUSED_BY_OP_DEF, {"v1": v1, "result": ours})
    prologue = (f"import os\nimport numpy as np\nimport tensorflow as tf\nimport tf_keras as keras\nresult = {{}}\n"
                f"BITS = {BITS!r}\nDOUBLES = {DOUBLES!r}\nDIRECTORY = {directory!r}\n"
                f"CHECKPOINT_VALUES = {CHECKPOINT_VALUES!r}\n"
                "rng0 = np.random.RandomState(1)\ninitial = [rng0.uniform(-0.5, 0.5, s).astype(np.float32) for s in "
                "[(3, 3, 1, 4), (4,), (36, 16), (16,), (16, 3), (3,)]]\n")
    theirs = run_oracle(prologue + SHARED + KERAS + TF_CHECKPOINTS + "v1 = tf.compat.v1\n" + REFUSED_BY_OP_DEF)
    return ours, theirs, directory


@needs_tf
def test_cast_rounds_to_tensorflows_bits(compared: tuple) -> None:
    ours, theirs, _ = compared
    assert ours["cast_dtype"] == theirs["cast_dtype"] == "bfloat16"
    assert ours["dtype"] == theirs["dtype"]
    # a NaN's sign: TensorFlow's vectorised Cast (8 floats at a time) makes every NaN 0x7FC0, its scalar tail keeps
    # the sign (0xFFC0); webflow follows the same rule (backends/bfloat16_eigen.py)
    assert [hex(b) for b in ours["cast_bits"]] == [hex(b) for b in theirs["cast_bits"]]
    np.testing.assert_array_equal(ours["from_double"], theirs["from_double"])
    assert ours["to_int"] == theirs["to_int"]


def test_cast_rounding_by_hand() -> None:
    """Without TensorFlow: ties go to the even bfloat16, NaN stays a quiet NaN with its sign, max float32 -> inf."""
    values = np.array([0x3F808000, 0x3F818000, 0x3F808001, 0xFF800001, 0x7F7FFFFF, 0x00000001],
                      np.uint32).view(np.float32)
    got = webflow.cast(webflow.cast(webflow.constant(values), webflow.bfloat16), webflow.float32).numpy()
    assert got.view(np.uint32).tolist() == [0x3F800000, 0x3F820000, 0x3F810000, 0xFFC00000, 0x7F800000, 0]


def test_cast_truncate_drops_the_low_bits() -> None:
    from webflow.ops.registry import apply_op

    x = webflow.constant(np.array([0x3F80FFFF, 0xBF818000], np.uint32).view(np.float32))
    got = apply_op("Cast", [x], {"SrcT": webflow.float32, "DstT": webflow.bfloat16, "Truncate": True})
    assert got.dtype == webflow.bfloat16
    assert got.numpy().view(np.uint32).tolist() == [0x3F800000, 0xBF810000]


def test_no_numpy_rounding_gives_the_same_bits() -> None:
    """The Pyodide path (a CArray, pure Python) against the NumPy path on every pattern above."""
    from webflow.backends import bfloat16
    from webflow.backends.arrays import carray

    values = np.array(BITS, np.uint32).view(np.float32)
    portable = bfloat16._round_carray(carray.from_value(values.tolist(), webflow.float32), False)
    expected = bfloat16.round_to_bfloat16(values).view(np.uint32)
    got = np.array(portable.tolist(), np.float32).view(np.uint32)
    assert [hex(b) for b in got] == [hex(b) for b in expected]


@needs_tf
def test_bfloat16_tensors_print_as_tensorflow_prints_them(compared: tuple) -> None:
    ours, theirs, _ = compared
    assert ours["text"] == theirs["text"]


@needs_tf
def test_ops_and_gradients_on_bfloat16_match_tensorflow(compared: tuple) -> None:
    ours, theirs, _ = compared
    for name, (dtype, values) in theirs["ops"].items():
        assert ours["ops"][name][0] == dtype == "bfloat16", name
        # float32 sums in another order end up to a few bfloat16 steps apart on the largest values
        scale = np.max(np.abs(values)) if np.size(values) else 1.0
        np.testing.assert_allclose(ours["ops"][name][1], values, rtol=2 * ULP, atol=4 * ULP * scale, err_msg=name)
    assert ours["variable"] == theirs["variable"]
    assert ours["updates"] == theirs["updates"]


@needs_tf
def test_tensor_protos_hold_tensorflows_bytes(compared: tuple) -> None:
    """GraphDef constants: 2 bytes each in tensor_content, or the bit patterns in half_val for one value."""
    ours, theirs, _ = compared
    assert ours["protos"] == theirs["protos"]
    assert ours["from_protos"] == theirs["from_protos"]


@needs_tf
def test_ops_tensorflow_refuses_on_bfloat16_are_refused(compared: tuple) -> None:
    ours, theirs, _ = compared
    assert ours["truncatemod"] == theirs["truncatemod"] == "NotFoundError"
    assert ours["in_top_k"] == theirs["in_top_k"]
    assert "does not match expected type of float32" in ours["in_top_k"]
    import webflow.compat.v1 as tf1

    graph = tf1.Graph()
    with graph.as_default():
        holder = tf1.placeholder(tf1.bfloat16, [2])
        refused = tf1.truncatemod(holder, holder)
        with tf1.Session() as session, pytest.raises(errors.InvalidArgumentError, match="No OpKernel was registered"):
            session.run(refused, {holder: [1.0, 2.0]})


@needs_tf
def test_mixed_bfloat16_model_trains_as_tf_keras(compared: tuple) -> None:
    ours, theirs = compared[0]["keras"], compared[1]["keras"]
    for key in ("layers", "weights", "first_dtype", "optimizer", "policy"):
        assert ours[key] == theirs[key], key
    assert theirs["optimizer"] == "SGD"  # no LossScaleOptimizer under mixed_bfloat16
    np.testing.assert_allclose(ours["first"], theirs["first"], rtol=ULP, atol=1e-3)
    # each step's loss is a bfloat16 (spacing 2^-7 near 1): identical at first, then a step or two apart
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=2 * ULP)
    np.testing.assert_allclose(ours["kernel"], theirs["kernel"], atol=0.02)


@needs_tf
def test_checkpoints_interchange_with_tensorflow(compared: tuple) -> None:
    ours, theirs, directory = compared
    expected = np.asarray(webflow.cast(webflow.constant(CHECKPOINT_VALUES, webflow.bfloat16), webflow.float32))
    assert theirs["read_wf"] == ["bfloat16", expected.view(np.uint32).tolist()]
    assert theirs["restored_wf"] == expected.view(np.uint32).tolist()
    restored = webflow.Variable(webflow.zeros([len(CHECKPOINT_VALUES)], webflow.bfloat16))
    webflow.train.Checkpoint(v=restored).read(os.path.join(directory, "tf_object")).assert_consumed()
    assert restored.dtype == webflow.bfloat16
    assert np.asarray(restored.numpy()).view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    for name in ("wf_saver", "tf_saver"):   # a TF1 Saver's data file holds just the 2-byte values
        with open(os.path.join(directory, f"{name}.data-00000-of-00001"), "rb") as file:
            assert file.read() == (expected.view(np.uint32) >> 16).astype("<u2").tobytes(), name
