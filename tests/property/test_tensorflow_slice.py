"""A slice of the generated op cases run by real TensorFlow 2.21 (the oracle venv): webflow must give its answers.

The NumPy oracles encode TensorFlow's semantics as understood; this checks them where it matters most (special
values, empty tensors, broadcasting) and covers what NumPy cannot decide: argmax and max pooling over NaN
(TensorFlow skips it) and float -> integer casts of NaN, ±Inf and out-of-range values (x86's
answer, which TensorFlow keeps). One TensorFlow subprocess runs every case (catalog.py's expressions, TF2 eager);
webflow runs them here on the NumPy kernels and on the native C kernels. Skips when WEBFLOW_TF_PYTHON is unset.
"""

from __future__ import annotations

import os

import engine
import generated
import numpy as np
import oracles
import property_checks as checks
import pytest
from child import run_child
from special_cases import beyond_numpy
from strategies import Case

TF_PYTHON = os.environ.get("WEBFLOW_TF_PYTHON")
COUNTS = {"unary": 30, "binary": 30, "reduction": 25, "matmul": 12, "conv": 10, "pool": 12, "gather": 12,
          "cast": 15, "softmax": 20}


def _denormal(x: np.ndarray, dtype: np.dtype) -> bool:
    return bool(np.any((x != 0) & (np.abs(x) < np.finfo(dtype).tiny)))


def flushes(case: Case) -> bool:
    """Whether TensorFlow's CPU kernels would read a denormal input (or quotient) as 0: they run with
    flush-to-zero and denormals-are-zero set, so ceil(1e-40) is 0.0 there, 1.0 in NumPy and webflow, and
    floordiv(1.75, -3e38) is -0.0 there, -1.0 here (not mimicked, see README)."""
    floats = [x for x in case.inputs if x.dtype.kind == "f"]
    if any(_denormal(x, x.dtype) for x in floats):
        return True
    if case.op in ("floordiv", "floormod", "div") and floats:
        with np.errstate(all="ignore"):
            quotient = case.inputs[0].astype(np.float64) / case.inputs[1].astype(np.float64)
        return _denormal(quotient, case.inputs[0].dtype)
    return False


# elu / selu: TensorFlow computes exp(x) - 1, webflow expm1(x) (exact near 0: elu(-1e-98) is -1e-98 here, 0 there)
EXPM1_OPS = {"elu", "selu"}


def flushed(values: np.ndarray) -> np.ndarray:
    """Denormal results as TensorFlow's flush-to-zero gives them: 0."""
    if values.dtype.kind != "f":
        return values
    return np.where(np.abs(values) < np.finfo(values.dtype).tiny, 0, values).astype(values.dtype)


def _webflow(case: Case, backend: str) -> list:
    with engine.on_backend(backend):
        return engine.run_eager(case)


@pytest.fixture(scope="module")
def tensorflow() -> list:
    if not TF_PYTHON:
        pytest.skip("WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with")
    cases = [case for family in COUNTS for case in generated.spread(family, generated.POOL[family], COUNTS[family])
             if not flushes(case)]
    cases += beyond_numpy()
    return list(zip(cases, run_child(cases, ["tensorflow"], python=TF_PYTHON)))


@pytest.mark.parametrize("backend", engine.BACKENDS)
def test_webflow_gives_tensorflows_answers(tensorflow: list, backend: str) -> None:
    failures = []
    for case, answer in tensorflow:
        try:
            if "error" in answer:   # TensorFlow refuses the case: webflow must refuse it too
                with pytest.raises(Exception):  # noqa: B017 - any of TF's error types, checked by the op tables
                    _webflow(case, backend)
                continue
            got = _webflow(case, backend)
            want = [checks.from_json(o) for o in answer["outputs"]]
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if case.op in EXPM1_OPS:   # within exp(x) - 1's rounding: one ulp of 1
                    g = np.where(np.abs(g - w) <= np.finfo(g.dtype).eps, w, g).astype(g.dtype)
                checks.assert_matches(case.op, flushed(g), w, f"{backend} vs TensorFlow {case.op}")
        except (AssertionError, pytest.fail.Exception, Exception) as error:  # noqa: BLE001 - collect them all
            failures.append(f"{case!r}\n  {type(error).__name__}: {str(error)[:500]}")
    assert not failures, f"{len(failures)} of {len(tensorflow)} cases:\n" + "\n".join(failures[:20])


def test_the_numpy_oracles_agree_with_tensorflow(tensorflow: list) -> None:
    """The oracles themselves, on the generated cases (not the beyond-NumPy ones)."""
    failures = []
    for case, answer in tensorflow[:-len(beyond_numpy())]:
        try:
            assert "error" not in answer, answer.get("error")
            want = [flushed(w) for w in oracles.expected(case.op, case.inputs, case.attrs)]
            got = [checks.from_json(o) for o in answer["outputs"]]
            assert len(got) == len(want)
            for g, w in zip(got, want):
                if case.op in EXPM1_OPS:
                    g = np.where(np.abs(g - w) <= np.finfo(g.dtype).eps, w, g).astype(g.dtype)
                checks.assert_matches(case.op, g, w, f"TensorFlow vs oracle {case.op}")
        except AssertionError as error:
            failures.append(f"{case!r}\n  {str(error)[:500]}")
    assert not failures, f"{len(failures)} of {len(tensorflow)} cases:\n" + "\n".join(failures[:20])
