"""The MNIST page in its tf.data mode (demo/mnist.html?input=tfdata) in headless Chromium: training through tf.data.

The page's worker writes the 6,000 sample images as tf.train.Example records into a TFRecord file in Pyodide's
in-memory file system and trains through TFRecordDataset -> map(parse_single_example) -> cache -> shuffle -> batch,
with no feed_dict (site/demo/mnist_tfdata.py). The test reads what the page shows: <body data-input="tf.data">, the
"Training batches: tf.data ..." line with the record count and size (6,000 records of 842 bytes: an 826-byte
Example, by the protobuf wire format, + 16 bytes of TFRecord framing), and the chunks' losses falling.
It trains all 480 steps (8 shuffled passes) to >= 90 % test accuracy; the drawing pad is test_mnist_demo.py's subject.
Needs `make site` (or at least its wheel and pages) first.
"""

from __future__ import annotations

import os
import sys
import time

from test_mnist_demo import BUILD, READY_TIMEOUT_MS, _check_build

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import served_page  # noqa: E402


def test_mnist_page_trains_through_tf_data() -> None:
    _check_build()
    with served_page(BUILD) as (origin, page, log):
        started = time.perf_counter()
        page.goto(origin + "/demo/mnist.html?input=tfdata")
        page.wait_for_function("document.body.dataset.state === 'ready' || /Error/.test(status.textContent)",
                               timeout=READY_TIMEOUT_MS)
        ready_seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        assert page.locator("body").get_attribute("data-input") == "tf.data"
        shown = page.locator("#input-pipeline").text_content()
        assert "tf.data (TFRecordDataset → parse_single_example → cache → shuffle → batch)" in shown, shown
        assert "6,000 tf.train.Example records, 5.1 MB in memory" in shown, shown
        info = page.evaluate("window.mnistDemo.ready.info")
        assert info["input_pipeline"] == "tf.data" and info["records_bytes"] == 6000 * 842
        assert info["steps"] == 480

        page.click("#train")
        started = time.perf_counter()
        page.wait_for_function("document.body.dataset.state === 'trained' || /Error/.test(status.textContent)",
                               timeout=120_000)
        train_seconds = time.perf_counter() - started
        history = page.evaluate("window.mnistDemo.history")
        status = page.locator("#status").text_content()
        accuracy = page.evaluate("window.mnistDemo.trained && window.mnistDemo.trained.accuracy")
    assert "Error" not in status, status
    assert [chunk["step"] for chunk in history] == list(range(20, 481, 20))
    losses = [chunk["loss"] for chunk in history]
    assert losses[2] < 0.7 * losses[0], losses     # training is happening (chunk means of Adam steps)
    assert accuracy >= 0.90, accuracy                # the sample's 1,000 test images, fed to the placeholders
    assert not log.foreign, f"requests left the origin: {log.foreign}"
    assert not log.errors, log.errors
    assert any(url.endswith("mnist_tfdata.py") for url in log.urls)
    print(f"\nMNIST page, tf.data mode: load + 6,000 Example records written -> ready {ready_seconds:.1f} s "
          f"(records {info['write_ms'] / 1e3:.1f} s); 480 steps {train_seconds:.1f} s; chunk losses "
          f"{[round(v, 3) for v in losses[:3]]} ... {losses[-1]:.3f}; test accuracy {accuracy:.3f}")
