"""The TensorBoard panel's reader where JupyterLite runs it: inside Pyodide (Node, offline), no NumPy, no protobuf.

The logdir (runs written by webflow's TF1 and TF2 writers, and with WEBFLOW_TF_PYTHON one written by TensorFlow 2.21)
is shared with Pyodide through the session's exchange folder; the document Pyodide builds must equal the one CPython
builds from the same files (which test_tensorboard_panel.py checks against TensorBoard's EventAccumulator).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "pyodide"))
sys.path.insert(0, os.path.join(ROOT, "tests", "summary"))
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable  # noqa: E402
from summary_oracle import TF_PYTHON, run_oracle  # noqa: E402
from test_tensorboard_panel import write_webflow_tf1, write_webflow_tf2  # noqa: E402

from webflow.lab.tensorboard_document import tensorboard_document  # noqa: E402
from webflow.summary.logdir_reader import LogdirReader  # noqa: E402

TF_RUN = """
import numpy as np
import tensorflow as tf
writer = tf.summary.create_file_writer(LOGDIR)
with writer.as_default():
    for step in range(4):
        tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
    tf.summary.histogram("weights", np.linspace(-1, 1, 50), step=0)
    tf.summary.image("pic", np.ones((1, 3, 2, 3), np.float32) * 0.5, step=0)
    tf.summary.text("notes", "from TensorFlow", step=1)
writer.close()
result = True
"""

IN_PYODIDE = """
import json, sys
for name in [m for m in sys.modules if m == "webflow" or m.startswith("webflow.")]:
    del sys.modules[name]  # the runner's bare package: import the real one
import webflow.lab
from webflow.io import crc32c
from webflow.lab.tensorboard_document import tensorboard_document
from webflow.summary.logdir_reader import LogdirReader
document = tensorboard_document(LogdirReader("/exchange/logs").reload().runs, logdir="logs")
{"document": json.dumps(document), "numpy": "numpy" in sys.modules, "protobuf": "google.protobuf" in sys.modules,
 "crc": crc32c.implementation(), "platform": sys.platform}
"""


def test_pyodide_builds_the_same_document(tmp_path) -> None:
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        pytest.skip(f"no node or npm pyodide (npm ci in {os.path.dirname(NODE_MODULES)})")
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"))
    except PyodideUnavailable as error:
        pytest.skip(str(error))
    try:
        logdir = os.path.join(session.exchange, "logs")
        write_webflow_tf2(os.path.join(logdir, "webflow_tf2"))
        write_webflow_tf1(os.path.join(logdir, "webflow_tf1"))
        if TF_PYTHON:
            run_oracle(f"LOGDIR = {os.path.join(logdir, 'tensorflow')!r}\n" + TF_RUN)
        found = session.evaluate(textwrap.dedent(IN_PYODIDE))
        expected = tensorboard_document(LogdirReader(logdir).reload().runs, logdir="logs")
    finally:
        session.close()
    assert found["platform"] == "emscripten" and found["numpy"] is False and found["protobuf"] is False
    assert found["crc"] == "python"
    document = json.loads(found["document"])
    assert document == json.loads(json.dumps(expected))
    assert document["runs"] == (["tensorflow"] if TF_PYTHON else []) + ["webflow_tf1", "webflow_tf2"]
    assert document["scalars"]["loss"]["webflow_tf2"][-1][2] == 0.375
