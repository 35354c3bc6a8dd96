"""A Keras MNIST CNN `fit` on the full data reaches >= 99.0% test accuracy (issue 27).

Runs benchmarks/keras_mnist_cnn.py as it is (Conv2D 32 -> MaxPool -> Conv2D 64 -> MaxPool -> Dense 128 ->
Dropout 0.5 -> Dense 10, Adam 1e-3 then 1e-4 for the last third, batch 128, 8 epochs over the 60,000 training
images; the 10,000 test images only at the end): 99.14-99.20%, tf_keras 99.21%. The test took 71 s at load
average 3 on 2 cores, so it runs in the normal suite (290 s at load 9: benchmarks/FIGURES.md, "Keras MNIST CNN").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "benchmarks", "keras_mnist_cnn.py")


def test_full_mnist_cnn_reaches_99_percent() -> None:
    if not os.environ.get("WEBFLOW_DATA"):
        pytest.skip("WEBFLOW_DATA is not set: no MNIST")
    process = subprocess.run([sys.executable, SCRIPT, "--verbose", "0"], capture_output=True, text=True, timeout=900,
                             env={**os.environ, "PYTHONPATH": REPO})
    assert process.returncode == 0, process.stderr[-3000:]
    result = json.loads(process.stdout.strip().splitlines()[-1])
    assert result["train_examples"] == 60000 and result["test_examples"] == 10000
    assert result["test_accuracy"] >= 0.990, result
