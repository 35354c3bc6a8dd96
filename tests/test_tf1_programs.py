"""Acceptance: classic TF1 programs (tests/tf1_programs/) run unchanged under TensorFlow and under
`webflow.compat.v1`, and give the same results.

Each framework runs every program once, in one subprocess of its own (TensorFlow through the
interpreter named by WEBFLOW_TF_PYTHON; webflow with this interpreter), so global state cannot leak
between the two and TensorFlow starts once. Results are compared here:
- floats: rtol 1e-5, atol 1e-6 (float32 precision), or a program's own justified TOLERANCES;
- integers, booleans, strings (tensor names, str() of shapes, exception type names): exactly;
- arrays: same dtype and shape, then values as above.
TensorFlow's results are cached in pytest's cache, keyed by the programs' source, so re-runs only
re-run webflow.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from typing import Any

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS_DIR = os.path.join(HERE, "tf1_programs")
REPO = os.path.dirname(HERE)
RUNNER = os.path.join(PROGRAMS_DIR, "runner.py")
sys.path.insert(0, PROGRAMS_DIR)
import runner  # noqa: E402  (tests/tf1_programs/runner.py: lists the programs without importing any framework)

PROGRAM_IDS = list(runner.discover())
RTOL, ATOL = 1e-5, 1e-6
RUN_TIMEOUT_S = 900


def _sources_digest(tf_python: str) -> str:
    digest = hashlib.sha256(tf_python.encode())
    for name in sorted(os.listdir(PROGRAMS_DIR)):
        if name.endswith(".py"):
            with open(os.path.join(PROGRAMS_DIR, name), "rb") as handle:
                digest.update(name.encode() + handle.read())
    return digest.hexdigest()[:16]


def _start(python: str, framework: str, out: str) -> subprocess.Popen:
    env = dict(os.environ)
    if framework == "webflow":
        env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    else:
        env.pop("PYTHONPATH", None)  # TensorFlow's interpreter sees only its own packages
        env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    return subprocess.Popen([python, RUNNER, "--framework", framework, "--out", out],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(process: subprocess.Popen, out: str, framework: str) -> dict:
    try:
        _, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise RuntimeError(f"the {framework} run of the TF1 programs timed out") from None
    if process.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"the {framework} runner failed (exit {process.returncode}):\n{stderr[-4000:]}")
    with open(out) as handle:
        return json.load(handle)["programs"]


@pytest.fixture(scope="session")
def results(request: pytest.FixtureRequest) -> dict:
    """{"webflow": {id: outcome}, "tensorflow": {id: outcome} or None when WEBFLOW_TF_PYTHON is unset}."""
    tf_python = os.environ.get("WEBFLOW_TF_PYTHON")
    cache_key = f"tf1_programs/tensorflow/{_sources_digest(tf_python)}" if tf_python else None
    tf_results = request.config.cache.get(cache_key, None) if cache_key else None
    with tempfile.TemporaryDirectory() as folder:
        wf_out, tf_out = os.path.join(folder, "webflow.json"), os.path.join(folder, "tensorflow.json")
        wf_process = _start(sys.executable, "webflow", wf_out)
        tf_process = _start(tf_python, "tensorflow", tf_out) if tf_python and tf_results is None else None
        wf_results = _finish(wf_process, wf_out, "webflow")
        if tf_process is not None:
            tf_results = _finish(tf_process, tf_out, "tensorflow")
            request.config.cache.set(cache_key, tf_results)
    return {"webflow": wf_results, "tensorflow": tf_results}


# --- comparison -------------------------------------------------------------------------------------
def _tolerance(tolerances: dict, key: str) -> tuple[float, float]:
    for pattern, (rtol, atol) in tolerances.items():
        if pattern != "*" and fnmatch.fnmatchcase(key, pattern):
            return rtol, atol
    return tuple(tolerances.get("*", (RTOL, ATOL)))


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 1200 else text[:1200] + "..."


def _compare(expected: Any, actual: Any, path: str, tolerances: dict, top_key: str, problems: list) -> None:
    """Appends a description of every difference between TensorFlow's value and webflow's."""
    if isinstance(expected, dict) and isinstance(actual, dict) and expected.keys() == actual.keys():
        if "__dict__" in expected:
            expected_keys = [k for k, _ in expected["__dict__"]]
            actual_keys = [k for k, _ in actual["__dict__"]]
            if expected_keys != actual_keys:
                problems.append(f"{path}: keys {actual_keys} != TensorFlow's {expected_keys}")
                return
            for (key, e), (_, a) in zip(expected["__dict__"], actual["__dict__"]):
                sub_key = top_key if path else str(key)
                _compare(e, a, f"{path}[{key!r}]" if path else str(key), tolerances, sub_key, problems)
            return
        if "__seq__" in expected:
            if expected["__seq__"] != actual["__seq__"] or len(expected["items"]) != len(actual["items"]):
                problems.append(f"{path}: {actual['__seq__']} of {len(actual['items'])} != TensorFlow's "
                                f"{expected['__seq__']} of {len(expected['items'])}: webflow "
                                f"{_short(actual['items'])} != TensorFlow {_short(expected['items'])}")
                return
            for i, (e, a) in enumerate(zip(expected["items"], actual["items"])):
                _compare(e, a, f"{path}[{i}]", tolerances, top_key, problems)
            return
        if "__array__" in expected:
            _compare_arrays(expected, actual, path, _tolerance(tolerances, top_key), problems)
            return
        if "__float__" in expected:
            _compare_floats(np.array(expected["__float__"], float), np.array(actual["__float__"], float), path,
                            _tolerance(tolerances, top_key), problems)
            return
    if type(expected) is not type(actual) or expected != actual:
        problems.append(f"{path}: webflow {_short(actual)} != TensorFlow {_short(expected)}")


def _as_numbers(values: list) -> np.ndarray:
    return np.array([float(v) if isinstance(v, str) else v for v in values], dtype=float)


def _compare_arrays(expected: dict, actual: dict, path: str, tolerance: tuple, problems: list) -> None:
    if expected["__array__"] != actual["__array__"] or expected["shape"] != actual["shape"]:
        problems.append(f"{path}: webflow array {actual['__array__']}{tuple(actual['shape'])} != "
                        f"TensorFlow's {expected['__array__']}{tuple(expected['shape'])}")
        return
    if expected["__array__"].startswith(("float", "complex", "bfloat")):
        _compare_floats(_as_numbers(expected["values"]), _as_numbers(actual["values"]), path, tolerance, problems)
    elif expected["values"] != actual["values"]:
        problems.append(f"{path}: webflow {_short(actual['values'])} != TensorFlow {_short(expected['values'])}")


def _compare_floats(expected: np.ndarray, actual: np.ndarray, path: str, tolerance: tuple, problems: list) -> None:
    rtol, atol = tolerance
    if not np.allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True):
        worst = float(np.nanmax(np.abs(actual - expected))) if actual.size else 0.0
        problems.append(f"{path}: webflow {_short(actual.tolist())} != TensorFlow {_short(expected.tolist())} "
                        f"(max abs diff {worst:.3g}, rtol {rtol}, atol {atol})")


@pytest.mark.parametrize("program_id", PROGRAM_IDS)
def test_tf1_program(program_id: str, results: dict) -> None:
    mine = results["webflow"][program_id]
    if "error" in mine:
        pytest.fail(f"{program_id} raised under webflow: {mine['error']}\n{mine['traceback']}", pytrace=False)
    if results["tensorflow"] is None:
        pytest.skip("WEBFLOW_TF_PYTHON is not set: the program ran under webflow but was not compared with TensorFlow")
    theirs = results["tensorflow"][program_id]
    if "error" in theirs:
        pytest.fail(f"{program_id} is broken: it raised under TensorFlow: {theirs['error']}\n{theirs['traceback']}",
                    pytrace=False)
    problems: list[str] = []
    _compare(theirs["results"], mine["results"], "", theirs["tolerances"], "", problems)
    if problems:
        pytest.fail(f"{program_id}: {len(problems)} result(s) differ from TensorFlow:\n  " + "\n  ".join(problems[:25]),
                    pytrace=False)
