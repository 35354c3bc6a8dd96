"""Adadelta and centered RMSProp train without NumPy (as in Pyodide) exactly as with NumPy.

Each program runs twice in child Pythons (tests/test_no_numpy.py's helpers): once with `import numpy`
blocked (CArrays; the fused C updates wf_apply_adadelta / wf_apply_centeredrmsprop), once with NumPy
(the reference formulas of ops/training_ops.py). Same seeds, same data: the losses and weights agree up
to float32 summation order in the matmuls and reductions.
"""

from __future__ import annotations

import pytest
from test_no_numpy import NEEDS_C, _skip_if_no_c, run_with_numpy, run_without_numpy

PROGRAM = NEEDS_C + """
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [None, 3])
    t = tf.placeholder(tf.float32, [None, 2])
    w = tf.Variable(tf.random_uniform([3, 4], -1.0, 1.0, seed=7))
    v = tf.Variable(tf.random_uniform([4, 2], -1.0, 1.0, seed=8))
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(tf.matmul(x, w)), v) - t))
    optimizer = OPTIMIZER
    train = optimizer.minimize(loss)
    feed = {x: [[1.0, 0.5, -0.2], [0.2, 1.5, 0.3], [-1.2, 1.0, 0.8], [0.0, -0.5, 1.0]],
            t: [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [-1.0, 0.2]]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [float(sess.run([loss, train], feed)[0]) for _ in range(STEPS)]
        slots = {name: sess.run(optimizer.get_slot(w, name)).tolist() for name in optimizer.get_slot_names()}
        w_value, v_value = sess.run([w, v])
    print(json.dumps({"losses": losses, "w": w_value.tolist(), "v": v_value.tolist(), "slots": slots,
                      "type": type(w_value).__name__}))
"""

OPTIMIZERS = {
    "adadelta": ("tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)", 20),
    "centered_rmsprop": ("tf.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, centered=True)", 20),
}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_trains_without_numpy_as_with_numpy(name: str) -> None:
    optimizer, steps = OPTIMIZERS[name]
    program = PROGRAM.replace("OPTIMIZER", optimizer).replace("STEPS", str(steps))
    result = run_without_numpy(program)
    _skip_if_no_c(result)
    reference = run_with_numpy(program)
    assert result["type"] == "CArray" and reference["type"] == "ndarray"
    assert result["losses"] == pytest.approx(reference["losses"], rel=1e-5)
    assert result["losses"][-1] < result["losses"][0]
    for key in ("w", "v"):
        assert result[key] == [pytest.approx(row, rel=1e-4, abs=1e-6) for row in reference[key]], key
    assert result["slots"].keys() == reference["slots"].keys() and len(result["slots"]) >= 2
    for slot, value in reference["slots"].items():
        assert result["slots"][slot] == [pytest.approx(row, rel=1e-4, abs=1e-7) for row in value], slot


SPARSE_PROGRAM = NEEDS_C + """
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    ids = tf.placeholder(tf.int32, [None])
    t = tf.placeholder(tf.float32, [None])
    table = tf.Variable(tf.random_uniform([6, 3], -1.0, 1.0, seed=3))
    loss = tf.reduce_mean(tf.square(tf.reduce_sum(tf.nn.embedding_lookup(table, ids), axis=1) - t))
    optimizer = OPTIMIZER
    train = optimizer.minimize(loss)  # the gradient of a lookup is IndexedSlices: a SparseApply* op
    feed = {ids: [0, 2, 2, 5], t: [1.0, -0.5, -0.5, 0.25]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [float(sess.run([loss, train], feed)[0]) for _ in range(10)]
        table_value = sess.run(table)
    kinds = sorted({op.type for op in tf.get_default_graph().get_operations() if op.type.startswith("SparseApply")})
    print(json.dumps({"losses": losses, "table": table_value.tolist(), "kinds": kinds}))
"""


@pytest.mark.parametrize("optimizer", ["tf.train.MomentumOptimizer(0.1, 0.9)", "tf.train.AdagradOptimizer(0.5)",
                                       "tf.train.AdadeltaOptimizer(1.0)",
                                       "tf.train.RMSPropOptimizer(0.05, centered=True)"])
def test_sparse_updates_without_numpy_as_with_numpy(optimizer: str) -> None:
    program = SPARSE_PROGRAM.replace("OPTIMIZER", optimizer)
    result = run_without_numpy(program)
    _skip_if_no_c(result)
    reference = run_with_numpy(program)
    assert result["kinds"] == reference["kinds"] and len(result["kinds"]) == 1
    assert result["losses"] == pytest.approx(reference["losses"], rel=1e-5)
    assert result["losses"][-1] < result["losses"][0]
    assert result["table"] == [pytest.approx(row, rel=1e-5, abs=1e-6) for row in reference["table"]]
    assert result["table"][1] == reference["table"][1]  # a row no id touched keeps its initial value
