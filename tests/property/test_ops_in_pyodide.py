"""A slice of the generated op cases inside real Pyodide (Node + npm `pyodide`, offline): webflow without NumPy,
its C kernels from the WebAssembly side module, against the NumPy oracles.

The cases are the ones test_ops_without_numpy.py sends (generated.py, derandomized); catalog.py's source is exec'd
inside Pyodide and runs them all in one request. Needs node + `npm ci` in tests/pyodide and clang + wasm-ld for
the module; skips without them (fails under WEBFLOW_REQUIRE_BROWSER=1, as `make test` runs).
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import catalog
import generated
import property_checks as checks
import pytest
from special_cases import beyond_numpy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "pyodide"))


def require_or_skip(reason: str) -> None:
    """As tests/conftest.py's: a missing tool skips locally, fails under `make test` (WEBFLOW_REQUIRE_BROWSER=1)."""
    if os.environ.get("WEBFLOW_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)

# cases per family run in Pyodide (25x under `make fuzz`); wasm runs the same kernels as native, so a slice
COUNTS = {"unary": 8, "binary": 8, "reduction": 8, "matmul": 6, "conv": 5, "pool": 6, "gather": 6, "cast": 8,
          "softmax": 8}

PROGRAM = """
import sys
for name in [n for n in sys.modules if n == "webflow" or n.startswith("webflow.")]:
    del sys.modules[name]   # the runner's bare package: import the real one
scope = {"__name__": "catalog"}
exec(compile(CATALOG_SOURCE, "catalog.py", "exec"), scope)
import webflow
from webflow.backends.c import library as c_library
answer = {"numpy": "numpy" in sys.modules and sys.modules["numpy"] is not None, "kernels": c_library.backend_name(),
          "results": scope["encode"](scope["run_cases"](webflow, scope["decode"](CASES)))}
json.dumps(answer)
"""


@pytest.fixture(scope="module")
def results() -> dict:
    from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable

    from webflow.wasm import build

    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        require_or_skip("node or tests/pyodide/node_modules (npm ci) missing: cannot run Pyodide")
    try:
        build.build_wasm()
    except build.CompilerNotFound as error:
        require_or_skip(f"wasm module not built: {error}")
    cases = [(family, case) for family in COUNTS
             for case in generated.spread(family, generated.POOL[family], COUNTS[family])]
    cases += [("beyond_numpy", case) for case in beyond_numpy()]
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"))
    except PyodideUnavailable as error:
        require_or_skip(str(error))
    try:
        with open(catalog.__file__) as handle:
            source = handle.read()
        program = (f"import json\nCATALOG_SOURCE = {source!r}\n"
                   f"CASES = {json.dumps([case.to_json() for _, case in cases])!r}\n" + PROGRAM)
        answer = json.loads(session.evaluate(program))
    finally:
        session.close()
    assert answer["numpy"] is False and answer["kernels"] == "WASM-SIMD", answer
    grouped: dict = {family: [] for family in [*COUNTS, "beyond_numpy"]}
    for (family, case), result in zip(cases, json.loads(answer["results"])):
        grouped[family].append((case, result))
    return grouped


@pytest.mark.parametrize("family", list(COUNTS))
def test_family_in_pyodide_matches_numpy(family: str, results: dict) -> None:
    failures = []
    for case, answer in results[family]:
        try:
            if "error" in answer:
                raise AssertionError(answer["error"])
            checks.assert_outputs(case, [checks.from_json(o) for o in answer["outputs"]], "pyodide")
        except AssertionError as error:
            failures.append(f"{case!r}\n  {str(error)[:600]}")
    assert not failures, f"{len(failures)} of {len(results[family])} cases:\n" + "\n".join(failures[:5])


def test_special_cases_in_pyodide_match_the_native_kernels(results: dict) -> None:
    """argmax / max pool over NaN and float -> int casts of NaN, ±Inf and out-of-range values: the wasm kernels
    (and the pure-Python ones) give what the native kernels give, which test_tensorflow_slice.py checks against
    TensorFlow (wasm traps on an out-of-range float -> int conversion unless the C code avoids it)."""
    import engine

    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    failures = []
    with engine.on_backend("native"):
        for case, answer in results["beyond_numpy"]:
            try:
                if "error" in answer:
                    raise AssertionError(answer["error"])
                want = engine.run_eager(case)
                for got, expected in zip([checks.from_json(o) for o in answer["outputs"]], want, strict=True):
                    checks.assert_matches(case.op, got, expected, f"pyodide vs native {case.op}")
            except AssertionError as error:
                failures.append(f"{case!r}\n  {str(error)[:600]}")
    assert not failures, "\n".join(failures)
