"""The MNIST page's conv net in headless Chromium: chosen on the page, trained in the worker, >= 98 % on test images.

The visitor's path, on the site `make site` built: the page boots with the MLP (data-model="mlp"), the
"Model" chooser switches to the conv net of TensorFlow.js's MNIST example (the page reloads as
mnist.html?model=cnn, its worker fetches the 20,000 training images of demo/mnist_cnn/ and builds
mnist_model.py's cnn_logits), Train runs its 3,125 Adam steps (cosine-decayed learning rate) on webflow's wasm
kernels, and the test accuracy appears. The oracle is the wheel sample's own 1,000 test labels; the bar is the
issue's 98 %. The seed is fixed (mnist_model.SEED), so the bar is met by a recipe, not picked for one run:
TensorFlow 2.21 trains the same graph with the same recipe to 98.5-99.1 % over seeds 1-5 (benchmarks/FIGURES.md),
webflow to 98.3-98.6 % over seeds 1-5 in CPython (this seed: 98.4 %, in Chromium too).
Every request is recorded: any that leaves the origin fails the test, as does any console or page error.
"""

from __future__ import annotations

import re
import time

from launch import served_page
from test_mnist_demo import BUILD, READY_TIMEOUT_MS, STROKES, TRAIN_TIMEOUT_MS, _check_build, _draw

MIN_ACCURACY = 98.0
WAIT_READY = "document.body.dataset.state === 'ready' || /Error/.test(status.textContent)"


def test_conv_net_is_chosen_on_the_page_and_trains() -> None:
    _check_build()
    with served_page(BUILD) as (origin, page, log):
        page.goto(origin + "/demo/mnist.html")
        page.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS)
        assert page.locator("body").get_attribute("data-model") == "mlp"

        page.select_option("#model", "cnn")      # the page reloads as ?model=cnn with a fresh worker
        page.wait_for_url(re.compile(r".*mnist\.html\?model=cnn$"))
        page.wait_for_function(WAIT_READY, timeout=READY_TIMEOUT_MS)
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        assert page.locator("body").get_attribute("data-model") == "cnn"
        assert page.locator("#model").input_value() == "cnn"
        info = page.evaluate("window.mnistDemo.ready.info")
        assert (info["filters"], info["kernel"], info["batch"], info["optimizer"]) == ([8, 16], 5, 64, "Adam")
        assert (info["train_examples"], info["steps"], info["schedule"]) == (20_000, 3_125, "cosine decay")
        assert "conv" in page.locator("#status").text_content()

        page.click("#train")
        started = time.perf_counter()
        page.wait_for_function("document.body.dataset.state === 'trained' || /Error/.test(status.textContent)",
                               timeout=TRAIN_TIMEOUT_MS)
        seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "trained", page.locator("#status").text_content()
        accuracy_text = page.locator("#accuracy").text_content().strip()
        trained = page.evaluate("window.mnistDemo.trained")
        history = page.evaluate("window.mnistDemo.history")

        page.click("#clear")        # also scrolls the pad into view, where the mouse can reach it
        _draw(page, STROKES["1"])   # the trained conv net answers a drawing too
        page.wait_for_function("document.querySelector('#prediction').textContent !== '–'", timeout=60_000)
        bars = page.locator("#bars li").count()

    steps = info["steps"]
    print(f"\nMNIST conv net in Chromium: {steps} Adam steps (batch 64) in {seconds:.1f} s "
          f"({steps / (trained['train_ms'] / 1e3):.0f} steps/s in the worker); test accuracy {accuracy_text}")
    assert re.fullmatch(r"\d+(\.\d)?%", accuracy_text), accuracy_text
    assert abs(trained["accuracy"] * 100 - float(accuracy_text[:-1])) < 0.051
    assert trained["accuracy"] * 100 >= MIN_ACCURACY, accuracy_text
    assert history[-1]["step"] == steps and history[-1]["loss"] < history[0]["loss"] / 3, history
    assert bars == 10
    assert not log.foreign, f"requests left the origin: {log.foreign}"
    assert not log.errors, log.errors
