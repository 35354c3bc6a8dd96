"""A lesson's links to the engine work in the built site's JupyterLite (headless Chromium, offline).

Lesson 1 opened in `lite/` of the site `make site` built and run (Run All Cells, a few seconds of work). Its link
cells' links (lessons/source_links.py) must be absolute URLs into the site that serves the lab,
`<site>/source/<file>.html#L<n>`, opening a new tab; each page exists, and its anchored line holds the `def` the
link names. The first page is then loaded in Chromium under its Content-Security-Policy with no error, the
anchored line highlighted (CSS `:target`). Needs `make site` first.
"""

from __future__ import annotations

import os
import re
import sys
import time
import urllib.request
from html import unescape

from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import require_chromium, served_page  # noqa: E402
from test_source_links import chapter_symbols  # noqa: E402

SITE = os.environ.get("WEBFLOW_SITE", os.path.join(HERE, "..", "..", "site", "_build"))
LESSONS = os.path.join(HERE, "..", "..", "lessons")
LESSON = "01_session_run.ipynb"
TIMEOUT_MS = 300_000
LINKS = """els => els.map(e => ({href: e.getAttribute('href'), target: e.getAttribute('target'),
                                 code: (e.querySelector('code') || {}).textContent}))"""


def test_a_lessons_links_open_the_sites_source_pages_at_the_line() -> None:
    for needed in ("lite/lab/index.html", "source/index.html"):
        if not os.path.exists(os.path.join(SITE, needed)):
            require_or_skip(f"the site is not built (no {needed} in {SITE}): run `make site`")
    require_chromium()
    with served_page(SITE) as (origin, page, log):
        page.goto(f"{origin}/lite/lab/index.html?path={LESSON}", timeout=TIMEOUT_MS)
        page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=TIMEOUT_MS)
        page.click(".jp-Notebook .jp-CodeCell .cm-content")   # focus the notebook, then Run All (as a learner)
        page.click(".lm-MenuBar-itemLabel:text-is('Run')")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        wanted = len(chapter_symbols(os.path.join(LESSONS, LESSON)))
        deadline = time.monotonic() + TIMEOUT_MS / 1000
        while page.locator(".webflow-source-link a").count() < wanted and time.monotonic() < deadline:
            page.wait_for_timeout(500)
        links = page.eval_on_selector_all(".webflow-source-link a", LINKS)
        assert len(links) == wanted, links
        for link in links:
            assert link["href"].startswith(f"{origin}/source/webflow/") and link["target"] == "_blank", link
            url, _, anchor = link["href"].partition("#")
            with urllib.request.urlopen(url) as response:
                html = response.read().decode()
            line = re.search(rf'<span class="line" id="{anchor}"><a href="#{anchor}">\d+</a>(.*?)</span>', html)
            assert line and link["code"] in unescape(line.group(1)), (link, line and line.group(1))
        page.goto(links[0]["href"])
        target = page.eval_on_selector(":target", "e => [e.id, getComputedStyle(e).backgroundColor, e.textContent]")
    print(f"\n{len(links)} links in {LESSON}; {links[0]['href']} -> {target}")
    assert target[0] == links[0]["href"].rpartition("#")[2] and target[1] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert links[0]["code"] in target[2]
    assert not log.foreign and not log.errors, (log.foreign, log.errors)
