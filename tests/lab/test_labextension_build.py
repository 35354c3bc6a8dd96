"""The JupyterLab extension (labextension/): its vitest suite passes, and webflow's wheel installs it, enabled.

Needs npm (and labextension/node_modules, made by `make labext` or the editable install); skips without them
locally and fails under `make test` (WEBFLOW_REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile

import pytest
from conftest import require_or_skip

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "tools"))
import labext  # noqa: E402  (tools/labext.py)

SHARE = "share/jupyter/labextensions/webflow-lab"


def _built_extension() -> str:
    try:
        return labext.build_labextension()
    except labext.LabextUnavailable as error:
        require_or_skip(str(error))
        raise


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A webflow wheel built from a clean copy of the sources (as tools/wheels.py does, without the wasm step)."""
    _built_extension()
    out = str(tmp_path_factory.mktemp("wheel"))
    with tempfile.TemporaryDirectory(prefix="wf-labext-src-") as source:
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(os.path.join(REPO, name), source)
        shutil.copytree(os.path.join(REPO, "webflow"), os.path.join(source, "webflow"),
                        ignore=shutil.ignore_patterns("__pycache__", "_build", "*.pyc"))
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            require_or_skip(f"pip wheel failed (PyPI unreachable for the build backend?): {done.stderr[-1500:]}")
    return glob.glob(os.path.join(out, "webflow-*.whl"))[0]


def test_vitest_suite_passes() -> None:
    _built_extension()
    start = time.perf_counter()
    done = subprocess.run([shutil.which("npm") or "npm", "test", "--", "--reporter=dot"], cwd=labext.SOURCE,
                          capture_output=True, text=True, timeout=900)
    print(f"vitest took {time.perf_counter() - start:.1f} s")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert " passed" in output and " failed" not in output, output[-2000:]


def test_standalone_bundle_exposes_render_functions() -> None:
    _built_extension()
    bundle = os.path.join(labext.SOURCE, "dist", "webflow-graph.js")
    assert os.path.exists(bundle) and os.path.exists(os.path.join(labext.SOURCE, "dist", "webflow-graph.css"))
    text = open(bundle, encoding="utf-8").read()
    assert "window.webflowGraph" in text and "renderGraph" in text and "renderDashboard" in text
    assert "@jupyterlab" not in text and "@lumino" not in text  # no JupyterLab inside the standalone page bundle


def test_wheel_ships_the_prebuilt_extension(wheel: str) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    data = [n for n in names if f"/data/{SHARE}/" in n]
    assert any(n.endswith(f"{SHARE}/package.json") for n in data), names
    assert any(n.endswith(f"{SHARE}/install.json") for n in data)
    assert any(n.endswith(f"{SHARE}/static/style.js") for n in data)
    meta = json.loads(zipfile.ZipFile(wheel).read(next(n for n in data if n.endswith(f"{SHARE}/package.json"))))
    assert meta["name"] == "webflow-lab"
    assert meta["jupyterlab"]["_build"]["mimeExtension"] == "./mimeExtension"
    # the rest of the package data still ships
    assert any(n.startswith("webflow/datasets/sample/") and n.endswith(".gz") for n in names)
    assert any(n.startswith("webflow/wasm/") and n.endswith(".c") for n in names)
    assert "webflow/README.md" in names


def _jupyterlab_requirement() -> str:
    """The JupyterLab pin of pyproject.toml's `browser` extra (the version the extension is built against)."""
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as file:
        extras = tomllib.load(file)["project"]["optional-dependencies"]["browser"]
    return next(r for r in extras if r.startswith("jupyterlab"))


def test_installed_wheel_is_listed_enabled_by_jupyterlab(wheel: str, tmp_path: str) -> None:
    # A new environment as a user makes one: the wheel and JupyterLab installed from the registry. (Not
    # --system-site-packages: that sees the base interpreter's packages, not .venv's, so it passed only where
    # JupyterLab had been installed system-wide by hand.)
    venv = os.path.join(str(tmp_path), "venv")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=300)
    python = os.path.join(venv, "bin", "python")
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel,
                           _jupyterlab_requirement()], capture_output=True, text=True, timeout=1200)
    if done.returncode != 0:
        require_or_skip(f"pip could not install the wheel and JupyterLab (registry unreachable?): "
                        f"{done.stderr[-1500:]}")
    assert os.path.exists(os.path.join(venv, SHARE, "install.json"))
    # `jupyter labextension list` of that environment (the `jupyter` launcher would pick the one on PATH)
    listing = subprocess.run([python, "-c", "import sys; from jupyterlab.labextensions import LabExtensionApp; "
                              "sys.argv = ['jupyter-labextension', 'list']; LabExtensionApp.launch_instance()"],
                             capture_output=True, text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})
    text = listing.stdout + listing.stderr
    line = next((ln for ln in text.splitlines() if "webflow-lab" in ln), "")
    assert "enabled" in line and "OK" in line and "(python, webflow)" in line, text
