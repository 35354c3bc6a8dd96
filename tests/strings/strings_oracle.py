"""Runs string programs under real TensorFlow 2.21 (WEBFLOW_TF_PYTHON, one subprocess for all) and under webflow
(in process, or in a child without NumPy), and turns their results into the same JSON: bytes as
{"bytes": latin-1 text}, arrays as nested lists, RaggedTensors as lists of rows, SparseTensors as their three
components, and a raised error as {"error": class name, "message": first line}.

A program is Python source that sets `result`; it sees `tf` (tensorflow / webflow), `tf1` (tf.compat.v1 /
webflow.compat.v1), `index_table_from_tensor` and `index_table_from_file` (TF1's vocabulary tables).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tf_subprocess import SKIP_REASON, TF_PYTHON

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the same normalising code runs under both engines
PLAIN = r'''
def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if type(value).__name__ in ("RaggedTensor", "RaggedTensorValue"):
        return {"ragged": plain(value.to_list())}
    if type(value).__name__ in ("SparseTensor", "SparseTensorValue"):
        return {"sparse": [plain(value.indices), plain(value.values), plain(value.dense_shape)]}
    if hasattr(value, "numpy"):
        return plain(value.numpy())
    if hasattr(value, "tolist"):
        return plain(value.tolist())
    if isinstance(value, float) and value != value:
        return "nan"
    return value


def run_all(programs, scope):
    out = {}
    for key, source in programs.items():
        names = dict(scope)
        try:
            exec(source, names)
            out[key] = plain(names["result"])
        except Exception as error:
            out[key] = {"error": type(error).__name__, "message": str(error).strip().splitlines()[0][:300]}
    return out
'''

_TF_DRIVER = PLAIN + r'''
import json, sys
import tensorflow as tf
from tensorflow.python.ops import lookup_ops
scope = {"tf": tf, "tf1": tf.compat.v1, "index_table_from_tensor": lookup_ops.index_table_from_tensor,
         "index_table_from_file": lookup_ops.index_table_from_file}
print("RESULT:" + json.dumps(run_all(json.load(sys.stdin), scope)))
'''

_WEBFLOW_DRIVER = PLAIN + r'''
import json, sys
if "--no-numpy" in sys.argv:
    sys.modules["numpy"] = None
import webflow as tf
import webflow.compat.v1 as tf1
scope = {"tf": tf, "tf1": tf1, "index_table_from_tensor": tf1.contrib.lookup.index_table_from_tensor,
         "index_table_from_file": tf1.contrib.lookup.index_table_from_file}
print("RESULT:" + json.dumps(run_all(json.load(sys.stdin), scope)))
'''


def _run(command: list, programs: dict, env: dict) -> dict:
    done = subprocess.run(command, input=json.dumps(programs), capture_output=True, text=True, timeout=600, env=env,
                          cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{command[0]} failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT:"):])


def run_tensorflow(programs: dict) -> dict:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    return _run([TF_PYTHON, "-c", _TF_DRIVER], programs, env)


def run_webflow(programs: dict, no_numpy: bool = False) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    return _run([sys.executable, "-c", _WEBFLOW_DRIVER] + (["--no-numpy"] if no_numpy else []), programs, env)


def same_error(got: Any, expected: Any) -> bool:
    """Both raised the same error class, and webflow's message is TensorFlow's (minus its node/op suffixes)."""
    return (isinstance(got, dict) and "error" in got and isinstance(expected, dict) and "error" in expected
            and got["error"] == expected["error"] and got["message"] in expected["message"])


__all__ = ["SKIP_REASON", "TF_PYTHON", "run_tensorflow", "run_webflow", "same_error"]
