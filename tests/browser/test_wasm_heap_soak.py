"""The browser's WebAssembly heap stays flat while the MNIST demo trains (issue 29's browser soak).

The demo page (site/_build/demo/mnist.html, its worker running webflow in Pyodide) trains for
`WEBFLOW_SOAK_EPOCHS` epochs (default 20; `?epochs=N`, the worker's test hook) in each of the modes named by
`WEBFLOW_SOAK_MODES` (default `mlp`: the page's MLP on its 6,000-image sample, 60 steps of batch 100 an epoch;
`tfdata`: the same model fed by the tf.data pipeline; `cnn`: TensorFlow.js's conv net on 20,000 images, 312
steps of batch 64 an epoch). Every progress message (one per 20 steps) carries the size of Pyodide's
WebAssembly memory (`HEAPU8.buffer.byteLength`: wasm memory only grows, so a leak in the engine, the kernels or
Python's allocator shows as growth) and the number of objects Python's garbage collector tracks
(`len(gc.get_objects())` after `gc.collect()`: a leak of Python objects). After the first epoch (warm-up: plans,
caches, the optimizer's slots, the allocator's pools) both must grow by less than 5 % to the end of training, and
the loss must have fallen. `make test` runs the MLP for 20 epochs (~15 s with Pyodide's start); `make soak-browser` runs
all three modes (tools/soak.py's browser counterpart). Needs `make site` first (the test does not build).
"""

from __future__ import annotations

import os
import sys
import time

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import fail_if_stale, require_chromium, served_page  # noqa: E402

SITE = os.path.join(HERE, "..", "..", "site")
BUILD = os.path.join(SITE, "_build")
EPOCHS = int(os.environ.get("WEBFLOW_SOAK_EPOCHS", "20"))
MODES = {"mlp": "", "tfdata": "&input=tfdata", "cnn": "&model=cnn"}
SOAK_MODES = os.environ.get("WEBFLOW_SOAK_MODES", "mlp").replace(",", " ").split()
GROWTH_LIMIT = 0.05
READY_TIMEOUT_MS = 240_000


def _check_build() -> None:
    require_chromium()
    built = os.path.join(BUILD, "demo", "mnist_worker.js")
    if not os.path.exists(built):
        require_or_skip(f"the site is not built: run `make site` (no {built})")
    fail_if_stale(built, os.path.join(SITE, "demo", "mnist_worker.js"), "site/demo/mnist_worker.js")


def _growth(before: float, after: float) -> float:
    return (after - before) / before


def _train(mode: str) -> tuple:
    """(steps per epoch, [[step, loss, heap bytes, Python objects] per progress message], training seconds)."""
    with served_page(BUILD) as (origin, page, log):
        page.goto(f"{origin}/demo/mnist.html?epochs={EPOCHS}{MODES[mode]}")
        page.wait_for_function("document.body.dataset.state === 'ready' || /Error/.test(status.textContent)",
                               timeout=READY_TIMEOUT_MS)
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        info = page.evaluate("window.mnistDemo.ready.info")
        per_epoch = info["train_examples"] / info["batch"]
        assert info["steps"] == round(EPOCHS * per_epoch)
        started = time.perf_counter()
        page.click("#train")
        page.wait_for_function("document.body.dataset.state === 'trained' || /Error/.test(status.textContent)",
                               timeout=READY_TIMEOUT_MS + EPOCHS * 60_000)
        seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "trained", page.locator("#status").text_content()
        history = page.evaluate("window.mnistDemo.history.map(h => [h.step, h.loss, h.wasm_heap_bytes, "
                                "h.python_objects])")
    assert not log.foreign, log.foreign
    assert not log.errors, log.errors
    assert history[-1][0] == info["steps"] and all(row[2] and row[3] for row in history), history[:3]
    return per_epoch, history, seconds


@pytest.mark.parametrize("mode", SOAK_MODES)
def test_wasm_heap_is_flat_over_the_demo_training(mode):
    _check_build()
    assert EPOCHS >= 2, "one epoch of warm-up, then at least one measured"
    per_epoch, history, seconds = _train(mode)
    warm = next(row for row in history if row[0] >= per_epoch)
    first, last = history[0], history[-1]
    heap_growth, objects_growth = _growth(warm[2], last[2]), _growth(warm[3], last[3])
    print(f"\nwasm heap soak, {mode}, {EPOCHS} epochs ({last[0]} steps, {seconds:.1f} s): heap "
          f"{first[2] / 2**20:.1f} MiB at step {first[0]}, {warm[2] / 2**20:.1f} MiB after warm-up "
          f"(step {warm[0]}), {last[2] / 2**20:.1f} MiB at the end ({100 * heap_growth:+.2f} %); Python objects "
          f"{warm[3]} -> {last[3]} ({100 * objects_growth:+.2f} %); loss {first[1]:.3f} -> {last[1]:.3f}")
    assert heap_growth < GROWTH_LIMIT, (warm, last)
    assert objects_growth < GROWTH_LIMIT, (warm, last)
    assert min(row[1] for row in history[-3:]) < first[1]  # it really trained
