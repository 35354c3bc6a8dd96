"""site/playground/playground_runner.py in CPython: what the playground's worker answers, checked without a browser.

The oracle is the same example file run as a plain program in a subprocess (`python file.py`): what it
prints, the ops of its default graph and the error it raises. The runner must give the same output, a graph
document with exactly those ops (schema: labextension/SCHEMA.md), a failing op marked, a traceback cut to the
program's own lines, and a fresh graph on every run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(REPO, "site", "playground", "examples")
ORACLE = r"""
import contextlib, io, json, sys
import webflow.compat.v1 as tf
printed, error = io.StringIO(), None
with contextlib.redirect_stdout(printed):
    try:
        exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), {"__name__": "__main__"})
    except Exception as exc:
        error = {"type": type(exc).__name__, "message": str(exc)}
ops = [op.name for op in tf.get_default_graph().get_operations()]
print("RESULT:" + json.dumps({"stdout": printed.getvalue(), "ops": ops, "error": error}))
"""


@pytest.fixture(scope="module")
def runner():
    spec = importlib.util.spec_from_file_location(
        "playground_runner", os.path.join(REPO, "site", "playground", "playground_runner.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def oracle(example: str) -> dict:
    process = subprocess.run([sys.executable, "-c", ORACLE, os.path.join(EXAMPLES, example)], capture_output=True,
                             text=True, timeout=300, cwd=REPO,
                             env={**os.environ, "PYTHONPATH": REPO, "OPENBLAS_NUM_THREADS": "1"})
    line = next(x for x in process.stdout.splitlines() if x.startswith("RESULT:"))
    return json.loads(line[len("RESULT:"):])


def run(runner, example: str) -> dict:
    with open(os.path.join(EXAMPLES, example), encoding="utf-8") as file:
        return json.loads(runner.run_program(file.read()))


def test_default_program(runner) -> None:
    expected = oracle("linear_regression.py")
    answer = run(runner, "linear_regression.py")
    assert answer["ok"] and answer["error"] is None and answer["explanation"] is None
    assert answer["stdout"] == expected["stdout"] and answer["stderr"] == ""
    document = answer["document"]
    assert [node["name"] for node in document["nodes"]] == expected["ops"]
    names = set(expected["ops"])
    assert all(edge["source"] in names and edge["target"] in names for edge in document["edges"])
    # the last Session.run (W, b, loss) was traced: it ran the forward pass, not a training step
    executed = {node["name"] for node in document["nodes"] if node["executed"]}
    assert {"MatMul", "add", "sub", "Square", "Mean"} <= executed
    assert not any("ApplyGradientDescent" in name for name in executed)
    assert document["profile"] is not None
    assert {op["node"] for op in document["profile"]["ops"]} <= names


@pytest.mark.parametrize("example", ["broadcasting_error.py", "run_time_error.py"])
def test_errors(runner, example: str) -> None:
    expected = oracle(example)
    answer = run(runner, example)
    assert not answer["ok"] and answer["error"]["type"] == expected["error"]["type"]
    assert answer["error"]["message"] == expected["error"]["message"]
    assert answer["stdout"] == expected["stdout"]
    failing = expected["error"]["message"].split("{{node ")[1].split("}}")[0]
    marked = [node["name"] for node in answer["document"]["nodes"] if node.get("error")]
    assert marked == [failing] and answer["document"]["error"]["node"] == failing
    assert set(expected["ops"]) <= {node["name"] for node in answer["document"]["nodes"]}
    assert answer["explanation"].startswith("webflow: the ")
    # the traceback shows the program's lines only, not webflow's internals
    assert "webflow/" not in answer["stderr"].replace("webflow.", "") and runner.PROGRAM_FILE in answer["stderr"]


def test_every_run_starts_from_an_empty_graph_and_plain_errors_still_answer(runner) -> None:
    first = run(runner, "linear_regression.py")
    again = run(runner, "linear_regression.py")
    assert [n["name"] for n in again["document"]["nodes"]] == [n["name"] for n in first["document"]["nodes"]]
    answer = json.loads(runner.run_program("import webflow.compat.v1 as tf\nx = tf.constant(1.0, name='x')\n"
                                           "print('before')\nundefined_name\n"))
    assert not answer["ok"] and answer["error"]["type"] == "NameError" and answer["stdout"] == "before\n"
    assert [n["name"] for n in answer["document"]["nodes"]] == ["x"]   # the graph so far, nothing marked
    assert answer["explanation"].startswith("NameError")
    syntax = json.loads(runner.run_program("print('no closing parenthesis'\n"))
    assert syntax["error"]["type"] == "SyntaxError" and syntax["document"]["nodes"] == []
