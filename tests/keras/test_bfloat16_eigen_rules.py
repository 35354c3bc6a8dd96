"""bfloat16 where TensorFlow's answer depends on how Eigen computes it on a CPU (backends/bfloat16_eigen.py), against
TensorFlow 2.21 / tf_keras: the sign of a NaN by its position (packets of 8 lose it, the tail keeps it; a cast from
float64 keeps it), denormals (kept by casts, negation and abs; flushed by the ops that compute; read as 0 by
comparisons, max / min / relu returning an operand's own bits), Sigmoid bit for bit
on every bfloat16 in (-30, 30), and Adam under the pure 'bfloat16' policy (beta_2 = 0.999 is 1.0 in bfloat16: the
weights never move)."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Run by both libraries (`tf` is webflow or tensorflow, `keras` webflow.keras or tf_keras).
SHARED = """
def bits(t):
    return np.asarray(tf.cast(t, tf.float32).numpy()).reshape(-1).view(np.uint32).tolist()
bf = tf.bfloat16
result["nan"] = {str(n): bits(tf.cast(tf.constant(np.full(n, -np.nan, np.float32)), bf)) for n in (1, 3, 8, 9, 17, 33)}
result["nan_2d"] = bits(tf.cast(tf.constant(np.full((3, 5), -np.nan, np.float32)), bf))
result["nan_f64"] = bits(tf.cast(tf.constant(np.full(9, -np.nan)), bf))
inf = tf.cast(tf.constant(np.full(9, np.inf, np.float32)), bf)
result["nan_mul"] = bits(inf * tf.constant(0.0, bf))
signed = tf.cast(tf.constant(np.full(9, -np.nan)), bf)   # ops that only move bits keep the signs
result["nan_moved"] = bits(tf.reshape(signed, [3, 3])) + bits(tf.concat([signed, signed], 0))
den = tf.cast(tf.constant(np.array([0x00010000, 0x00400000, 0x80020000, 0x00800000], np.uint32).view(np.float32)), bf)
small = tf.cast(tf.constant(np.array([1e-38, 2e-38, 1.2e-38, -1.1e-38], np.float32)), bf)
result["denormal"] = {"cast": bits(den), "mul": bits(den * tf.constant(1.0, bf)),
                      "add": bits(den + tf.constant(0.0, bf)), "neg": bits(-den), "abs": bits(tf.abs(den)),
                      "half": bits(small * tf.constant(0.5, bf)),
                      "sum": bits(tf.reduce_sum(den)), "exp": bits(tf.exp(den)),
                      "matmul": bits(tf.matmul(tf.reshape(den, [1, 4]), tf.ones([4, 1], bf)))}
pair = tf.cast(tf.constant(np.array([0x00010000, 0x80020000, 0x00400000, 0x80400000], np.uint32).view(np.float32)), bf)
zeros = tf.zeros([4], bf)
def read_as_zero(d, z):
    return {"gt": (d > z).numpy().tolist(), "eq": (d == z).numpy().tolist(), "relu": bits(tf.nn.relu(d)),
            "max_dz": bits(tf.maximum(d, z)), "max_zd": bits(tf.maximum(z, d)), "min_dz": bits(tf.minimum(d, z)),
            "min_zd": bits(tf.minimum(z, d)), "sign": bits(tf.sign(d)), "floor": bits(tf.floor(d)),
            "relu6": bits(tf.nn.relu6(d)), "leaky": bits(tf.nn.leaky_relu(d))}
result["read_as_zero"] = read_as_zero(pair, zeros)
traced = tf.function(lambda d, z: [d > z, d == z, tf.nn.relu(d), tf.maximum(d, z), tf.maximum(z, d),
                                    tf.minimum(d, z), tf.minimum(z, d), tf.sign(d), tf.floor(d)])
result["read_as_zero_graph"] = [t.numpy().tolist() if t.dtype == tf.bool else bits(t) for t in traced(pair, zeros)]
everything = (np.arange(0, 0x10000, dtype=np.uint32) << 16).view(np.float32)
everything = everything[np.isfinite(everything) & (np.abs(everything) < 30)]
result["sigmoid"] = bits(tf.sigmoid(tf.cast(tf.constant(everything), bf)))
result["sigmoid_graph"] = bits(tf.function(tf.sigmoid)(tf.cast(tf.constant(everything), bf)))

keras.backend.clear_session()
keras.mixed_precision.set_global_policy("bfloat16")
model = keras.Sequential([keras.layers.Dense(3, activation="relu", input_shape=(4,)), keras.layers.Dense(2)])
rng = np.random.RandomState(5)
model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()])
x = rng.standard_normal((8, 4)).astype(np.float32)
y = rng.standard_normal((8, 2)).astype(np.float32)
before = [bits(w) for w in model.weights]
model.compile(keras.optimizers.Adam(0.01), "mse")
history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0)
result["adam"] = {"dtypes": [w.dtype.name for w in model.weights], "policy": model.layers[0].dtype_policy.name,
                  "losses": history.history["loss"], "unchanged": [bits(w) for w in model.weights] == before,
                  "slots": sorted({v.dtype.name for v in model.optimizer.variables()})}
keras.mixed_precision.set_global_policy("float32")
"""


@pytest.fixture(scope="module")
def compared() -> tuple:
    ours: dict = {}
    exec(SHARED, {"tf": webflow, "keras": webflow.keras, "np": np, "result": ours})  # noqa: S102
    prologue = "import numpy as np\nimport tensorflow as tf\nimport tf_keras as keras\nresult = {}\n"
    return ours, run_oracle(prologue + SHARED)


@needs_tf
def test_nan_signs_follow_tensorflows_packets(compared: tuple) -> None:
    ours, theirs = compared
    for key in ("nan", "nan_2d", "nan_f64", "nan_mul", "nan_moved"):
        assert ours[key] == theirs[key], key
    assert theirs["nan"]["9"] == [0x7FC00000] * 8 + [0xFFC00000]   # what the rule is about


@needs_tf
def test_denormals_are_flushed_by_the_ops_that_compute(compared: tuple) -> None:
    ours, theirs = compared
    assert ours["denormal"] == theirs["denormal"]
    assert theirs["denormal"]["cast"] == [0x00010000, 0x00400000, 0x80020000, 0x00800000]   # casts keep them
    assert theirs["denormal"]["mul"][:3] == [0, 0, 0x80000000]
    assert ours["read_as_zero"] == theirs["read_as_zero"]
    assert ours["read_as_zero_graph"] == theirs["read_as_zero_graph"]
    assert theirs["read_as_zero"]["relu"] == [0x00010000, 0x80020000, 0x00400000, 0x80400000]   # relu(-d) = -d


@needs_tf
def test_sigmoid_matches_tensorflow_bit_for_bit(compared: tuple) -> None:
    ours, theirs = compared
    assert len(theirs["sigmoid"]) > 30000
    assert ours["sigmoid"] == theirs["sigmoid"]
    assert ours["sigmoid_graph"] == theirs["sigmoid"]


@needs_tf
def test_adam_under_the_pure_bfloat16_policy_as_tf_keras(compared: tuple) -> None:
    ours, theirs = compared
    assert theirs["adam"]["unchanged"]   # tf_keras: 1 - bfloat16(0.999)^t = 0, so alpha = 0
    for key in ("dtypes", "policy", "unchanged", "slots"):
        assert ours["adam"][key] == theirs["adam"][key], key
    # each batch's loss is a bfloat16 mean (summed in another order: a bfloat16 step apart at most)
    np.testing.assert_allclose(ours["adam"]["losses"], theirs["adam"]["losses"], rtol=2.0**-7)


def test_packet_rule_without_numpy_gives_the_same_bits() -> None:
    """The Pyodide path (CArray) of packet_nans and flush_denormals against the NumPy path."""
    from webflow.backends import bfloat16_eigen
    from webflow.backends.arrays import carray

    values = np.array([np.nan, -np.nan, 1.0, -np.nan, 2.0, -np.nan, 3.0, -np.nan, -np.nan, -np.nan], np.float32)
    values[2] = np.array([0x80010000], np.uint32).view(np.float32)[0]
    for step in (bfloat16_eigen.packet_nans, bfloat16_eigen.flush_denormals):
        expected = np.asarray(step(values.copy()), np.float32).view(np.uint32)
        portable = step(carray.from_value(values.tolist(), webflow.float32))
        assert np.array(portable.tolist(), np.float32).view(np.uint32).tolist() == expected.tolist(), step
