"""Every lesson notebook runs top to bottom in a real Jupyter kernel (nbclient + ipykernel), with no error output.

tests/test_lessons.py executes the lessons' code cells itself, in one namespace; this test runs them as a learner's
"Run All" does: a fresh ipykernel per notebook, started in the lessons' folder, IPython's display machinery and
all. A cell whose output is an error (a traceback), or a traceback printed to stderr, fails the notebook and names
the cell. Notebooks are found by glob, so a new chapter is run as soon as its file exists.

Each notebook has an explicit time budget for the whole run (the chapters aim at <= 2 minutes on 2 cores; the
budgets leave room for a loaded CI machine). WEBFLOW_DATA (MNIST, Shakespeare) reaches the kernel unchanged.
"""

from __future__ import annotations

import asyncio
import glob
import os
import time

import executed_lessons
import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS_DIR = os.path.join(ROOT, "lessons")
LESSONS = sorted(glob.glob(os.path.join(LESSONS_DIR, "*.ipynb")))

# Seconds for the whole notebook. A chapter missing here gets DEFAULT_BUDGET: give it a line when it is written.
DEFAULT_BUDGET = 600
BUDGETS = {
    "01_session_run.ipynb": 300,
    "02_variables_and_gradients.ipynb": 300,
    "03_automatic_differentiation.ipynb": 300,
    "04_mnist.ipynb": 600,
    "05_convolutions.ipynb": 600,
    "06_broadcasting_and_shape_errors.ipynb": 300,
    "07_input_pipelines.ipynb": 300,
    "08_saving_and_tensorboard.ipynb": 600,
    "09_recurrent_networks.ipynb": 600,
    "10_high_level_apis.ipynb": 600,
    "11_performance.ipynb": 600,
    "12_beyond_one_machine.ipynb": 600,
}


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this process's, WEBFLOW_DATA included (the lessons read MNIST and Shakespeare
    through it). WEBFLOW_BACKEND is dropped so the lesson picks its kernels as a learner's kernel would."""
    env = dict(os.environ)
    env.pop("WEBFLOW_BACKEND", None)
    return env


def execute(path: str, budget: float) -> nbformat.NotebookNode:
    """Runs the notebook in a fresh python3 kernel started in its folder; raises on an error output (nbclient's
    CellExecutionError names the cell) or when the whole run exceeds `budget` seconds (TimeoutError)."""
    notebook = nbformat.read(path, as_version=4)
    # The lessons' kernelspec is JupyterLite's ("python", Pyodide); in CPython the kernel is ipykernel's python3.
    client = NotebookClient(notebook, kernel_name="python3", timeout=int(budget), allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(path)}})

    async def run() -> None:
        await asyncio.wait_for(client.async_execute(env=kernel_env()), timeout=budget)

    asyncio.run(run())
    return notebook


def error_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    """Each error output, and each traceback printed to stderr, as "cell N: <text>"."""
    found = []
    for number, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {number}: {output.get('ename')}: {output.get('evalue')}")
            elif output.get("name") == "stderr" and "Traceback (most recent call last)" in output.get("text", ""):
                found.append(f"cell {number}: {output['text'][-2000:]}")
    return found


def test_the_kernel_sees_webflow_data_and_reports_errors(tmp_path) -> None:
    """The harness itself: WEBFLOW_DATA reaches the kernel, the kernel runs in the notebook's folder, and a cell
    that raises fails the run."""
    path = tmp_path / "probe.ipynb"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import os\nprint(os.environ.get('WEBFLOW_DATA'), os.getcwd())")])
    nbformat.write(notebook, str(path))
    ran = execute(str(path), 120)
    want = f"{os.environ.get('WEBFLOW_DATA')} {os.path.realpath(tmp_path)}\n"
    assert ran.cells[0].outputs[0]["text"] == want
    notebook.cells.append(nbformat.v4.new_code_cell("1 / 0"))
    nbformat.write(notebook, str(path))
    with pytest.raises(CellExecutionError, match="ZeroDivisionError"):
        execute(str(path), 120)


def test_lessons_are_found() -> None:
    assert len(LESSONS) >= 4, LESSONS


@pytest.mark.parametrize("path", LESSONS, ids=[os.path.basename(path) for path in LESSONS])
def test_lesson_runs_in_a_jupyter_kernel(path: str, capsys, request) -> None:
    budget = BUDGETS.get(os.path.basename(path), DEFAULT_BUDGET)
    started, stamp = time.perf_counter(), executed_lessons.fingerprint(path)
    notebook = execute(path, budget)
    executed_lessons.save(request.config, path, notebook, stamp)  # for tests/test_lessons_static_export.py
    seconds = time.perf_counter() - started
    with capsys.disabled():
        print(f"\n{os.path.basename(path)} in a kernel: {seconds:.1f} s (budget {budget} s)")
    assert error_outputs(notebook) == []
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.get("execution_count") for cell in code_cells), "a code cell did not run"
