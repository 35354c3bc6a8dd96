"""Issue 31 on a lesson run in the JupyterLite site: lessons 01, 02 and 06 of this checkout, run with Run All Cells
in the Pyodide kernel, log no console error and fetch nothing that answers 404 (the source links of the graph view
and of the error panel fetch only what the site ships), and show what the lessons teach with: the graph view
(lessons 01, 02, 06), the error panel (01, 06) and the live `watch` of lesson 02's training loop, compact (a profile
of at most ten rows, the timeline folded) and with real times (total > 0 in the Pyodide worker).

The built site (site/_build/lite, `make site`) is served with this checkout's lessons, wheel and built extension laid
over it by URL mounts (as test_tensorboard_panel_in_jupyterlite.py lays them), so the build is not modified.
"""

from __future__ import annotations

import os
import re
import time

import pytest
from launch import REPO, lite_overlay, lite_page, require_lite_site

BOOT_TIMEOUT_MS = 240_000
RUN_TIMEOUT_MS = 300_000
GRAPH = ".jp-OutputArea-output .wf-graph-svg"
ERROR_PANEL = ".jp-OutputArea-output .wf-error-panel"
PROFILE_ROWS = ".jp-OutputArea-output .wf-profile-table tbody tr"
PROFILE_TOTAL = ".jp-OutputArea-output .wf-profile-total"
STDERR = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# what each lesson must show: at least this many graph views, exactly this many error panels
SHOWN = {"01_session_run.ipynb": (2, 1), "02_variables_and_gradients.ipynb": (2, 0),
         "06_broadcasting_and_shape_errors.ipynb": (2, 1)}
LESSON_DONE = """(errorSelector) => {
    const notebook = document.querySelector('.jp-Notebook');
    if (notebook.querySelector(errorSelector) !== null) return true;
    const prompts = [...notebook.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
    return prompts.length > 0 && prompts.every(prompt => /\\[\\d+\\]/.test(prompt.innerText));
}"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> str:
    return require_lite_site(tmp_path_factory.mktemp("wheel"))


def _mounts(work: str, wheel: str, lesson: str) -> dict:
    """The built site with this checkout's wheel, extension and lesson over it (the site's own file listing and
    the lessons' helper files stay those of the build)."""
    mounts = lite_overlay(work, [], wheel)
    del mounts["/files/"], mounts["/api/contents/"]
    mounts[f"/files/{lesson}/"] = os.path.join(REPO, "lessons", lesson)
    return mounts


@pytest.mark.parametrize("lesson", sorted(SHOWN))
def test_a_lesson_run_logs_no_error_and_no_404(lesson: str, wheel: str, tmp_path) -> None:
    started = time.perf_counter()
    failed: list[str] = []  # responses with an error status, from the page and its workers

    def on_response(response) -> None:
        if response.status >= 400:
            failed.append(f"{response.status} {response.url}")

    with lite_page(_mounts(str(tmp_path), wheel, lesson)) as (origin, page, log):
        page.context.on("response", on_response)
        try:
            page.goto(f"{origin}/lab/index.html?path={lesson}", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=BOOT_TIMEOUT_MS)
            page.click(".jp-Notebook .jp-CodeCell .cm-content")
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            page.wait_for_function(LESSON_DONE, arg=STDERR, timeout=RUN_TIMEOUT_MS)
            page.wait_for_timeout(1500)  # late requests (source links, lazily loaded chunks) still count
            raised = [element.inner_text() for element in page.query_selector_all(STDERR)]
            graphs = len(page.query_selector_all(GRAPH))
            panels = len(page.query_selector_all(ERROR_PANEL))
            profile_rows = len(page.query_selector_all(PROFILE_ROWS))
            open_timelines = len(page.query_selector_all(".jp-OutputArea-output details.wf-timeline-box[open]"))
            totals = [element.inner_text() for element in page.query_selector_all(PROFILE_TOTAL)]
        except Exception:
            print("\n".join(log.console[-60:]))
            raise
    print(f"\n{lesson}: {graphs} graph views, {panels} error panels, {profile_rows} profile rows {totals}; "
          f"{len(log.urls)} requests; {time.perf_counter() - started:.1f} s")
    assert not raised, f"a lesson cell raised in the browser: {raised}"
    assert not log.foreign, f"requests left {origin}: {log.foreign[:5]}"
    assert not failed, f"responses with an error status: {failed[:10]}"
    assert not [line for line in log.console if "404" in line], [line for line in log.console if "404" in line]
    assert not log.errors, f"console errors: {log.errors[:10]}"
    least_graphs, error_panels = SHOWN[lesson]
    assert graphs >= least_graphs and panels == error_panels, (graphs, panels)
    if lesson.startswith("02_"):  # the watched loop: a compact profile (top ten), real times, a folded timeline
        assert 0 < profile_rows <= 10, profile_rows
        assert totals and all(float(re.search(r"total ([\d.]+)", total).group(1)) > 0 for total in totals), totals
    assert open_timelines == 0
