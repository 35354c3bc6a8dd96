"""The "Train a char-RNN in your browser" page in headless Chromium: it loads, the loss falls, samples come out.

On the site `make site` built (site/_build, served from 127.0.0.1): the page boots Pyodide and webflow in its
worker (data-state loading -> ready), a click on Train trains site/demo/char_rnn_model.py's character LSTM on
the Shakespeare excerpt shipped with the page (-> training -> trained), in a short run set by the query
(?steps=60&chunk=5&sample_every=30). Oracles: the untrained model's loss is ln(vocabulary) (a uniform guess,
derived by hand from the excerpt's distinct characters, read here from the built file); after training the
loss must be clearly below it; samples come every SAMPLE_EVERY steps during training; a sample asked for with
**Sample** has the requested length and only the excerpt's characters. Every request is recorded: any that
leaves the origin fails the test, as does any console or page error. Needs `make site` first (the test does not build).
"""

from __future__ import annotations

import math
import os
import sys
import time

from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import RECORD_STATES, fail_if_stale, require_chromium, served_page  # noqa: E402

SITE = os.path.join(HERE, "..", "..", "site")
BUILD = os.path.join(SITE, "_build")
OWN_FILES = ("char_rnn.html", "char_rnn.js", "char_rnn.css", "char_rnn_worker.js", "char_rnn_model.py")
READY_TIMEOUT_MS = 240_000     # Pyodide boot + wheel install + graph, on a loaded 2-core machine
TRAIN_TIMEOUT_MS = 300_000
STEPS, CHUNK, SAMPLE_EVERY = 60, 5, 30


def _check_build() -> str:
    """The built excerpt's text; skips (fails under WEBFLOW_REQUIRE_BROWSER) without Chromium or the build."""
    require_chromium()
    text_path = os.path.join(BUILD, "demo", "char_rnn_text.txt")
    if not os.path.exists(os.path.join(BUILD, "demo", "char_rnn.html")) or not os.path.exists(text_path):
        require_or_skip(f"the site is not built: run `make site` (no {BUILD}/demo/char_rnn.html)")
    for name in OWN_FILES:
        fail_if_stale(os.path.join(BUILD, "demo", name), os.path.join(SITE, "demo", name), f"site/demo/{name}")
    with open(text_path, encoding="utf-8") as file:
        return file.read()


def test_char_rnn_page_trains_and_samples() -> None:
    text = _check_build()
    vocabulary = set(text)
    uniform_loss = math.log(len(vocabulary))
    query = f"?steps={STEPS}&chunk={CHUNK}&sample_every={SAMPLE_EVERY}"
    with served_page(BUILD) as (origin, page, log):
        page.add_init_script(RECORD_STATES)
        started = time.perf_counter()
        page.goto(origin + "/demo/char_rnn.html" + query)
        page.wait_for_function("document.body.dataset.state === 'ready' || /Error/.test(status.textContent)",
                               timeout=READY_TIMEOUT_MS)
        ready_seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        ready = page.evaluate("window.charRnnDemo.ready")
        assert ready["info"]["vocab_size"] == len(vocabulary)
        assert abs(ready["info"]["initial_loss"] - uniform_loss) < 1e-9
        assert abs(ready["info"]["initial_measured"] - uniform_loss) < 0.05   # small initial weights: near uniform

        page.click("#train")
        page.wait_for_function("document.body.dataset.state === 'trained' || /Error/.test(status.textContent)",
                               timeout=TRAIN_TIMEOUT_MS)
        assert page.locator("body").get_attribute("data-state") == "trained", page.locator("#status").text_content()
        progress = page.evaluate("window.charRnnDemo.progress")
        trained = page.evaluate("window.charRnnDemo.trained")

        page.fill("#temperature", "0.5")
        page.dispatch_event("#temperature", "input")
        training_samples = page.evaluate("window.charRnnDemo.samples.slice()")
        page.evaluate("window.charRnnDemo.samples.length = 0; document.querySelector('#sample').click()")
        page.wait_for_function("window.charRnnDemo.samples.length > 0", timeout=60_000)
        asked = page.evaluate("window.charRnnDemo.samples[0]")
        shown = page.locator("#sample-text").text_content()
        chart_points = page.locator("#loss-line").get_attribute("points").split()
        states = page.evaluate("window.__states")

    losses = [loss for chunk in progress for loss in chunk["losses"]]
    first, last = sum(losses[:CHUNK]) / CHUNK, sum(losses[-CHUNK:]) / CHUNK
    seconds = trained["train_ms"] / 1e3
    chars = STEPS * ready["info"]["batch_size"] * ready["info"]["num_steps"]
    print(f"\nchar-RNN page in Chromium: load -> ready {ready_seconds:.1f} s; {STEPS} steps in {seconds:.1f} s "
          f"({STEPS / seconds:.1f} steps/s, {chars / seconds:.0f} chars/s in the worker); loss {first:.3f} -> "
          f"{last:.3f} (ln V = {uniform_loss:.3f}); sample at T=0.5: {asked['text'][:60]!r}")
    assert len(losses) == STEPS and trained["steps"] == STEPS
    assert last < uniform_loss - 0.8, (first, last, uniform_loss)   # clearly below a uniform guess
    assert last < first - 0.5, (first, last)
    assert len(chart_points) == STEPS // CHUNK + 1   # the untrained loss, then one point per chunk
    assert states == ["loading", "ready", "training", "trained"], states
    assert [sample["step"] for sample in training_samples] == list(range(SAMPLE_EVERY, STEPS + 1, SAMPLE_EVERY))
    assert all(set(sample["text"]) <= vocabulary and len(sample["text"]) == sample["length"]
               for sample in training_samples)
    assert asked["temperature"] == 0.5 and asked["length"] == 200
    assert len(asked["text"]) == 200 and set(asked["text"]) <= vocabulary
    assert shown == asked["text"]
    assert not log.foreign, f"requests left the origin: {log.foreign}"
    assert not log.errors, log.errors
    assert any(url.endswith("char_rnn_text.txt") for url in log.urls)
