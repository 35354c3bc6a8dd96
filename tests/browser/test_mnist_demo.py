"""The "Train MNIST in your browser" page in headless Chromium: it loads, trains to >= 90 %, reads drawings.

The story a visitor lives, on the site `make site` built (site/_build, served from 127.0.0.1): the page
boots Pyodide and webflow in its worker (data-state loading -> ready), a click on Train trains the TF1
model of site/demo/mnist_model.py on the wasm kernels (-> training -> trained, test accuracy in
#accuracy), then a "1" and a "7" drawn with the mouse on the pad are recognised (#prediction).
The oracle for accuracy is the sample's own test labels; for the drawings, what a person would read.
Every request is recorded: any that leaves the origin fails the test, as does any console or page error.
Needs `make site` first (the test does not build: it checks the build is not older than site/demo/).
"""

from __future__ import annotations

import os
import re
import sys
import time

from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import RECORD_STATES, fail_if_stale, require_chromium, served_page  # noqa: E402

SITE = os.path.join(HERE, "..", "..", "site")
BUILD = os.path.join(SITE, "_build")
READY_TIMEOUT_MS = 240_000     # Pyodide boot + wheel install + data, on a loaded 2-core machine
TRAIN_TIMEOUT_MS = 300_000

# Strokes on the 280x280 pad, in pad pixels, drawn as one mouse stroke each.
STROKES = {
    "1": [(140, 40), (138, 140), (136, 240)],
    "7": [(70, 50), (210, 50), (160, 140), (120, 240)],
}


def _check_build() -> None:
    require_chromium()
    if not os.path.exists(os.path.join(BUILD, "demo", "mnist.html")) or not os.path.exists(
            os.path.join(BUILD, "pyodide", "pyodide.mjs")):
        require_or_skip(f"the site is not built: run `make site` (no {BUILD}/demo/mnist.html or pyodide/)")
    for name in os.listdir(os.path.join(SITE, "demo")):
        fail_if_stale(os.path.join(BUILD, "demo", name), os.path.join(SITE, "demo", name), f"site/demo/{name}")


def _draw(page, points: list[tuple[int, int]]) -> None:
    box = page.locator("#pad").bounding_box()
    scale = box["width"] / 280
    at = [(box["x"] + x * scale, box["y"] + y * scale) for x, y in points]
    page.mouse.move(*at[0])
    page.mouse.down()
    for point in at[1:]:
        page.mouse.move(*point, steps=12)
    page.mouse.up()


def _check_mnist_framing(pixels: list[float], digit: str) -> None:
    """What digit.js sent is framed as MNIST's digits are: longer side 20 px, centre of mass at (14, 14)."""
    assert len(pixels) == 784 and min(pixels) >= 0.0 and max(pixels) <= 1.0
    inked = [(i % 28, i // 28) for i, v in enumerate(pixels) if v > 0]
    width = max(x for x, _ in inked) - min(x for x, _ in inked) + 1
    height = max(y for _, y in inked) - min(y for _, y in inked) + 1
    assert max(width, height) == 20, (digit, width, height)
    total = sum(pixels)
    centre_x = sum(v * (i % 28 + 0.5) for i, v in enumerate(pixels)) / total
    centre_y = sum(v * (i // 28 + 0.5) for i, v in enumerate(pixels)) / total
    assert abs(centre_x - 14) <= 0.5 and abs(centre_y - 14) <= 0.5, (digit, centre_x, centre_y)
    assert any(0 < v < 1 for v in pixels)   # anti-aliased edges, not a binary image


def test_mnist_page_trains_and_reads_drawn_digits() -> None:
    _check_build()
    with served_page(BUILD) as (origin, page, log):
        page.add_init_script(RECORD_STATES)
        started = time.perf_counter()
        page.goto(origin + "/demo/mnist.html")
        page.wait_for_function("document.body.dataset.state === 'ready' || /Error/.test(status.textContent)",
                               timeout=READY_TIMEOUT_MS)
        ready_seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        worker_timings = page.evaluate("window.mnistDemo.ready.timings")

        page.click("#train")
        started = time.perf_counter()
        page.wait_for_function("document.body.dataset.state === 'trained' || /Error/.test(status.textContent)",
                               timeout=TRAIN_TIMEOUT_MS)
        train_seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "trained", page.locator("#status").text_content()
        accuracy_text = page.locator("#accuracy").text_content()
        match = re.fullmatch(r"(\d+(?:\.\d)?)%", accuracy_text.strip())
        assert match, accuracy_text
        accuracy = float(match.group(1))
        trained = page.evaluate("window.mnistDemo.trained")
        steps = page.evaluate("window.mnistDemo.ready.info.steps")
        assert abs(trained["accuracy"] * 100 - accuracy) < 0.051   # the text shows the worker's number
        assert page.evaluate("document.querySelector('#progress').value") == 1
        chart_points = page.locator("#loss-line").get_attribute("points").split()
        assert len(chart_points) >= 10   # one point per chunk of steps

        predictions = {}
        for digit, points in STROKES.items():
            page.click("#clear")
            _draw(page, points)
            page.wait_for_function("document.querySelector('#prediction').textContent !== '–'", timeout=60_000)
            predictions[digit] = (page.locator("#prediction").text_content(),
                                  page.locator("#prediction").get_attribute("data-probability"))
            assert page.locator("#bars li").count() == 10
            _check_mnist_framing(page.evaluate("Array.from(window.mnistDemo.pixels())"), digit)
        states = page.evaluate("window.__states")

    print(f"\nMNIST demo in Chromium: load -> ready {ready_seconds:.1f} s (worker: Pyodide boot "
          f"{worker_timings['boot_ms'] / 1e3:.1f} s, wheel install {worker_timings['install_ms'] / 1e3:.1f} s, "
          f"data + graph {worker_timings['model_ms'] / 1e3:.1f} s); training {steps} steps {train_seconds:.1f} s "
          f"({steps / (trained['train_ms'] / 1e3):.0f} steps/s in the worker); test accuracy {accuracy_text}; "
          f"drawings {predictions}")
    assert states == ["loading", "ready", "training", "trained"], states
    assert accuracy >= 90.0, accuracy_text
    assert {digit: found for digit, (found, _) in predictions.items()} == {"1": "1", "7": "7"}, predictions
    assert not log.foreign, f"requests left the origin: {log.foreign}"
    assert not log.errors, log.errors
    assert any(url.endswith(".whl") for url in log.urls) and any("pyodide.asm.wasm" in url for url in log.urls)
