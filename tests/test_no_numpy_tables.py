"""Every op table row runs without NumPy (as in Pyodide) and gives what webflow's NumPy kernels give.

tests/no_numpy_tables.py runs the forward of every row of tests/ops/test_*_table.py (and, for rows that
check gradients, the float64 GradientTape gradient) twice in child processes: once with `import numpy`
blocked (CArrays, C and pure-Python kernels), once with NumPy and WEBFLOW_BACKEND=numpy (the reference
kernels). Here each row's results are compared with the table's own tolerance; random rows must match
exactly (one Philox stream, the same recipe on both paths).

Rows listed in GAPS still need NumPy; they are expected to fail (strict: a gap that closes must be removed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from no_numpy_tables import load_rows, row_id

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "tests", "no_numpy_tables.py")

# row id -> why it still needs NumPy
GAPS: dict[str, str] = {
    "pool:avg_pool_float16": "float16 values need NumPy (no CArray float16)",
    "pool:max_pool_float16": "float16 values need NumPy (no CArray float16)",
    "linalg:qr_square": "Qr's only kernel is numpy.linalg.qr",
    "linalg:qr_tall": "Qr's only kernel is numpy.linalg.qr",
    "linalg:qr_wide": "Qr's only kernel is numpy.linalg.qr",
    "parsing:serialize_parse_tensor": "SerializeTensor / ParseTensor write and read TensorProtos with NumPy and "
                                      "protobuf (io/tensor_ops.py)",
}

ROWS = {row_id(table, case): case for table, case in load_rows()}
GAPS.update({name: "the summary kernels build their Summary protos with NumPy (backends/numpy/summaries.py)"
             for name in ROWS if name.startswith("summary:")
             and not name.startswith("summary:scalar_summary")})  # ScalarSummary runs on string_values
GAPS.update({name: "the checkpoint ops read and write NumPy arrays (io/checkpoint_bundle.py)"
             for name in ROWS if name.startswith("checkpoint:")})
GAPS.update({name: "the candidate samplers have NumPy kernels only (ops/candidate_sampling_ops.py)"
             for name in ROWS if name.startswith("candidate_sampling:")})


def _run(no_numpy: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    if not no_numpy:
        env["WEBFLOW_BACKEND"] = "numpy"
    done = subprocess.run([sys.executable, RUNNER] + (["--no-numpy"] if no_numpy else []), env=env,
                          capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def results() -> tuple:
    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    return _run(no_numpy=True), _run(no_numpy=False)


def _assert_values(name: str, got: list, expected: list, case: object) -> None:
    assert len(got) == len(expected), f"{name}: {len(got)} values, expected {len(expected)}"
    for g, e in zip(got, expected):
        if e is None:
            assert g is None, f"{name}: a gradient where NumPy has None"
            continue
        assert g is not None, f"{name}: None where NumPy has a value"
        assert (g["shape"], g["dtype"]) == (e["shape"], e["dtype"]), name
        if e["dtype"] == "string":  # bytes (as latin-1 text): equal, byte for byte
            assert g["values"] == e["values"], name
            continue
        np.testing.assert_allclose(np.array(g["values"], dtype=float), np.array(e["values"], dtype=float),
                                   atol=case.atol, rtol=case.rtol, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=GAPS[n], strict=True))
                                  if n in GAPS else n for n in ROWS])
def test_row_without_numpy_matches_numpy(name: str, results: tuple) -> None:
    without, reference = results[0][name], results[1][name]
    assert "error" not in reference, reference.get("error")
    assert "error" not in without, without["error"]
    _assert_values(f"{name} forward", without["outputs"], reference["outputs"], ROWS[name])
    assert "grad_error" not in without, without["grad_error"]
    if "grads" in reference:
        _assert_values(f"{name} gradient", without["grads"], reference["grads"], ROWS[name])
    if "graph_outputs" in reference or "graph_error" in reference:  # tests/no_numpy_graph_rows.py's run
        _assert_graph(name, without, reference)


def _assert_graph(name: str, without: dict, reference: dict) -> None:
    """The row built in a graph and run by Session.run (and its tf.gradients) gives NumPy's values."""
    assert "graph_error" not in reference, reference["graph_error"]
    assert "graph_error" not in without, without["graph_error"]
    _assert_values(f"{name} graph forward", without["graph_outputs"], reference["graph_outputs"], ROWS[name])
    if "graph_grads" in reference:
        _assert_values(f"{name} graph gradient", without["graph_grads"], reference["graph_grads"], ROWS[name])
