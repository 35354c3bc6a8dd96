"""The README's first command, `python -m webflow.demo`: a short run on the shipped sample learns (the loss
falls), prints its progress, and saves weights atomically in a file NumPy loads without pickle; the
saved weights, run through a NumPy forward pass, give the test accuracy the demo printed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow import demo
from webflow.datasets import mnist

ROOT = Path(__file__).resolve().parent.parent
PROGRESS = re.compile(r"^step +(\d+)/(\d+) \[([#.]{20})\] +(\d+)%  loss ([\d.]+)  train acc +([\d.]+)%  "
                      r"([\d,]+) examples/s$")


@pytest.fixture
def sample_only(monkeypatch):
    monkeypatch.delenv("WEBFLOW_DATA", raising=False)


def numpy_conv_same(images: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """SAME, stride-1 convolution written independently of webflow: windows of the zero-padded input · kernel."""
    kh, kw = kernel.shape[:2]
    padded = np.pad(images, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(1, 2))   # n, h, w, c, kh, kw
    return np.tensordot(windows, kernel, axes=([4, 5, 3], [0, 1, 2]))


def numpy_cnn_logits(weights: dict, images: np.ndarray) -> np.ndarray:
    """The demo's network, forward, in plain NumPy (2x2 max pooling by reshaping)."""
    def pool(x):
        n, h, w, c = x.shape
        return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))

    x = images.reshape(-1, 28, 28, 1)
    x = pool(np.maximum(numpy_conv_same(x, weights["conv2d/kernel"]) + weights["conv2d/bias"], 0))
    x = pool(np.maximum(numpy_conv_same(x, weights["conv2d_1/kernel"]) + weights["conv2d_1/bias"], 0))
    x = np.maximum(x.reshape(len(x), -1) @ weights["dense/kernel"] + weights["dense/bias"], 0)
    return x @ weights["dense_1/kernel"] + weights["dense_1/bias"]


def test_short_run_learns_and_saves_weights_that_reproduce_its_accuracy(sample_only, tmp_path, capsys):
    checkpoints = tmp_path / "checkpoints"
    assert demo.main(["--steps", "80", "--log-every", "20", "--checkpoint-dir", str(checkpoints)]) == 0
    out = capsys.readouterr().out
    lines = [PROGRESS.match(line) for line in out.splitlines() if line.startswith("step")]
    assert len(lines) == 4 and all(lines), out
    assert [int(m.group(1)) for m in lines] == [20, 40, 60, 80]
    assert lines[-1].group(3) == "#" * 20 and lines[-1].group(4) == "100"
    losses = [float(m.group(5)) for m in lines]
    assert losses[-1] < losses[0] * 0.6, f"loss did not fall: {losses}"
    assert float(lines[-1].group(6)) > 70.0
    assert "6,000 training / 1,000 test images" in out

    path = checkpoints / "mnist_cnn.npz"
    names = sorted(p.name for p in checkpoints.iterdir())
    assert len(names) == 6, f"no temp file left behind: {names}"
    assert names[0] == "checkpoint" and names[1].startswith("events.out.tfevents."), names
    assert names[2:] == ["mnist_cnn-80.data-00000-of-00001", "mnist_cnn-80.index", "mnist_cnn-80.meta",
                         "mnist_cnn.npz"], names
    # The event file holds the curves the progress lines printed (TensorBoard reads it: tests/summary/).
    events = list(tf.train.summary_iterator(str(checkpoints / names[1])))
    assert events[0].file_version == "brain.Event:2"
    curves: dict = {}
    for event in events[1:]:
        for value in event.summary.value:
            curves.setdefault(value.tag, []).append((event.step, value.simple_value))
    assert [step for step, _ in curves["loss"]] == [20, 40, 60, 80]
    # (the file holds float32 values; the lines print 4 and 1 decimals)
    assert all(abs(v - printed) < 5.1e-5 for (_, v), printed in zip(curves["loss"], losses, strict=True))
    printed_accuracies = [float(m.group(6)) for m in lines]
    assert all(abs(100 * v - printed) < 0.051
               for (_, v), printed in zip(curves["train_accuracy"], printed_accuracies, strict=True))
    with np.load(path, allow_pickle=False) as saved:
        weights = {name: saved[name] for name in saved.files}
    assert {k: v.shape for k, v in weights.items()} == {
        "conv2d/kernel": (5, 5, 1, 32), "conv2d/bias": (32,), "conv2d_1/kernel": (5, 5, 32, 64),
        "conv2d_1/bias": (64,), "dense/kernel": (3136, 512), "dense/bias": (512,), "dense_1/kernel": (512, 10),
        "dense_1/bias": (10,)}
    # The TensorFlow checkpoint holds the same weights (and Adam's slots), found through the `checkpoint` file.
    prefix = tf.train.latest_checkpoint(str(checkpoints))
    assert prefix == str(checkpoints / "mnist_cnn-80")
    reader = tf.train.load_checkpoint(prefix)
    for name, value in weights.items():
        np.testing.assert_array_equal(reader.get_tensor(name), value)
    assert reader.has_tensor("dense/kernel/Adam") and reader.has_tensor("beta1_power")
    # An independent NumPy forward pass with the saved weights gives the accuracy the demo printed.
    _, (x_test, y_test) = mnist.load_sample()
    logits = numpy_cnn_logits(weights, x_test.astype(np.float32) / 255.0)
    accuracy = 100 * np.mean(logits.argmax(1) == y_test)
    printed = float(re.search(r"test accuracy: ([\d.]+)% on 1,000 images", out).group(1))
    assert abs(accuracy - printed) < 0.051
    assert curves["test_accuracy"][0][0] == 80 and abs(100 * curves["test_accuracy"][0][1] - printed) < 0.051
    assert accuracy > 80.0


def test_default_length_is_eight_epochs_on_the_sample_and_three_on_full_data(sample_only):
    assert demo.training_steps(demo.parse_args([]), 6000) == 960
    assert demo.training_steps(demo.parse_args(["--data", "somewhere"]), 55000) == 3300
    assert demo.training_steps(demo.parse_args(["--epochs", "0.5", "--batch-size", "100"]), 6000) == 30
    assert demo.training_steps(demo.parse_args(["--steps", "7", "--epochs", "2"]), 6000) == 7


def test_saving_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "weights.npz"
    demo.save_weights(path, {"w": np.ones(3)})

    def failing_savez(stream, **arrays):
        stream.write(b"PK\x03\x04 half a zip file")
        raise OSError("disk full")

    monkeypatch.setattr(demo.np, "savez", failing_savez)
    with pytest.raises(OSError, match="disk full"):
        demo.save_weights(path, {"w": np.zeros(3)})
    monkeypatch.undo()
    with np.load(path, allow_pickle=False) as saved:
        np.testing.assert_array_equal(saved["w"], np.ones(3))          # the old file is untouched
    assert [p.name for p in tmp_path.iterdir()] == ["weights.npz"]    # and the temp file is gone


def test_command_line_runs_as_a_module(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "WEBFLOW_DATA"}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    result = subprocess.run([sys.executable, "-m", "webflow.demo", "--steps", "5", "--log-every", "5",
                             "--checkpoint-dir", str(tmp_path)], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    assert PROGRESS.match(result.stdout.splitlines()[2]), result.stdout
    assert (tmp_path / "mnist_cnn.npz").is_file()
    bad = subprocess.run([sys.executable, "-m", "webflow.demo", "--steps", "0"], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=300)
    assert bad.returncode == 2 and "must be positive" in bad.stderr
