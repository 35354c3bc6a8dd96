"""Runs TF1 queue programs under real TensorFlow and under webflow, each in a fresh subprocess.

Both engines run in a child process so that counters TensorFlow shows in its messages (the "_0_" of
"FIFOQueue '_0_fifo_queue'", numbered per process) start at zero in both. A program is Python source using `tf`
(graph mode), `np` and `DIR` (a scratch directory); it sets `result` to something JSON can hold (bytes: decode
them first). All programs of a test module go to one subprocess per engine (TensorFlow starts slowly).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TF_PYTHON = os.environ.get("WEBFLOW_TF_PYTHON")
SKIP_REASON = "WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with"

_DRIVER = r"""
import json, os, sys, traceback
import numpy as np
import {module} as tf
tf.disable_v2_behavior()

def plain(value):
    if isinstance(value, dict):
        return {{k: plain(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, (np.ndarray, np.generic)):
        return plain(value.tolist())
    return value

programs = json.load(sys.stdin)
out = {{}}
for key, (source, directory) in programs.items():
    tf.reset_default_graph()
    scope = {{"tf": tf, "np": np, "DIR": directory}}
    try:
        exec(source, scope)
        out[key] = plain(scope["result"])
    except Exception:
        out[key] = "FAILED: " + traceback.format_exc()[-1500:]
print("RESULT:" + json.dumps(out))
"""


def run_programs(programs: dict, tensorflow: bool) -> dict:
    """{id: result} of {id: (source, directory)} under TensorFlow (tensorflow=True) or webflow."""
    module = "tensorflow.compat.v1" if tensorflow else "webflow.compat.v1"
    python = TF_PYTHON if tensorflow else sys.executable
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": ROOT}
    process = subprocess.run([python, "-c", _DRIVER.format(module=module)], input=json.dumps(programs),
                             capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"{module} run failed:\n{process.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT:"):])


def run_on_both(programs: dict) -> tuple:
    """(TensorFlow's, webflow's) {id: result} of {id: (source, directory)}."""
    return run_programs(programs, tensorflow=True), run_programs(programs, tensorflow=False)


def assert_as_tensorflow(results: tuple, key: str) -> None:
    """webflow's result of program `key` is TensorFlow's, which must not be a failure (that would prove nothing)."""
    tensorflow, webflow = results[0][key], results[1][key]
    assert not (isinstance(tensorflow, str) and tensorflow.startswith("FAILED")), tensorflow
    assert webflow == tensorflow
