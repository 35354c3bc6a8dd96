"""Every lesson notebook runs top to bottom in CPython, and its own checks hold.

The lessons (lessons/*.ipynb) check themselves with `assert`s against values derived by hand in their prose
(the gradient of w² at 3 is 6, an untrained 10-class softmax loses ln 10, ...). Here each notebook's code
cells run in order in one fresh namespace, as a kernel would run them; a failing assert or exception names
the notebook and the cell. No Jupyter needed: the notebook is JSON, its cells are source text.

The same cells run in the browser (JupyterLite's Pyodide kernel, no NumPy): tests/browser/test_jupyterlite.py.
Here they also run once with NumPy blocked (as in Pyodide), in a child Python.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = sorted(glob.glob(os.path.join(ROOT, "lessons", "*.ipynb")))


def code_cells(path: str) -> list[str]:
    """The source of each code cell of a notebook, in order."""
    with open(path, encoding="utf-8") as file:
        notebook = json.load(file)
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def run_notebook(path: str) -> None:
    """Executes the code cells in one namespace; an error says which cell failed. As in Jupyter, the working
    directory is the notebook's folder (lessons import their exercise checkers and plots helper from it)."""
    namespace: dict = {"__name__": "__main__"}
    previous = os.getcwd()
    os.chdir(os.path.dirname(os.path.abspath(path)))
    try:
        for number, source in enumerate(code_cells(path), start=1):
            code = compile(source, f"{os.path.basename(path)}[code cell {number}]", "exec")
            exec(code, namespace)  # noqa: S102 (running the lesson is the point)
    finally:
        os.chdir(previous)


def test_there_are_lessons() -> None:
    names = [os.path.basename(path) for path in LESSONS]
    assert names[:4] == ["01_session_run.ipynb", "02_variables_and_gradients.ipynb",
                         "03_automatic_differentiation.ipynb", "04_mnist.ipynb"]


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(path) for path in LESSONS])
def test_lesson_runs_and_its_checks_pass(path: str, capsys) -> None:
    started = time.perf_counter()
    run_notebook(path)
    seconds = time.perf_counter() - started
    with capsys.disabled():
        print(f"\n{os.path.basename(path)}: {seconds:.2f} s")


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(path) for path in LESSONS])
def test_lesson_runs_without_numpy(path: str) -> None:
    """As in JupyterLite's Pyodide kernel: `import numpy` fails, webflow runs on its C kernels."""
    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    program = ("import sys\nsys.modules['numpy'] = None\n"
               f"sys.path.insert(0, {os.path.join(ROOT, 'tests')!r})\n"
               f"from test_lessons import run_notebook\nrun_notebook({path!r})\n")
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=600,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-4000:]
