"""The generated op cases on webflow without NumPy (CArrays, C kernels + pure-Python kernels, as in Pyodide).

One child process imports webflow with `import numpy` blocked and runs catalog.py's expressions on every case of
every family (one batch); each result must be the NumPy oracle's answer, as in test_ops_in_process.py.
"""

from __future__ import annotations

import generated
import numpy as np
import property_checks as checks
import pytest
from child import run_child
from strategies import Case

from webflow.backends.c import library as c_library

COUNTS = generated.POOL


@pytest.fixture(scope="module")
def results() -> dict:
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    cases = [(family, case) for family in COUNTS for case in generated.cases(family, COUNTS[family])]
    answers = run_child([case for _, case in cases], ["webflow", "--no-numpy"])
    grouped: dict = {family: [] for family in COUNTS}
    for (family, case), answer in zip(cases, answers):
        grouped[family].append((case, answer))
    return grouped


@pytest.mark.parametrize("family", list(COUNTS))
def test_family_without_numpy_matches_numpy(family: str, results: dict) -> None:
    failures = []
    for case, answer in results[family]:
        try:
            if "error" in answer:
                raise AssertionError(answer["error"])
            checks.assert_outputs(case, [checks.from_json(o) for o in answer["outputs"]], "no-numpy")
        except AssertionError as error:
            failures.append(f"{case!r}\n  {str(error)[:600]}")
    assert not failures, f"{len(failures)} of {len(results[family])} cases:\n" + "\n".join(failures[:5])


def test_integer_division_by_zero_is_an_error_without_numpy() -> None:
    """The pure-Python FloorDiv / FloorMod once answered 0 for x // 0 (found by these tests); TensorFlow and the
    NumPy kernel raise InvalidArgumentError."""
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    cases = [Case(op, [np.int32([7, -7]), np.int32([2, 0])]) for op in ("floordiv", "floormod")]
    for answer in run_child(cases, ["webflow", "--no-numpy"]):
        assert answer.get("error", "").startswith("InvalidArgumentError: Integer division by zero"), answer
