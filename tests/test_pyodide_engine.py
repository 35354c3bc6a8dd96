"""The real webflow package inside Pyodide: installed from its wheel with micropip, no NumPy, wasm kernels.

The story a browser user lives: `pip wheel` makes webflow's wheel (webflow_kernels.wasm inside), Pyodide
(Node 20 + npm `pyodide`, offline) loads micropip from its own wheel file and installs webflow's with it,
`import webflow.compat.v1 as tf` works although NumPy cannot be imported there, every op with a C kernel
runs it from the wasm side module, and classic TF1 training programs fetch the same numbers (1e-5) as
the very same programs run in CPython on the NumPy backend (WEBFLOW_BACKEND=numpy, the independent oracle).

Needs: node + `npm ci` in tests/pyodide (`make test` does it), clang + wasm-ld for the .wasm, pip able to
build the wheel and (once) to download micropip from PyPI. Skips, with the reason, only when one is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "pyodide"))
from conftest import require_or_skip  # noqa: E402
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable  # noqa: E402
from wheels import WheelUnavailable, build_webflow_wheel, micropip_wheel  # noqa: E402


@pytest.fixture(scope="module")
def pyodide(tmp_path_factory):
    """One Node + Pyodide process with webflow installed from a wheel built now from the current sources."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node/npm are not installed: cannot run Pyodide (CI installs Node 20)")
    if not os.path.isdir(NODE_MODULES):
        pytest.skip(f"npm package pyodide not installed: run `npm ci` in {os.path.dirname(NODE_MODULES)}")
    try:
        wheel = build_webflow_wheel(str(tmp_path_factory.mktemp("wheel")))
        micropip = micropip_wheel()
    except WheelUnavailable as error:
        pytest.skip(f"no wheel to install in Pyodide: {error}")
    try:
        session = PyodideSession.start(wheel=wheel, micropip=micropip)
    except PyodideUnavailable as error:  # node and pyodide are there: a crash is a failure, not a skip
        pytest.fail(f"Pyodide did not start with the webflow wheel: {error}")
    session.wheel = wheel
    yield session
    session.close()
    print(f"\nPyodide: boot {session.boot_seconds:.2f} s, micropip + webflow wheel install "
          f"{session.install_seconds:.2f} s, import webflow {session.import_seconds:.2f} s, "
          f"wheel {os.path.getsize(wheel) / 1e6:.2f} MB")


def test_the_wheel_ships_both_wasm_modules(pyodide) -> None:
    """The baseline side module always; the relaxed-SIMD one (fused GEMM) whenever a clang >= 16 built it."""
    import zipfile

    from webflow.wasm import build

    with zipfile.ZipFile(pyodide.wheel) as wheel:
        names = set(wheel.namelist())
    assert "webflow/wasm/webflow_kernels.wasm" in names
    if build.relaxed_wasm_compiler() is None:
        require_or_skip("no clang >= 16: the wheel has no webflow_kernels_relaxed.wasm (apt clang-16 lld-16)")
    assert "webflow/wasm/webflow_kernels_relaxed.wasm" in names


def test_webflow_installs_from_its_wheel_and_imports_without_numpy(pyodide) -> None:
    found = pyodide.evaluate(textwrap.dedent("""
        import importlib.metadata, importlib.util, os, sys
        try:
            import numpy
            numpy_error = None
        except ImportError as error:
            numpy_error = type(error).__name__
        import webflow
        import webflow.compat.v1 as tf
        from webflow.backends.c import library as c_library
        {"platform": sys.platform, "numpy_spec": importlib.util.find_spec("numpy") is not None,
         "numpy_error": numpy_error, "numpy_loaded": sys.modules.get("numpy") is not None,
         "file": webflow.__file__, "version": importlib.metadata.version("webflow"),
         "wasm_shipped": os.path.exists(os.path.join(os.path.dirname(webflow.__file__), "wasm",
                                                     "webflow_kernels.wasm")),
         "c_available": c_library.available(), "kernels": c_library.backend_name(),
         "placeholder": callable(tf.placeholder), "session": callable(tf.Session)}
    """))
    assert found["platform"] == "emscripten"
    assert (found["numpy_spec"], found["numpy_error"], found["numpy_loaded"]) == (False, "ModuleNotFoundError", False)
    assert "site-packages/webflow/__init__.py" in found["file"]  # the installed wheel, not a copied tree
    assert found["version"] in os.path.basename(pyodide.wheel)
    assert found["wasm_shipped"] and found["c_available"] and found["kernels"] == "WASM-SIMD"
    assert found["placeholder"] and found["session"]


def test_the_wasm_backend_is_selected_without_numpy(pyodide) -> None:
    """Automatic selection picks the wasm kernels for every op that has one; forcing 'wasm' is accepted."""
    found = pyodide.evaluate(textwrap.dedent("""
        import webflow
        import webflow.compat.v1 as tf
        from webflow.backends import selection
        automatic = webflow.config.get_backend()
        graph = tf.Graph()
        with graph.as_default():
            x = tf.placeholder(tf.float32, [None, 3])
            w = tf.Variable(tf.random_uniform([3, 2], seed=1))
            loss = tf.reduce_mean(tf.nn.relu(tf.matmul(x, w)))
            train = tf.train.AdamOptimizer(0.1).minimize(loss)
        chosen = {op.type: selection.node_kernel(op)[1] for op in graph.get_operations()}
        webflow.config.set_backend("wasm")
        forced = webflow.config.get_backend()
        forced_matmul = selection.node_kernel(graph.get_operation_by_name("MatMul"))[1]
        webflow.config.set_backend("auto")
        {"automatic": automatic, "forced": forced, "forced_matmul": forced_matmul, "chosen": chosen,
         "c_backend": selection.C_BACKEND}
    """))
    assert (found["automatic"], found["forced"], found["c_backend"]) == ("auto", "wasm", "wasm")
    assert found["forced_matmul"] == "wasm"
    for op_type in ("MatMul", "Relu", "ReluGrad", "Mean", "ApplyAdam", "RandomUniform"):
        assert found["chosen"].get(op_type) == "wasm", (op_type, found["chosen"])


# The same source runs in Pyodide (wasm kernels, CArray values) and in CPython (NumPy backend). It sets
# `result`: every fetched value as plain lists. Inputs come from formulas, weights from seeded random ops
# (Philox: the same bits on every backend).
CLASSIFIER = """
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.reset_default_graph()  # one Pyodide process runs every program
x = tf.placeholder(tf.float32, [None, 2])
labels = tf.placeholder(tf.int32, [None])
w = tf.Variable(tf.random_uniform([2, 4], -1.0, 1.0, seed=3))
v = tf.Variable(tf.random_uniform([4, 3], -1.0, 1.0, seed=4))
b = tf.Variable(tf.zeros([3]))
logits = tf.matmul(tf.nn.relu(tf.matmul(x, w)), v) + b
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
train = tf.train.AdamOptimizer(0.05).minimize(loss)
feed = {x: [[1.0, 0.5], [0.2, 1.5], [1.2, 1.0]], labels: [0, 2, 1]}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    first = sess.run([w, v, b, logits], feed)
    losses = [float(sess.run([loss, train], feed)[0]) for _ in range(40)]
    last = sess.run([w, v, b])
result = {"first": [a.tolist() for a in first], "losses": losses, "last": [a.tolist() for a in last]}
"""

# A 24-32-16-5 ReLU MLP, batch 32, Adam: the benchmark's model at a test's size (GEMMs with transposes,
# bias adds, ReluGrad, sparse softmax cross-entropy, Sum over the batch for the bias gradients).
MLP = """
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.reset_default_graph()  # one Pyodide process runs every program
sizes, batch = [24, 32, 16, 5], 32
images = [[((r * 31 + c * 17) % 97) / 97.0 for c in range(sizes[0])] for r in range(batch)]
classes = [(r * 7) % sizes[-1] for r in range(batch)]
x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
y = tf.placeholder(tf.int64, [None], name="y")
h = x
for i in range(3):
    limit = (6.0 / (sizes[i] + sizes[i + 1])) ** 0.5
    w = tf.Variable(tf.random_uniform([sizes[i], sizes[i + 1]], -limit, limit, seed=10 + i), name=f"w{i}")
    b = tf.Variable(tf.zeros([sizes[i + 1]]), name=f"b{i}")
    h = tf.matmul(h, w) + b
    if i < 2:
        h = tf.nn.relu(h)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
train = tf.train.AdamOptimizer(0.01).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    feed = {x: images, y: classes}
    losses = [float(sess.run([loss, train], feed)[0]) for _ in range(15)]
    weights = sess.run(tf.trainable_variables())
result = {"losses": losses, "weights": [a.tolist() for a in weights]}
"""


def run_in_cpython_on_numpy(program: str) -> dict:
    """The program's `result` from a fresh CPython forced onto the NumPy kernels."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", WEBFLOW_BACKEND="numpy")
    code = program + "\nimport json\nprint(json.dumps(result))\n"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _flat(value: object) -> list:
    if isinstance(value, list | tuple):
        return [v for item in value for v in _flat(item)]
    if isinstance(value, dict):
        return [v for key in sorted(value) for v in _flat(value[key])]
    return [value]


def _assert_same_structure_and_values(ours: dict, reference: dict) -> None:
    assert json.dumps(ours).count("[") == json.dumps(reference).count("["), "different nesting (shapes)"
    mine, theirs = _flat(ours), _flat(reference)
    assert len(mine) == len(theirs)
    assert mine == pytest.approx(theirs, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("name", ["CLASSIFIER", "MLP"])
def test_tf1_training_in_pyodide_matches_cpython_numpy(pyodide, name) -> None:
    program = globals()[name]
    in_pyodide = pyodide.evaluate(program + "\nresult")
    reference = run_in_cpython_on_numpy(program)
    _assert_same_structure_and_values(in_pyodide, reference)
    assert in_pyodide["losses"][-1] < 0.8 * in_pyodide["losses"][0]  # it did train
