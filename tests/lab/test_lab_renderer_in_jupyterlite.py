"""The same renderer in JupyterLite (JupyterLab in the browser, no server): a saved graph output renders as one
data-op-name element per op.

Uses the built lessons site (site/_build/lite, `make site`) served on 127.0.0.1, with three things laid over it
by URL mounts (the built site is not modified): our notebook in /files/ and its listing in /api/contents/, and,
when the site was built without webflow's extension, the built extension (webflow/lab/labextension) under
/extensions/webflow-lab/ plus its entry in jupyter-lite.json's federated_extensions.
"""

from __future__ import annotations

import json
import os
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "browser"))
from launch import BUILT, LITE_SITE, lite_page, require_lite_site, write_contents_listing  # noqa: E402
from test_lab_renderer_in_jupyterlab import DOC, _notebook  # noqa: E402  (the hand-written document)

SITE = LITE_SITE


def _overlay(work: str) -> tuple[dict, bool]:
    """URL mounts laying the notebook (and, if needed, webflow's extension) over the built site."""
    files, contents = os.path.join(work, "files"), os.path.join(work, "contents")
    os.makedirs(files)
    os.makedirs(contents)
    text = json.dumps(_notebook())
    with open(os.path.join(files, "graph.ipynb"), "w") as f:
        f.write(text)
    write_contents_listing(contents, "graph.ipynb", len(text))
    mounts = {"/": SITE, "/files/": files, "/api/contents/": contents}
    shipped = os.path.isdir(os.path.join(SITE, "extensions", "webflow-lab"))
    if not shipped:
        with open(os.path.join(SITE, "jupyter-lite.json")) as f:
            config = json.load(f)
        with open(os.path.join(BUILT, "package.json")) as f:
            build = json.load(f)["jupyterlab"]["_build"]
        config["jupyter-config-data"]["federated_extensions"].append({"name": "webflow-lab", **build})
        patched = os.path.join(work, "jupyter-lite.json")
        with open(patched, "w") as f:
            json.dump(config, f)
        mounts.update({"/jupyter-lite.json/": patched, "/extensions/webflow-lab/": BUILT})
    return mounts, shipped


def test_saved_graph_output_renders_in_jupyterlite(tmp_path: pytest.TempPathFactory) -> None:
    require_lite_site()
    mounts, shipped = _overlay(str(tmp_path))
    print("webflow-lab extension: " + ("shipped by the site" if shipped else "NOT in the site; laid over it"))
    start = time.perf_counter()
    with lite_page(mounts, viewport=None) as (origin, page, log):
        page.goto(origin + "/lab/index.html?path=graph.ipynb", timeout=180_000)
        page.wait_for_selector(".wf-node[data-op-name]", timeout=180_000)
        print(f"graph rendered in JupyterLite after {time.perf_counter() - start:.1f} s")
        attribute = "(els, name) => els.map(e => e.getAttribute(name))"
        names = page.eval_on_selector_all(".wf-node[data-op-name]", attribute, "data-op-name")
        types = page.eval_on_selector_all(".wf-node[data-op-type]", attribute, "data-op-type")
        assert sorted(names) == sorted(n["name"] for n in DOC["nodes"])
        assert sorted(types) == sorted(n["type"] for n in DOC["nodes"])
        assert page.eval_on_selector_all(".jp-OutputArea b", "els => els.length") == 0  # names stay text
        artifacts = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(HERE, "artifacts"))
        os.makedirs(artifacts, exist_ok=True)
        page.screenshot(path=os.path.join(artifacts, "jupyterlite_graph.png"))
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
