"""Comparing an engine's outputs with the NumPy oracle: same shape, dtype, NaN and ±Inf positions, values close."""

from __future__ import annotations

import catalog
import numpy as np

# (rtol, atol) per dtype, and wider ones for ops that sum many terms or differ by a few ulps in libm
TOLERANCE = {"float32": (2e-5, 1e-6), "float64": (1e-11, 1e-300)}
WIDE = {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-12)}
WIDE_OPS = {"reduce_sum", "reduce_mean", "reduce_prod", "reduce_logsumexp", "matmul", "conv2d", "avg_pool",
            "softmax", "log_softmax", "softmax_xent", "sparse_xent", "pow", "sin", "cos"}


def tolerance(op: str, dtype: str) -> tuple:
    table = WIDE if op in WIDE_OPS else TOLERANCE
    return table.get(dtype, (0, 0))


def from_json(output: dict) -> np.ndarray:
    """An output as catalog.py writes it, back to a NumPy array."""
    special = {"nan": np.nan, "inf": np.inf, "-inf": -np.inf}
    values = [special.get(v, v) if isinstance(v, str) else v for v in output["values"]]
    return np.array(values, dtype=output["dtype"]).reshape(output["shape"])


def assert_matches(op: str, got: np.ndarray, want: np.ndarray, where: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want, err_msg=where)
        return
    rtol, atol = tolerance(op, want.dtype.name)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{where}: NaN positions")
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)],
                                  err_msg=f"{where}: ±Inf")
    np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=atol, err_msg=where)


def assert_outputs(case, outputs: list, where: str) -> None:
    """`outputs` (NumPy arrays) are what the oracle says for `case`."""
    import oracles

    expected = oracles.expected(case.op, case.inputs, case.attrs)
    assert len(outputs) == len(expected), f"{where}: {len(outputs)} outputs, expected {len(expected)}"
    for got, want in zip(outputs, expected):
        assert_matches(case.op, got, want, f"{where} {catalog.family_of(case.op)}/{case.op}")
