"""Runs the assertion and printing cases of test_debugging_vs_tf.py under one framework and prints their outcomes.

    python cases_driver.py tensorflow|webflow < cases.json     -> "RESULT:" + JSON {case id: outcome}

The same file runs under TensorFlow's interpreter, so it imports nothing from webflow or the tests. A case is
source run with `tf` (TF2: eager by default) and `sys`; its outcome is the class name and text of the exception
it raised ("message" of a tf.errors error), or "ok", plus what it wrote to file descriptors 1 and 2 (where
TensorFlow's C++ kernels write), captured around the case.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile


def load(framework: str):  # noqa: ANN201 - the framework module
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
    else:
        import webflow as tf
    return tf


def captured(function):  # noqa: ANN001, ANN201
    """(function's outcome, text written to fd 1, text written to fd 2)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    os.dup2(files[0].fileno(), 1)
    os.dup2(files[1].fileno(), 2)
    try:
        outcome = function()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, copy in zip((1, 2), saved):
            os.dup2(copy, fd)
            os.close(copy)
    texts = []
    for file in files:
        file.seek(0)
        texts.append(file.read().decode("utf-8", "replace"))
        file.close()
    return outcome, texts[0], texts[1]


def run_case(tf, source: str) -> dict:  # noqa: ANN001
    def body() -> list:
        try:
            exec(source, {"tf": tf, "sys": sys})
        except Exception as error:  # noqa: BLE001 - the outcome names it
            return [type(error).__name__, str(getattr(error, "message", error))]
        return ["ok"]

    outcome, out, err = captured(body)
    return {"outcome": outcome, "stdout": out, "stderr": err}


def main() -> None:
    tf = load(sys.argv[1])
    cases = json.load(sys.stdin)
    results = {key: run_case(tf, source) for key, source in cases.items()}
    print("RESULT:" + json.dumps(results))


if __name__ == "__main__":
    main()
