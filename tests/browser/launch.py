"""The browser tests' shared set-up: what a test needs (else it skips, or fails under `make test`), then a server
and a Chromium page on it.

    require_jupyterlab()                                       # Chromium, the built extension, jupyterlab, ipykernel
    write_notebook(root, "board.ipynb", cells)
    with lab_page(root, tmp_path) as (url, page, log):         # `jupyter lab` on root + a 1400x1000 page

    wheel = require_lite_site(tmp_path)                        # the built JupyterLite site + this checkout's wheel
    with lite_page(lite_overlay(work, cells, wheel)) as (origin, page, log):
        page.goto(origin + LITE_NOTEBOOK)

    require_chromium(); fail_if_stale(built, source, "site/demo/x.js")    # a page of the built site
    with served_page(build_folder) as (origin, page, log):

Importing this module puts tests/browser, tests/lab and tests/pyodide on sys.path (their helper modules): import it
before them (`from launch import ...` sorts before `from notebook_ui import ...`; get lab_server's names from here).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterator

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
REPO = os.path.dirname(TESTS)
for _folder in (os.path.join(TESTS, "pyodide"), os.path.join(TESTS, "lab"), HERE):
    if _folder not in sys.path:
        sys.path.insert(0, _folder)
import chromium  # noqa: E402
from lab_server import BUILT, jupyterlab_server  # noqa: E402
from notebook_ui import lab_environment, notebook_json  # noqa: E402
from static_server import serve  # noqa: E402
from wheels import WheelUnavailable, build_webflow_wheel  # noqa: E402

WIDE = {"width": 1400, "height": 1000}   # the notebook tests' viewport: a graph and its panel side by side
LITE_SITE = os.environ.get("WEBFLOW_LITE_SITE", os.path.join(REPO, "site", "_build", "lite"))
LITE_NOTEBOOK = "/lab/index.html?path=board.ipynb"   # the notebook lite_overlay lays over the site

# For page.add_init_script: records every data-state the body takes, from the first one on
# (the site's pages set them: loading, ready, training ...).
RECORD_STATES = """
window.__states = [];
const note = () => {
  const state = document.body && document.body.dataset.state;
  if (state && window.__states[window.__states.length - 1] !== state) window.__states.push(state);
};
new MutationObserver(note).observe(document, {attributes: true, subtree: true, childList: true,
                                              attributeFilter: ["data-state"]});
document.addEventListener("DOMContentLoaded", note);
"""


# --- what a test needs ----------------------------------------------------------------------------------
def require_chromium() -> None:
    reason = chromium.unavailable_reason()
    if reason:
        require_or_skip(reason)


def require_labextension() -> None:
    if not os.path.exists(os.path.join(BUILT, "static", "style.js")):
        require_or_skip("webflow/lab/labextension is not built (make labext)")


def require_modules(*modules: str, extras: str = "browser") -> None:
    for module in modules:
        try:
            __import__(module)
        except ImportError:
            require_or_skip(f"{module} is not installed (pip install '.[{extras}]')")


def require_jupyterlab(*modules: str, extension: bool = True, extras: str = "browser") -> None:
    """Chromium, webflow's built extension and the Python modules a live JupyterLab needs."""
    require_chromium()
    if extension:
        require_labextension()
    require_modules(*(modules or ("jupyterlab", "ipykernel")), extras=extras)


def require_lite_site(wheel_folder: str | None = None) -> str | None:
    """The built JupyterLite site, Chromium and the built extension; with a folder, builds this checkout's wheel
    there and returns its path."""
    if not os.path.exists(os.path.join(LITE_SITE, "lab", "index.html")):
        require_or_skip(f"JupyterLite site not built at {LITE_SITE}: run `make site`")
    require_chromium()
    require_labextension()
    return webflow_wheel(wheel_folder) if wheel_folder is not None else None


def webflow_wheel(folder: str) -> str:
    try:
        return build_webflow_wheel(str(folder))
    except WheelUnavailable as error:
        require_or_skip(f"no webflow wheel: {error}")


def fail_if_stale(built: str, source: str, hint: str) -> None:
    """A build older than its source fails (the tests test what `make site` made): `hint` names the source."""
    if os.path.exists(built) and os.path.getmtime(built) < os.path.getmtime(source):
        pytest.fail(f"site/_build is older than {hint}: run `make site` again")


# --- servers and pages ----------------------------------------------------------------------------------
def write_notebook(root: str, name: str, cells: list[str]) -> None:
    """`root`/`name`, a notebook of these code cells (root made if needed)."""
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, name), "w") as f:
        json.dump(notebook_json(cells), f)


@contextlib.contextmanager
def lab_page(root: str, work_dir: str | None = None, viewport: dict | None = WIDE,
             extra_env: dict | None = None) -> Iterator[tuple]:
    """`jupyter lab` on `root` (with the test kernel of lab_environment(work_dir) when given) and a Chromium page;
    yields (url, page, log)."""
    env = {**(lab_environment(str(work_dir)) if work_dir is not None else {}), **(extra_env or {})}
    with jupyterlab_server(root, extra_env=env or None) as url, \
            chromium.chromium_page(url, viewport=viewport) as (page, log):
        yield url, page, log


@contextlib.contextmanager
def served_page(mounts: dict | str, viewport: dict | None = None, bypass_csp: bool = True) -> Iterator[tuple]:
    """A static server of `mounts` (static_server.serve) and a Chromium page (1200x900 unless `viewport`);
    yields (origin, page, log)."""
    with serve(mounts) as origin, \
            chromium.chromium_page(origin, viewport=viewport, bypass_csp=bypass_csp) as (page, log):
        yield origin, page, log


def lite_page(mounts: dict | str, viewport: dict | None = WIDE) -> contextlib.AbstractContextManager[tuple]:
    """served_page for a notebook in the JupyterLite site: the wide viewport."""
    return served_page(mounts, viewport=viewport)


def lite_overlay(work: str, cells: list[str], wheel: str) -> dict:
    """URL mounts laying a notebook of `cells` (board.ipynb), the wheel + lock and the built extension over the
    built JupyterLite site."""
    files, contents = os.path.join(work, "files"), os.path.join(work, "contents")
    os.makedirs(files)
    os.makedirs(contents)
    kernelspec = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
    text = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": kernelspec},
                       "cells": [{"cell_type": "code", "id": f"cell{i}", "execution_count": None, "metadata": {},
                                  "source": cell, "outputs": []} for i, cell in enumerate(cells)]})
    with open(os.path.join(files, "board.ipynb"), "w") as f:
        f.write(text)
    write_contents_listing(contents, "board.ipynb", len(text))
    lock_path, wheel_url = _lock_with(work, wheel)
    return {"/": LITE_SITE, "/files/": files, "/api/contents/": contents,
            "/jupyter-lite.json/": _config_with_extension(work), "/static/pyodide/pyodide-lock.json/": lock_path,
            wheel_url + "/": wheel, "/extensions/webflow-lab/": BUILT}


def write_contents_listing(contents: str, name: str, size: int) -> None:
    """JupyterLite's contents API listing of the root folder (contents/all.json): one notebook of `size` bytes."""
    stamp = "2026-01-01T00:00:00Z"
    entry = {"name": name, "path": name, "type": "notebook", "format": None, "mimetype": None,
             "content": None, "size": size, "writable": True, "created": stamp, "last_modified": stamp,
             "hash": None, "hash_algorithm": None}
    with open(os.path.join(contents, "all.json"), "w") as f:
        json.dump({"name": "", "path": "", "type": "directory", "format": "json", "mimetype": None, "size": None,
                   "writable": True, "created": stamp, "last_modified": stamp, "hash": None, "hash_algorithm": None,
                   "content": [entry]}, f)


def _lock_with(work: str, wheel: str) -> tuple[str, str]:
    """The site's pyodide-lock.json with this wheel's hash; returns (its path, the wheel's URL)."""
    with open(os.path.join(LITE_SITE, "static", "pyodide", "pyodide-lock.json")) as f:
        lock = json.load(f)
    with open(wheel, "rb") as f:
        lock["packages"]["webflow"]["sha256"] = hashlib.sha256(f.read()).hexdigest()
    lock_path = os.path.join(work, "pyodide-lock.json")
    with open(lock_path, "w") as f:
        json.dump(lock, f)
    return lock_path, "/static/pyodide/" + lock["packages"]["webflow"]["file_name"]


def _config_with_extension(work: str) -> str:
    """The site's jupyter-lite.json with the built extension (this checkout's) as webflow-lab; returns its path."""
    with open(os.path.join(LITE_SITE, "jupyter-lite.json")) as f:
        config = json.load(f)
    with open(os.path.join(BUILT, "package.json")) as f:
        build = json.load(f)["jupyterlab"]["_build"]
    data = config["jupyter-config-data"]
    data["federated_extensions"] = [e for e in data["federated_extensions"] if e["name"] != "webflow-lab"]
    data["federated_extensions"].append({"name": "webflow-lab", **build})
    config_path = os.path.join(work, "jupyter-lite.json")
    with open(config_path, "w") as f:
        json.dump(config, f)
    return config_path
