"""site/demo/mnist_model.py's conv net (model="cnn") in CPython: TensorFlow.js's MNIST example model, trained.

Oracles: the forward pass recomputed in NumPy from the trained variables (valid 5x5 convolutions, ReLU, 2x2 max
pools, dense softmax: the example's layers), and the sample's test labels. The conv net trains on MNIST's first
20,000 training images, read here from $WEBFLOW_DATA/mnist (the site ships the same images in demo/mnist_cnn/);
skipped without WEBFLOW_DATA. The browser side is tests/browser/test_mnist_demo_cnn.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "site", "demo")

PROGRAM = r"""
import json, sys
sys.path.insert(0, DEMO)
import webflow.compat.v1 as tf
from mnist_model import MnistDemo, as_batch
demo = MnistDemo(model="cnn")
first = demo.train_chunk(20)
while demo.step < demo.steps:
    last = demo.train_chunk(200)
images, _ = as_batch(demo.test_images, demo.test_labels, list(range(8)))
probabilities = demo.session.run(demo.model["probabilities"], {demo.model["pixels"]: images})
variables = {v.op.name: demo.session.run(v).tolist() for v in tf.trainable_variables()}
ops = sorted(op.type for op in tf.get_default_graph().get_operations() if op.type in ("Conv2D", "MaxPool"))
print(json.dumps({"info": demo.info(), "labels": demo.train_labels[:10].tolist(),
                  "first": first["loss"], "last": last["loss"], "ops": ops,
                  "accuracy": demo.test_accuracy(), "images": images.tolist(),
                  "probabilities": probabilities.tolist(), "variables": variables}))
"""


def _numpy_forward(images: np.ndarray, variables: dict) -> np.ndarray:
    """The example's model in NumPy: (valid 5x5 conv + bias, ReLU, 2x2/2 max pool) twice, dense, softmax."""
    hidden = images.reshape(-1, 28, 28, 1).astype(np.float64) / 255.0
    for layer in range(2):
        kernel = np.array(variables[f"conv{layer}/kernel"])
        windows = sliding_window_view(hidden, (5, 5), axis=(1, 2))          # [n, oh, ow, c, 5, 5]
        hidden = np.einsum("nhwcij,ijco->nhwo", windows, kernel) + np.array(variables[f"conv{layer}/bias"])
        hidden = np.maximum(hidden, 0)
        n, h, w, c = hidden.shape
        hidden = hidden.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))
    logits = hidden.reshape(len(hidden), -1) @ np.array(variables["dense/kernel"]) + np.array(variables["dense/bias"])
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def test_conv_net_matches_numpy_and_learns_the_sample() -> None:
    """The whole training of the page (3,125 Adam steps, a separate process: the demo switches to TF1 mode)."""
    data = os.environ.get("WEBFLOW_DATA")
    if not data or not os.path.exists(os.path.join(data, "mnist", "train-images-idx3-ubyte.gz")):
        pytest.skip("WEBFLOW_DATA with MNIST's files is needed (the conv net trains on 20,000 of its images)")
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", f"DEMO = {DEMO!r}\n" + PROGRAM], env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    info, variables = result["info"], result["variables"]
    assert (info["model"], info["batch"], info["optimizer"], info["learning_rate"]) == ("cnn", 64, "Adam", 0.003)
    assert (info["train_examples"], info["test_examples"], info["schedule"]) == (20_000, 1_000, "cosine decay")
    assert info["steps"] == 10 * 20_000 // 64
    assert result["labels"] == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4], "MNIST's first training labels (its README)"
    assert result["ops"] == ["Conv2D", "Conv2D", "MaxPool", "MaxPool"]
    shapes = {name: np.array(value).shape for name, value in variables.items()}
    assert shapes == {"conv0/kernel": (5, 5, 1, 8), "conv0/bias": (8,), "conv1/kernel": (5, 5, 8, 16),
                      "conv1/bias": (16,), "dense/kernel": (256, 10), "dense/bias": (10,)}
    expected = _numpy_forward(np.array(result["images"]), variables)
    np.testing.assert_allclose(np.array(result["probabilities"]), expected, rtol=1e-4, atol=1e-5)
    assert result["last"] < result["first"] / 10, (result["first"], result["last"])
    # The seed is fixed; the bar holds for the recipe, not one lucky run: TensorFlow 2.21 trains the same graph
    # (same images, init, batch, Adam 0.003 cosine-decayed over 3,125 steps) to 98.5-99.1 % over seeds 1-5, and
    # webflow to 98.3-98.6 % over seeds 1-5 (this file's seed: 98.4 %). The tutorial's plain SGD 0.15 on the
    # wheel's 6,000 images stopped at 96.5-97.8 % in TensorFlow: the reason for the recipe.
    assert result["accuracy"] >= 0.98, result["accuracy"]
