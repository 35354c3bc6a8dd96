"""TF2 SavedModels both ways (webflow/saved_model: save_v2.py, load_v2.py): `wf.saved_model.save` of a wf.Module with
variables and wf.functions (input signatures, a sub-module, a tf.cond inside, a dict result), and
`wf.saved_model.load` of what webflow and TensorFlow write.

Without TensorFlow: webflow's SavedModel loads back into webflow and gives the module's outputs; its files and
object graph are laid out as TensorFlow lays them out. With WEBFLOW_TF_PYTHON (one TensorFlow 2.21 subprocess):
TensorFlow's `tf.saved_model.load` calls webflow's functions and signatures and gets webflow's outputs and variable
values; webflow loads TensorFlow's SavedModel of the same model and gets TensorFlow's outputs.
"""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

import webflow as wf
from webflow.saved_model.load_v2 import object_graph_def
from webflow.saved_model.loader import parse_saved_model

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

W = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
B = [0.5, -0.5, 1.0]
X = np.array([[1.0, -1.0], [2.0, 0.5], [-0.5, 3.0]], np.float32)

# The model, as source both engines run (`tf` is webflow or TensorFlow): a dense layer with ReLU, a sub-module's
# scale read in a tf.cond, and a second function returning a dict.
MODEL = f"""
class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.factor = tf.Variable(2.0, name="factor")

class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable({W}, name="w")
        self.b = tf.Variable({B}, name="b")
        self.scale = Scale()

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def __call__(self, x):
        y = tf.nn.relu(tf.matmul(x, self.w) + self.b)
        return tf.cond(tf.reduce_sum(x) > 0, lambda: y * self.scale.factor, lambda: y)

    @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32, name="x")])
    def stats(self, x):
        y = tf.matmul(x, self.w)
        return {{"total": tf.reduce_sum(y, axis=1), "largest": tf.reduce_max(y, axis=1)}}

model = Dense()
"""


LOOP = """
class Loop(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable(1.5, name="v")

    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
    def f(self, x):
        i, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * self.v + 1.0), [tf.constant(0), x])
        return s, i

model = Loop()
"""
LOOP_X = [1.0, 2.0, -3.0]


def loop_expected() -> list:
    s = np.array(LOOP_X, np.float32)
    for _ in range(3):
        s = s * 1.5 + 1.0
    return [s.tolist(), 3]


def build_loop():
    scope = {"tf": wf}
    exec(LOOP, scope)  # noqa: S102
    return scope["model"]


def build_model():
    scope = {"tf": wf}
    exec(MODEL, scope)  # noqa: S102
    return scope["model"]


def expected(x: np.ndarray, factor: float = 2.0) -> dict:
    """The model's outputs in NumPy."""
    y = np.maximum(x @ np.array(W, np.float32) + np.array(B, np.float32), 0)
    rows = x @ np.array(W, np.float32)
    return {"call": y * factor if x.sum() > 0 else y,   # the cond is on the whole batch's sum
            "total": rows.sum(axis=1), "largest": rows.max(axis=1)}


def check_outputs(call, total, largest, x: np.ndarray = X) -> None:
    want = expected(x)
    np.testing.assert_allclose(np.asarray(call), np.array(want["call"]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(total), want["total"], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(largest), want["largest"], rtol=1e-6)


def save_model(path) -> None:
    model = build_model()
    wf.saved_model.save(model, str(path), signatures={"serving_default": model.__call__, "stats": model.stats})


# --- without TensorFlow ---------------------------------------------------------------------------------------
def test_webflows_saved_model_loads_back_into_webflow(tmp_path) -> None:
    save_model(tmp_path / "model")
    loaded = wf.saved_model.load(str(tmp_path / "model"))
    stats = loaded.stats(X)
    check_outputs(loaded(X), stats["total"], stats["largest"])
    served = loaded.signatures["serving_default"](x=wf.constant(X))
    by_signature = loaded.signatures["stats"](x=wf.constant(X))
    assert sorted(served) == ["output_0"] and sorted(by_signature) == ["largest", "total"]
    check_outputs(served["output_0"], by_signature["total"], by_signature["largest"])
    np.testing.assert_array_equal(loaded.w.numpy(), np.array(W, np.float32))
    assert float(loaded.scale.factor.numpy()) == 2.0
    loaded.scale.factor.assign(1.0)   # the functions read the restored variables live
    np.testing.assert_allclose(loaded(X).numpy(), np.array(expected(X, factor=1.0)["call"]), rtol=1e-6)


def test_files_and_object_graph_as_tensorflow_lays_them_out(tmp_path) -> None:
    save_model(tmp_path / "model")
    names = sorted(os.listdir(tmp_path / "model"))
    assert names == ["assets", "saved_model.pb", "variables"]
    assert sorted(os.listdir(tmp_path / "model" / "variables")) == ["variables.data-00000-of-00001",
                                                                    "variables.index"]
    assert "w/.ATTRIBUTES/VARIABLE_VALUE" in {name for name, _ in wf.train.list_variables(
        str(tmp_path / "model" / "variables" / "variables"))}
    saved_model = parse_saved_model(str(tmp_path / "model"))
    meta = saved_model.meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    graph = object_graph_def(meta)
    root = {child.local_name: child.node_id for child in graph.nodes[0].children}
    assert {"w", "b", "scale", "__call__", "stats", "signatures"} <= set(root)
    assert graph.nodes[root["w"]].variable.name == "w"
    call = graph.nodes[root["__call__"]].function
    [concrete] = call.concrete_functions
    assert concrete.startswith("__inference___call___")
    bound = graph.concrete_functions[concrete].bound_inputs
    assert sorted(graph.nodes[i].variable.name for i in bound) == ["b", "factor", "w"]
    functions = {f.signature.name: f for f in meta.graph_def.library.function}
    assert concrete in functions and any(n.op == "If" for n in functions[concrete].node_def)
    signature = meta.signature_def["serving_default"]
    assert signature.method_name == "tensorflow/serving/predict"
    assert signature.inputs["x"].name == "serving_default_x:0"
    assert sorted(meta.signature_def["stats"].outputs) == ["largest", "total"]


def test_a_while_loop_returning_a_tuple_and_the_default_signature(tmp_path) -> None:
    """signatures=None: the one function with an input_signature serves, its outputs named output_0, output_1."""
    wf.saved_model.save(build_loop(), str(tmp_path / "loop"))
    loaded = wf.saved_model.load(str(tmp_path / "loop"))
    s, i = loaded.f(np.array(LOOP_X, np.float32))
    assert [s.numpy().tolist(), int(i)] == loop_expected()
    served = loaded.signatures["serving_default"](x=wf.constant(LOOP_X))
    assert [served["output_0"].numpy().tolist(), int(served["output_1"])] == loop_expected()


def test_functions_capturing_other_tensors_are_refused(tmp_path) -> None:
    module = wf.Module()
    outside = wf.constant(3.0)
    module.f = wf.function(lambda x: x * outside, input_signature=[wf.TensorSpec([], wf.float32)])
    with pytest.raises(ValueError, match="not a variable of the saved object"):
        wf.saved_model.save(module, str(tmp_path / "model"))
    assert not os.path.exists(tmp_path / "model")


# --- against TensorFlow ----------------------------------------------------------------------------------------
_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
job = json.load(sys.stdin)
x = np.array(job["x"], np.float32)
out = {}
loaded = tf.saved_model.load(job["webflow"])          # webflow's SavedModel in TensorFlow
stats = loaded.stats(x)
out["webflow"] = {"call": loaded(x).numpy().tolist(), "total": stats["total"].numpy().tolist(),
                  "largest": stats["largest"].numpy().tolist(),
                  "signature": loaded.signatures["serving_default"](x=tf.constant(x))["output_0"].numpy().tolist(),
                  "signature_stats": {k: v.numpy().tolist()
                                      for k, v in loaded.signatures["stats"](x=tf.constant(x)).items()},
                  "w": loaded.w.numpy().tolist(), "factor": float(loaded.scale.factor.numpy())}
loop = tf.saved_model.load(job["loop"])
s, i = loop.f(np.array(job["loop_x"], np.float32))
served = loop.signatures["serving_default"](x=tf.constant(job["loop_x"]))
out["loop"] = [[s.numpy().tolist(), int(i)], [served["output_0"].numpy().tolist(), int(served["output_1"])]]
scope = {"tf": tf}
exec(job["model"], scope)                              # TensorFlow's SavedModel of the same model
model = scope["model"]
tf.saved_model.save(model, job["tensorflow"], signatures={"serving_default": model.__call__, "stats": model.stats})
print("RESULT:" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def exchanged(tmp_path_factory) -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    folder = tmp_path_factory.mktemp("saved_models_v2")
    save_model(folder / "webflow")
    wf.saved_model.save(build_loop(), str(folder / "loop"))
    job = {"x": X.tolist(), "webflow": str(folder / "webflow"), "tensorflow": str(folder / "tensorflow"),
           "model": MODEL, "loop": str(folder / "loop"), "loop_x": LOOP_X}
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([TF_PYTHON, "-c", _DRIVER], input=json.dumps(job), capture_output=True, text=True,
                          timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"TensorFlow run failed:\n{done.stderr[-3000:]}")
    return {"theirs": json.loads(lines[-1][len("RESULT:"):]), "folder": folder}


@needs_tf
def test_tensorflow_loads_webflows_saved_model(exchanged: dict) -> None:
    got = exchanged["theirs"]["webflow"]
    check_outputs(got["call"], got["total"], got["largest"])
    check_outputs(got["signature"], got["signature_stats"]["total"], got["signature_stats"]["largest"])
    assert got["w"] == W and got["factor"] == 2.0
    assert exchanged["theirs"]["loop"] == [loop_expected(), loop_expected()]   # a While in a saved function


@needs_tf
def test_webflow_loads_tensorflows_saved_model(exchanged: dict) -> None:
    loaded = wf.saved_model.load(str(exchanged["folder"] / "tensorflow"))
    stats = loaded.stats(X)
    check_outputs(loaded(X), stats["total"], stats["largest"])
    served = loaded.signatures["serving_default"](x=wf.constant(X))
    by_signature = loaded.signatures["stats"](x=wf.constant(X))
    check_outputs(served["output_0"], by_signature["total"], by_signature["largest"])
    np.testing.assert_array_equal(loaded.w.numpy(), np.array(W, np.float32))
    assert float(loaded.scale.factor.numpy()) == 2.0
