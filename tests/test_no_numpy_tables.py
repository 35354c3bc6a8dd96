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
    "array:pad_constant": "gradient: imports numpy directly (a lazy `import numpy` in the op's code)",
    "array:pad_constant_values": "gradient: imports numpy directly (a lazy `import numpy` in the op's code)",
    "array:pad_reflect": "MirrorPad has no NumPy-free kernel",
    "array:pad_symmetric": "MirrorPad has no NumPy-free kernel",
    "array:sequence_mask": "imports numpy directly (a lazy `import numpy` in the op's code)",
    "array:sequence_mask_float": "imports numpy directly (a lazy `import numpy` in the op's code)",
    "conv:conv2d_same_s1": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_valid_s2": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_same_s3_depth5": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_valid_s3_depth1": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_valid_dilation2": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_same_dilation2_depth4":
        "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_strides_1x2": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_explicit_padding": "Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_nchw": "Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_int32": "Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:convolution_same": "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:v1_conv2d_filters_keyword":
        "gradient: Conv2D has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_transpose_same_s2":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:conv2d_transpose_valid_s3":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_input_same_s1":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_input_valid_s2_depth5":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_input_same_dilation2":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_input_same_s3_depth1":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_filter_same_s1":
        "gradient: Conv2DBackpropFilter has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_filter_valid_s3_depth4":
        "gradient: Conv2DBackpropFilter has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:backprop_filter_valid_dilation2":
        "gradient: Conv2DBackpropFilter has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:v1_conv2d_backprop_input":
        "gradient: Conv2DBackpropInput has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "conv:v1_conv2d_backprop_filter":
        "gradient: Conv2DBackpropFilter has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "core:one_hot_axis0_on_off": "OneHot's pure-Python kernel does the last axis only",
    "indexing:boolean_mask": "the row's build passes a NumPy mask into webflow (test artefact)",
    "indexing:boolean_mask_2d": "the row's build passes a NumPy mask into webflow (test artefact)",
    "indexing:boolean_mask_axis1": "the row's build passes a NumPy mask into webflow (test artefact)",
    "linalg:diag_part": "DiagPart has no NumPy-free kernel",
    "linalg:matrix_set_diag": "MatrixSetDiagV3 has no NumPy-free kernel",
    "linalg:eye": "imports numpy directly (a lazy `import numpy` in the op's code)",
    "logic:bitwise_operators": "BitwiseAnd has no NumPy-free kernel",
    "nn:bias_add_nchw": "BiasAdd's pure-Python kernel does NHWC only",
    "pool:max_pool_2x5x5x3_k2_s2_SAME":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_1x7x6x2_k3_s2_SAME":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_2x5x7x2_k3_s3_VALID":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_1x6x5x3_k2_s1_VALID":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_2x4x5x1_k1_s3_SAME":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_1x5x5x2_k3_s1_SAME":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_3x4x4x2_k2_s2_VALID":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_1x7x7x1_k2_s3_SAME":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_2x5x5x3_k2_s2_SAME":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_1x7x6x2_k3_s2_SAME":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_2x5x7x2_k3_s3_VALID":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_1x6x5x3_k2_s1_VALID":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_2x4x5x1_k1_s3_SAME":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_1x5x5x2_k3_s1_SAME":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_3x4x4x2_k2_s2_VALID":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_1x7x7x1_k3_s3_SAME":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_tf1_rect_window":
        "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_tf1_rect_window":
        "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_nchw": "the NCHW pool wrapper calls ndarray.transpose on the value",
    "pool:avg_pool_nchw": "the NCHW pool wrapper calls ndarray.transpose on the value",
    "pool:max_pool_float64": "MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_float16": "float16 values need NumPy (no CArray float16)",
    "pool:max_pool_float16": "float16 values need NumPy (no CArray float16)",
    "pool:max_pool_int32": "MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool1d": "gradient: MaxPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool1d": "gradient: AvgPool has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_grad_op_k3_s2_same":
        "gradient: MaxPoolGrad has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_grad_op_k2_s1_valid":
        "gradient: MaxPoolGrad has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:max_pool_grad_grad_op_k3_s2_same": "MaxPoolGradGrad has no NumPy-free kernel",
    "pool:max_pool_grad_grad_op_k2_s2_valid": "MaxPoolGradGrad has no NumPy-free kernel",
    "pool:avg_pool_grad_op_k3_s2_same":
        "gradient: AvgPoolGrad has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
    "pool:avg_pool_grad_op_k2_s1_valid":
        "gradient: AvgPoolGrad has no NumPy-free kernel for these inputs (C: NHWC float32 only)",
}

ROWS = {row_id(table, case): case for table, case in load_rows()}


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
    from webflow.backends import c_library

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
