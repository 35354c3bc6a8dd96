"""dynamic_rnn without NumPy (as in Pyodide): the TensorArray*V3 kernels' portable path.

tests/rnn/dynamic_rnn_program.py (LSTM, peephole/projection LSTM, GRU + RNN stack, bidirectional, map_fn and
scan, TensorArrays used directly) runs in a child Python with `import numpy` blocked (CArrays, C and
pure-Python kernels) and again with NumPy and WEBFLOW_BACKEND=numpy, the oracle; losses, tf.gradients through
the while loops, three GradientDescent steps and the trained variables must agree within float32 tolerance.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAM = os.path.join(ROOT, "tests", "rnn", "dynamic_rnn_program.py")
MODELS = ("basic_lstm", "lstm_peepholes", "gru_multi", "bidirectional", "scans", "tensor_array")


def run_program(no_numpy: bool, forward: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    if not no_numpy:
        env["WEBFLOW_BACKEND"] = "numpy"
    flags = (["--no-numpy"] if no_numpy else []) + (["--forward"] if forward else [])
    done = subprocess.run([sys.executable, PROGRAM] + flags, env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _skip_without_c() -> None:
    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")


def assert_close(got: object, expected: object, message: str) -> None:
    np.testing.assert_allclose(np.array(got, dtype=np.float64), np.array(expected, dtype=np.float64),
                               rtol=2e-4, atol=2e-5, err_msg=message)


def test_forward_without_numpy_matches_numpy() -> None:
    _skip_without_c()
    without, reference = run_program(True, forward=True), run_program(False, forward=True)
    assert sorted(without) == sorted(MODELS)
    for model in MODELS:
        assert without[model]["names"] == reference[model]["names"], model
        assert_close(without[model]["loss"], reference[model]["loss"], f"{model} loss")


def test_gradients_and_training_without_numpy_match_numpy() -> None:
    _skip_without_c()
    without, reference = run_program(True, forward=False), run_program(False, forward=False)
    for model in MODELS:
        got, expected = without[model], reference[model]
        assert got["names"] == expected["names"], model
        assert_close(got["loss"], expected["loss"], f"{model} loss")
        assert len(got["grads"]) == len(expected["grads"]) == len(expected["names"]), model
        for name, g, e in zip(expected["names"], got["grads"], expected["grads"]):
            assert_close(g, e, f"{model} gradient of {name}")
        assert_close(got["losses"], expected["losses"], f"{model} training losses")
        assert expected["losses"][-1] != expected["losses"][0], f"{model}: training changed nothing"
        for name, g, e in zip(expected["names"], got["final"], expected["final"]):
            assert_close(g, e, f"{model} {name} after 3 steps")


def test_lstm_variables_are_named_as_tensorflow_names_them() -> None:
    """The no-NumPy run builds the same variables, under TensorFlow's names (checkpoints interchange)."""
    _skip_without_c()
    names = run_program(True, forward=True)["basic_lstm"]["names"]
    assert names == ["basic_lstm/rnn/basic_lstm_cell/kernel:0", "basic_lstm/rnn/basic_lstm_cell/bias:0"]
