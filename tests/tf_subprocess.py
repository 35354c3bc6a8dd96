"""Runs small TF1 programs under real TensorFlow (a subprocess) and under webflow.compat.v1 (in process).

A program is Python source using the name `tf` (already graph mode) and `np`; it must set `result`
to something JSON can hold (NumPy arrays are turned into lists). All programs of one test module go to
TensorFlow in one subprocess (TensorFlow starts slowly), as {id: source} -> {id: result}.
TensorFlow is reachable only through the interpreter named by WEBFLOW_TF_PYTHON.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import numpy as np

TF_PYTHON = os.environ.get("WEBFLOW_TF_PYTHON")
SKIP_REASON = "WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with"

_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value

programs = json.load(sys.stdin)
out = {}
for key, source in programs.items():
    tf.reset_default_graph()
    scope = {"tf": tf, "np": np}
    exec(source, scope)
    out[key] = plain(scope["result"])
print("RESULT:" + json.dumps(out))
"""


def plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def child_result(driver: str, stdin: str, timeout: float = 600, env: dict | None = None) -> Any:
    """The JSON value that `python -c driver`, run by TensorFlow's interpreter (WEBFLOW_TF_PYTHON, quiet, CPU only)
    and fed `stdin`, prints on its last "RESULT:" line; RuntimeError with the end of its stderr when it fails."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", **(env or {})}
    process = subprocess.run([TF_PYTHON, "-c", driver], input=stdin, capture_output=True, text=True,
                             timeout=timeout, env=env)
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"TensorFlow run failed:\n{process.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT:"):])


def run_tensorflow(programs: dict) -> dict:
    """{id: result} from real TensorFlow."""
    return child_result(_DRIVER, json.dumps(programs), env={"TF_USE_LEGACY_KERAS": "1"})


def run_webflow(source: str) -> Any:
    """The program's result under webflow.compat.v1 (graph mode, fresh default graph)."""
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.reset_default_graph()
    scope = {"tf": tf, "np": np}
    exec(source, scope)
    return plain(scope["result"])
