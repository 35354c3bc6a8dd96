"""Runs an Estimator / feature-column program under TensorFlow 2.15 (the last TF with tf.estimator) or webflow.

A program is Python source using `tf` (TF1 API, graph mode), `est` (tf.estimator, or tf.compat.v1.estimator
with `v1=True`), `fc` (tf.feature_column),
`np` and `model_dir` (a fresh temporary folder); it sets `result` to something JSON holds. TensorFlow 2.15 is
reached only through the interpreter named by WEBFLOW_TF215_PYTHON (e.g. /work/main/.venv-tf215/bin/python).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from typing import Any

import numpy as np

TF215_PYTHON = os.environ.get("WEBFLOW_TF215_PYTHON")
SKIP_REASON = "WEBFLOW_TF215_PYTHON is not set: no TensorFlow 2.15 (tf.estimator) to compare with"

_PLAIN = r"""
def plain(value):
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return plain(value.tolist())
    if isinstance(value, bytes):
        return value.decode()
    return value
"""

_DRIVER = r"""
import json, sys, tempfile
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
from tensorflow import estimator as est
fc = tf.feature_column
""" + _PLAIN + r"""
scope = {"tf": tf, "est": est, "fc": fc, "np": np, "model_dir": tempfile.mkdtemp()}
exec(sys.stdin.read(), scope)
print("RESULT:" + json.dumps(plain(scope["result"])))
"""


def run_tf215(source: str, v1: bool = False) -> Any:
    """`est` is `tensorflow.estimator` (the V2 classes), or with `v1` `tf.compat.v1.estimator`."""
    if v1:
        source = "est = tf.estimator\n" + source
    process = subprocess.run([TF215_PYTHON, "-c", _DRIVER], input=source, capture_output=True, text=True,
                             timeout=600, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    if process.returncode or not lines:
        raise RuntimeError(f"TensorFlow 2.15 failed:\n{process.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT:"):])


def run_webflow(source: str, v1: bool = False) -> Any:
    """`est` is webflow.estimator (TF's `tensorflow.estimator`, the V2 classes), or with `v1` webflow.compat.v1's
    (`tf.compat.v1.estimator`)."""
    import webflow
    import webflow.compat.v1 as tf
    scope: dict = {"tf": tf, "est": tf.estimator if v1 else webflow.estimator, "fc": tf.feature_column, "np": np,
                   "model_dir": tempfile.mkdtemp()}
    exec(_PLAIN, scope)
    exec(source, scope)
    return json.loads(json.dumps(scope["plain"](scope["result"])))
