"""Shared by the C-kernel tests that check the no-NumPy path (Pyodide has no NumPy): run a program in a fresh
interpreter in which `import numpy` fails, with this checkout on its path, and read its JSON answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BLOCK_NUMPY = "import sys\nsys.modules['numpy'] = None  # any `import numpy` now raises ImportError\n"


def run_without_numpy(program: str) -> Any:
    """Runs `program` (its last line of output must be JSON) without NumPy; returns that JSON, decoded.
    A failing program fails the calling test with the end of its stderr."""
    done = subprocess.run([sys.executable, "-c", BLOCK_NUMPY + program], env=dict(os.environ, PYTHONPATH=ROOT),
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
