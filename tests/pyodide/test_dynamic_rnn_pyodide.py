"""dynamic_rnn inside Pyodide (Node, no NumPy, wasm kernels), against CPython on the NumPy backend.

tests/rnn/dynamic_rnn_program.py (LSTM, peephole/projection LSTM, GRU + RNN stack, bidirectional, map_fn / scan /
foldl, TensorArrays used directly) runs in Pyodide, where the TensorArray*V3 ops run their portable kernels on
CArrays; the oracle is the same program in CPython with WEBFLOW_BACKEND=numpy. Needs node + `npm ci` in
tests/pyodide; skips without them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable  # noqa: E402

PROGRAM = os.path.join(ROOT, "tests", "rnn", "dynamic_rnn_program.py")
MODELS = ("basic_lstm", "lstm_peepholes", "gru_multi", "bidirectional", "scans", "tensor_array")


def _cpython(forward: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, WEBFLOW_BACKEND="numpy", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, PROGRAM] + (["--forward"] if forward else []), env=env,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _pyodide_code(forward: bool) -> str:
    """The program as one evaluation whose last expression is its results (no print, no __main__ block)."""
    with open(PROGRAM, encoding="utf-8") as handle:
        source = handle.read().split('\nif __name__ == "__main__":')[0]
    flags = ["--no-numpy"] + (["--forward"] if forward else [])
    return textwrap.dedent(f"""
        import sys
        for name in [n for n in sys.modules if n == "webflow" or n.startswith("webflow.")]:
            del sys.modules[name]   # the runner's bare package: import the real one
        sys.argv = ["dynamic_rnn_program.py"] + {flags!r}
    """) + source + (f"\n{{m: run_model(m, globals()[m], {forward}) for m in {MODELS!r}}}\n")


@pytest.fixture(scope="module")
def session() -> PyodideSession:
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        pytest.skip("node or tests/pyodide/node_modules (npm ci) missing: cannot run Pyodide")
    try:
        started = PyodideSession.start(os.path.join(ROOT, "webflow"))
    except PyodideUnavailable as error:
        pytest.skip(str(error))
    yield started
    started.close()


def _close(got: object, expected: object, message: str) -> None:
    np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(expected, dtype=np.float64),
                               rtol=2e-4, atol=2e-5, err_msg=message)


def test_dynamic_rnn_forward_in_pyodide(session: PyodideSession) -> None:
    got, expected = session.evaluate(_pyodide_code(forward=True)), _cpython(forward=True)
    for model in MODELS:
        assert got[model]["names"] == expected[model]["names"], model
        _close(got[model]["loss"], expected[model]["loss"], f"{model} loss")


def test_dynamic_rnn_gradients_and_training_in_pyodide(session: PyodideSession) -> None:
    got, expected = session.evaluate(_pyodide_code(forward=False)), _cpython(forward=False)
    for model in MODELS:
        assert got[model]["names"] == expected[model]["names"], model
        for name, g, e in zip(expected[model]["names"], got[model]["grads"], expected[model]["grads"]):
            _close(g, e, f"{model} gradient of {name}")
        _close(got[model]["losses"], expected[model]["losses"], f"{model} training losses")
        for name, g, e in zip(expected[model]["names"], got[model]["final"], expected[model]["final"]):
            _close(g, e, f"{model} {name} after 3 steps")
