"""The site's Content-Security-Policy (issue 29): every page forbids off-origin requests, and still works.

Every HTML page of site/ (front page, MNIST demo, char-RNN page, playground) carries the same
`<meta http-equiv="Content-Security-Policy">`: sources 'self' only (connect-src, img-src, script-src ...), plus
what the pages need: 'wasm-unsafe-eval' (Pyodide compiles WebAssembly), inline styles, data:/blob: images and
blob: workers. In headless Chromium each built page is loaded from 127.0.0.1, reaches its working state (the
demos: `data-state="ready"`; the playground then runs its default program to `done`), and then tries
`fetch("https://example.com/")` and an `<img src="https://example.com/...">`: both must fail, each with a
`securitypolicyviolation` event naming the directive, and neither may reach the network (the harness in
chromium.py records every request that leaves the origin: the CSP must stop them before it does).
A same-origin fetch still succeeds (the policy is not simply "nothing").

Limit (documented in site/README.md): a meta CSP governs the page's document only. The demos' Web Workers are
loaded from their own URLs, and Chromium gives such a worker the policy of its HTTP response headers, which a
static site cannot set; the workers' own requests are kept on the origin by the code (and checked by the
other browser tests' request logs). Needs `make site` first (the test does not build).
"""

from __future__ import annotations

import glob
import os
import re
import sys
import time

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import fail_if_stale, require_chromium, served_page  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lab"))
from notebook_ui import NotebookUI  # noqa: E402

SITE = os.path.abspath(os.path.join(HERE, "..", "..", "site"))
BUILD = os.path.join(SITE, "_build")
PAGES = ["index.html", "demo/mnist.html", "demo/char_rnn.html", "playground/index.html"]
READY_TIMEOUT_MS = 240_000
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">')

# Tries the two off-origin loads from the page; resolves to what happened (the CSP reports as it blocks).
PROBE = """async () => {
  const violations = [];
  document.addEventListener("securitypolicyviolation",
      (event) => violations.push({directive: event.effectiveDirective, blocked: event.blockedURI}));
  let fetched;
  try { await fetch("https://example.com/"); fetched = "loaded"; } catch (error) { fetched = "refused"; }
  const image = await new Promise((resolve) => {
    const img = document.createElement("img");
    img.onload = () => resolve("loaded");
    img.onerror = () => resolve("refused");
    img.src = "https://example.com/tracker.png";
    document.body.appendChild(img);
  });
  const own = await fetch(location.href).then((response) => response.status, () => "refused");
  await new Promise((resolve) => setTimeout(resolve, 100));  // the violation events are queued tasks
  return {fetched, image, own, violations};
}"""


def _policy(html_path: str) -> dict:
    with open(html_path, encoding="utf-8") as file:
        found = META.findall(file.read())
    assert len(found) == 1, f"{html_path}: {len(found)} Content-Security-Policy meta tags"
    return {part.split()[0]: part.split()[1:] for part in (p.strip() for p in found[0].split(";")) if part}


def _source_pages() -> list:
    skipped = (os.sep + "_build", os.sep + "node_modules", os.sep + "_cache")
    return sorted(path for path in glob.glob(os.path.join(SITE, "**", "*.html"), recursive=True)
                  if not any(part in path[len(SITE):] for part in skipped))


def test_every_page_of_the_site_allows_only_its_own_origin():
    pages = _source_pages()
    assert sorted(os.path.relpath(p, SITE) for p in pages) == sorted(PAGES), pages  # a new page needs the meta
    policies = [_policy(page) for page in pages]
    assert all(policy == policies[0] for policy in policies)
    policy = policies[0]
    assert policy["default-src"] == ["'self'"] and policy["connect-src"] == ["'self'"]
    for directive, sources in policy.items():   # nothing off-origin, nowhere
        assert not [s for s in sources if s.startswith(("http", "*", "//")) or s in ("https:", "http:")], directive
    assert "'unsafe-eval'" not in policy["script-src"] and "'unsafe-inline'" not in policy["script-src"]
    assert policy["object-src"] == ["'none'"]


def _check_build() -> None:
    require_chromium()
    for page in PAGES:
        built = os.path.join(BUILD, page)
        if not os.path.exists(built):
            require_or_skip(f"the site is not built: run `make site` (no {built})")
        fail_if_stale(built, os.path.join(SITE, page), f"site/{page}")
        assert _policy(built) == _policy(os.path.join(SITE, page))


def _wait_for_state(page, states: tuple, timeout_ms: int) -> str:
    """Polls <body data-state> with page.evaluate (DevTools' evaluation, which the policy allows: Playwright's
    wait_for_function evaluates a string inside the page, which the policy forbids)."""
    deadline = time.monotonic() + timeout_ms / 1000
    state = ""
    while time.monotonic() < deadline:
        state = page.evaluate("document.body.dataset.state")
        if state in states:
            return state
        page.wait_for_timeout(200)
    return state


def _wait_until_working(page, path: str) -> None:
    if path == "index.html":
        assert page.locator("a[href='demo/mnist.html']").count() == 1
        return
    state = _wait_for_state(page, ("ready", "error"), READY_TIMEOUT_MS)
    assert state == "ready", page.locator("#status").text_content()
    if path.startswith("playground/"):  # the graph renderer draws under the policy too
        page.click("#run")
        state = _wait_for_state(page, ("done", "error"), READY_TIMEOUT_MS)
        assert state == "done", page.locator("#status").text_content()
        assert page.locator("svg").count() > 0


@pytest.mark.parametrize("path", PAGES)
def test_off_origin_fetch_and_image_are_refused_and_the_page_works(path):
    _check_build()
    with served_page(BUILD, bypass_csp=False) as (origin, page, log):
        page.goto(f"{origin}/{path}")
        _wait_until_working(page, path)
        outcome = page.evaluate(PROBE)
    print(f"\n{path}: {outcome}")
    assert outcome["fetched"] == "refused" and outcome["image"] == "refused", outcome
    assert outcome["own"] == 200, outcome
    directives = {(v["directive"], v["blocked"].rstrip("/")) for v in outcome["violations"]}
    assert ("connect-src", "https://example.com") in directives, outcome
    assert ("img-src", "https://example.com/tracker.png") in directives, outcome
    assert not log.foreign, f"the CSP let requests reach the network: {log.foreign}"
    others = [e for e in log.errors if "Content Security Policy" not in e and "example.com" not in e]
    assert not others, others


# --- the JupyterLite lessons (site/_build/lite, policy added by site/lite_policy.py) ------------------------
LITE = os.path.join(BUILD, "lite")
LESSON = "01_session_run.ipynb"  # its first cell imports webflow in the Pyodide kernel and prints this:
FIRST_CELL_OUTPUT = "executing eagerly? False"


def _lite_pages() -> list:
    static = os.path.join(LITE, "static") + os.sep
    return sorted(path for path in glob.glob(os.path.join(LITE, "**", "*.html"), recursive=True)
                  if not path.startswith(static))


def _check_lite_build() -> None:
    require_chromium()
    if not os.path.exists(os.path.join(LITE, "lab", "index.html")):
        require_or_skip(f"JupyterLite site not built at {LITE}: run `make site`")


def test_every_jupyterlite_page_allows_only_its_own_origin_and_its_own_inline_scripts():
    _check_lite_build()
    sys.path.insert(0, SITE)
    import lite_policy

    pages = _lite_pages()
    assert len(pages) >= 5 and any(page.endswith(os.path.join("lab", "index.html")) for page in pages)
    for path in pages:
        policy = _policy(path)
        assert policy["default-src"] == ["'self'"] and policy["connect-src"] == ["'self'"], path
        sources = [source for listed in policy.values() for source in listed]
        assert not [s for s in sources if s.startswith(("http", "*", "//")) or s in ("https:", "http:")], path
        assert "'unsafe-inline'" not in policy["script-src"]  # inline scripts by hash only
        with open(path, encoding="utf-8") as file:
            html = file.read()
        assert lite_policy.policy_for(META.sub("", html)) == META.search(html).group(1), path  # every inline script


def test_jupyterlite_under_its_policy_runs_a_cell_and_refuses_off_origin_requests():
    _check_lite_build()
    with served_page(LITE, bypass_csp=False) as (origin, page, log):
        page.goto(f"{origin}/lab/index.html?path={LESSON}", timeout=READY_TIMEOUT_MS)
        page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=READY_TIMEOUT_MS)
        notebook = NotebookUI(page, timeout_ms=READY_TIMEOUT_MS)
        notebook.wait_idle()
        # NotebookUI.run presses again when a busy machine's JupyterLab dropped the first Shift+Enter (the fresh CI
        # saw the cell never run: 240 s without its output)
        notebook.run(notebook.page.locator(".jp-Notebook .jp-Cell").evaluate_all(
            "cells => cells.findIndex((c) => c.classList.contains('jp-CodeCell'))"))
        page.wait_for_selector(f".jp-OutputArea-output:has-text('{FIRST_CELL_OUTPUT}')", timeout=READY_TIMEOUT_MS)
        outcome = page.evaluate(PROBE)
    print(f"\nJupyterLite {LESSON}: first cell ran; {outcome}")
    assert outcome["fetched"] == "refused" and outcome["image"] == "refused", outcome
    directives = {(v["directive"], v["blocked"].rstrip("/")) for v in outcome["violations"]}
    assert ("connect-src", "https://example.com") in directives, outcome
    assert ("img-src", "https://example.com/tracker.png") in directives, outcome
    assert not log.foreign, f"the CSP let requests reach the network: {log.foreign}"
    others = [e for e in log.errors if "Content Security Policy" not in e and "example.com" not in e]
    assert not others, others
