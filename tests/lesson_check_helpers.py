"""What the lesson-checker tests share."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def fails_with(checker, answer, *words: str) -> None:
    """The checker rejects `answer` with a hint naming each of `words`."""
    result = checker(answer, quiet=True)
    assert not result.passed, result.message
    assert "not yet" in result.message or "not started" in result.message, result.message
    for word in words:
        assert word in result.message, (word, result.message)


def rerun_without_numpy(test_file: str) -> None:
    """Every test of `test_file` again in a child Python where `import numpy` fails, as in JupyterLite's kernel
    (skipped inside that child run, and where the C kernels are unavailable)."""
    if os.environ.get("WEBFLOW_LESSON_CHECKS_CHILD"):
        pytest.skip("already the child run")
    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    program = ("import sys\nsys.modules['numpy'] = None\nimport pytest\n"
               f"sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', {os.path.abspath(test_file)!r}]))\n")
    env = dict(os.environ, WEBFLOW_LESSON_CHECKS_CHILD="1", OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
