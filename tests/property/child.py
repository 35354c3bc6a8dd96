"""Running a batch of generated cases in a child process: webflow without NumPy, or real TensorFlow."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_child(cases: list, engine: list, python: str = sys.executable) -> list:
    """catalog.py's results for `cases` (strategies.Case) from one child process (`engine`: its arguments)."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([python, catalog.__file__, *engine], input=json.dumps([c.to_json() for c in cases]),
                          capture_output=True, text=True, env=env, timeout=1800, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])
