"""A classroom set as a student meets it (lessons/classroom/HOSTING.md): the built site served by plain
`python -m http.server`, the set opened in JupyterLite, every cell run, the notebook downloaded (File →
Download) and that download graded by lessons/grade.py.

Handed in untouched, the set runs without an error (each check prints "not started") and grades "blank" three
times. Skips (fails under WEBFLOW_REQUIRE_BROWSER=1) without Chromium, Playwright or the built site
(WEBFLOW_LITE_SITE, default site/_build/lite; the server serves its parent folder, as the guide says).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator

from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "lessons")]
import grade  # noqa: E402
from chromium import chromium_page  # noqa: E402
from launch import require_chromium  # noqa: E402
from test_jupyterlite import BOOT_TIMEOUT_MS, ERROR_OUTPUT, LESSON_DONE, RUN_TIMEOUT_MS  # noqa: E402

SITE = os.environ.get("WEBFLOW_LITE_SITE", os.path.join(ROOT, "site", "_build", "lite"))
SET = "mnist_1_metrics.ipynb"


@contextlib.contextmanager
def http_server(folder: str) -> Iterator[str]:
    """`python -m http.server` on a free port of 127.0.0.1, serving `folder`; yields its origin."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    origin = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(origin + "/", timeout=1).close()
                break
            time.sleep(0.1)
        yield origin
    finally:
        server.kill()
        server.wait()


def test_a_student_runs_downloads_and_hands_in_a_set(tmp_path) -> None:
    if not os.path.exists(os.path.join(SITE, "files", "classroom", SET)):
        require_or_skip(f"no classroom set in the JupyterLite site at {SITE}: run `make site`")
    require_chromium()
    with http_server(os.path.dirname(os.path.abspath(SITE))) as origin, chromium_page(origin) as (page, log):
        try:
            page.goto(f"{origin}/lite/lab/index.html?path=classroom/{SET}", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=BOOT_TIMEOUT_MS)
            page.click(".jp-Notebook .jp-CodeCell .cm-content")  # focus the notebook
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            page.wait_for_function(LESSON_DONE, arg=ERROR_OUTPUT, timeout=RUN_TIMEOUT_MS)
            text = page.inner_text(".jp-Notebook")
            errors = [element.inner_text() for element in page.query_selector_all(ERROR_OUTPUT)]
            page.click(".lm-MenuBar-itemLabel:text-is('File')")
            with page.expect_download() as download:
                page.click(".lm-Menu-itemLabel:text-is('Download')")
            handed_in = tmp_path / "submissions" / "student" / SET
            handed_in.parent.mkdir(parents=True)
            shutil.copyfile(download.value.path(), handed_in)
        except Exception:
            print("\n".join(log.console[-60:]))
            raise
    assert not log.foreign, f"requests left {origin}: {log.foreign}"
    assert not errors, f"a cell raised in the browser: {errors}"
    assert text.count("not started") == 3, text[-3000:]
    [row] = grade.grade_folder(str(tmp_path / "submissions"), time_limit=120)
    assert (row.student, row.chapter) == (f"student/{SET[:-6]}", "04")
    assert {n: r.status for n, r in row.results.items()} == {"4.1": "blank", "4.2": "blank", "4.3": "blank"}
