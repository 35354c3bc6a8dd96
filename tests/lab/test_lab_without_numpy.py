"""webflow.lab works where NumPy is missing (Pyodide): documents, explanations, profiles, dashboards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = """
import sys
sys.modules["numpy"] = None
import json
import webflow.compat.v1 as tf
import webflow.lab as lab
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, (None, 2), name="x")
y = x * 2.0
document = lab.graph_document(tf.get_default_graph())
b = tf.constant([[1.0], [2.0]], name="b")
try:
    tf.placeholder(tf.float32, (3, 1), name="p") + b
except ValueError as error:
    explanation = lab.explain(error)
board = lab.Dashboard(display=lambda *a, **k: None)
metadata = tf.RunMetadata()
print(json.dumps({"numpy": sys.modules["numpy"] is not None, "nodes": [n["name"] for n in document["nodes"]],
                  "shape": document["nodes"][0]["outputs"][0]["shape"],
                  "cause": explanation.text.splitlines()[-2],
                  "trace": lab.chrome_trace(metadata)["traceEvents"][0]["ph"],
                  "hints": board.hints}, allow_nan=False))
"""


def test_lab_without_numpy(tmp_path) -> None:
    script = tmp_path / "no_numpy.py"  # a file, so that the explanation can read the source line
    script.write_text(textwrap.dedent(PROGRAM))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["numpy"] is False
    assert result["nodes"] == ["x", "mul/y", "mul"]
    assert result["shape"] == "(?, 2)"
    # a long operand expression is called by the op's input name (x of AddV2), not repeated whole (issue 31)
    assert result["cause"] == "Cause: + on tensor operand x w/shape (3, 1) and operand b w/shape (2, 1)"
    assert result["trace"] == "M" and result["hints"] == []
