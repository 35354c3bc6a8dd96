"""The public TF2 example programs (tests/keras/public_examples/: TensorFlow-Examples' tensorflow_v2 notebooks and
the TensorFlow tutorials' quickstarts, custom layers and training loop from scratch, re-created as stand-alone
programs written against `import tensorflow as tf`) run unchanged under webflow and under real TensorFlow 2.21
(tf_keras), and print the same numbers and end with the same weights.

Each program runs twice through public_examples/launch.py: once under TensorFlow's interpreter, once under webflow
(an import hook makes `import tensorflow` give webflow; the program's text is the same file). Both start from
the same seeds (Python, NumPy, tf.random: so the same initial weights, dropout masks and tf.data shuffle order)
and read MNIST from $WEBFLOW_DATA. What the test changes in a program: only whole lines that set the number of
steps or the amount of data (REPLACEMENTS below), so that each runs in seconds.

Compared, line by line of what the program printed: the text must be identical once the numbers are taken out
(a progress bar's line is taken in its final state, and timings such as `1s 10ms/step` are dropped); the numbers
must agree within PRINTED_TOLERANCE. The trained weights (every global variable and Keras layer) must agree within
WEIGHT_TOLERANCE: float32 sums in another order, carried through tens of steps (Adam's sqrt(v) divides tiny
differences of tiny gradients); under 1% of a tensor's elements may drift further, up to ADAM_DRIFT_ATOL.

`fit` examples (FIT_EXAMPLES) match exactly only up to the first epoch line: webflow's `fit` shuffles arrays with
NumPy (tf_keras: tf.random.shuffle in a tf.data map) and its traced step draws other dropout masks, so the batches
and masks differ from there on (a `fit` without Dropout and with shuffle=False gives tf_keras's losses to 1e-6).
After that line the loss and accuracy lines are compared as statistics (FIT_TOLERANCE), the other lines by text.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "public_examples")
REPO = os.path.dirname(os.path.dirname(HERE))


def _steps(total: str, display: str, new_total: int, new_display: int) -> dict:
    return {f"training_steps = {total}": f"training_steps = {new_total}",
            f"display_step = {display}": f"display_step = {new_display}"}


_MNIST_LINE = "(x_train, y_train), (x_test, y_test) = mnist.load_data()"
REPLACEMENTS = {
    "linear_regression": _steps("1000", "50", 200, 20),
    "logistic_regression": _steps("1000", "50", 100, 10),
    "neural_network": _steps("2000", "100", 100, 10),
    "convolutional_network": _steps("200", "10", 16, 2),
    "convolutional_network_raw": {**_steps("200", "10", 12, 2),
                                  _MNIST_LINE: _MNIST_LINE + "; x_test, y_test = x_test[:1000], y_test[:1000]"},
    "neural_network_raw": _steps("3000", "100", 100, 10),
    "recurrent_network": _steps("1000", "100", 60, 10),
    "build_custom_layers": _steps("500", "50", 60, 10),
    "custom_layers": {},
    "custom_training_loop": {
        "x_train = x_train[:-10000]": "x_train = x_train[:1280]",
        "y_train = y_train[:-10000]": "y_train = y_train[:1280]",
        "x_val = x_train[-10000:]": "x_val = x_train[-640:]", "y_val = y_train[-10000:]": "y_val = y_train[-640:]",
        "log_every = 200": "log_every = 5"},
    "quickstart_experts": {
        _MNIST_LINE: _MNIST_LINE + "; x_train, y_train, x_test, y_test = x_train[:1600], y_train[:1600], "
                                   "x_test[:640], y_test[:640]",
        "EPOCHS = 5": "EPOCHS = 2"},
    "quickstart_beginner": {
        _MNIST_LINE: _MNIST_LINE + "; x_train, y_train = x_train[:3000], y_train[:3000]",
        "model.fit(x_train, y_train, epochs=5)": "model.fit(x_train, y_train, epochs=2)"},
}
FIT_EXAMPLES = {"quickstart_beginner"}

PRINTED_TOLERANCE = (1e-3, 2e-3)    # rtol, atol: values printed with 4 to 6 decimals
WEIGHT_TOLERANCE = (1e-2, 2e-3)
FIT_TOLERANCE = (0.15, 0.03)        # another shuffle order and other dropout masks over 2 small epochs
# An accuracy counts whole examples: float32 sums made in another order (Winograd convolution, for one) can flip one
# borderline prediction, which moves a batch of 128's accuracy by 1/128.
ACCURACY_ATOL = 1 / 128 + 1e-9

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
# " - 1s 10ms/step" (verbose=1), " - 1s - ... - 884ms/epoch - 9ms/step" (verbose=2)
TIMING = re.compile(r" - \d+(?:\.\d+)?[mu]?s(?:/epoch|/step)?(?: \d+(?:\.\d+)?[mu]?s/step)?")


def run(name: str, engine: str, folder: str) -> tuple[list, dict]:
    """(printed lines, {weight name: array}) of the example under `engine`."""
    import json

    weights = os.path.join(folder, f"{name}-{engine}.npz")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_USE_LEGACY_KERAS": "1", "CUDA_VISIBLE_DEVICES": ""}
    python = TF_PYTHON
    if engine == "webflow":
        python = sys.executable
        env["PYTHONPATH"] = REPO
        env["OPENBLAS_NUM_THREADS"] = "1"   # small GEMMs: spinning BLAS threads only slow a shared machine
    command = [python, os.path.join(EXAMPLES, "launch.py"), engine, os.path.join(EXAMPLES, name + ".py"), weights,
               json.dumps(REPLACEMENTS[name])]
    process = subprocess.run(command, capture_output=True, env=env, cwd=folder, timeout=600)
    assert process.returncode == 0, f"{engine} failed on {name}:\n{process.stderr.decode()[-4000:]}"
    with np.load(weights) as arrays:   # lines end at \n only: a progress bar's \r updates stay in their line
        return process.stdout.decode().split("\n")[:-1], {key: arrays[key] for key in arrays.files}


def split(line: str) -> tuple[str, list]:
    """(the line's text with each number replaced by '#' and blanks removed (NumPy pads printed arrays to the
    widest number), its numbers)."""
    line = line.split("\r")[-1].replace("\b", "")   # a progress bar: its final state (after the last \r)
    line = TIMING.sub("", line)
    return "".join(NUMBER.sub("#", line).split()), [float(n) for n in NUMBER.findall(line)]


def compare_lines(ours: list, theirs: list, fit: bool) -> None:
    if fit:   # exact up to the first epoch line; then the loss lines as statistics, the rest as text
        cut_ours, cut_theirs = _first_epoch(ours), _first_epoch(theirs)
        compare_lines(ours[:cut_ours], theirs[:cut_theirs], fit=False)
        our_losses, their_losses = _loss_lines(ours[cut_ours:]), _loss_lines(theirs[cut_theirs:])
        assert len(our_losses) == len(their_losses), (our_losses, their_losses)
        for our_line, their_line in zip(our_losses, their_losses):
            _compare_line(our_line, their_line, FIT_TOLERANCE)
        # NumPy may wrap a printed array's rows elsewhere once the numbers differ: the text as one string
        our_text = "".join(split(line)[0] for line in ours[cut_ours:] if "loss:" not in line)
        their_text = "".join(split(line)[0] for line in theirs[cut_theirs:] if "loss:" not in line)
        assert our_text == their_text, "\n".join(["webflow:", *ours, "tensorflow:", *theirs])
        return
    assert len(ours) == len(theirs), "\n".join(["webflow:", *ours, "tensorflow:", *theirs])
    for our_line, their_line in zip(ours, theirs):
        _compare_line(our_line, their_line, PRINTED_TOLERANCE)


def _first_epoch(lines: list) -> int:
    return next((i for i, line in enumerate(lines) if line.startswith("Epoch ")), len(lines))


def _loss_lines(lines: list) -> list:
    return [line for line in lines if "loss:" in line]


def _compare_line(our_line: str, their_line: str, tolerance: tuple) -> None:
    (our_text, our_numbers), (their_text, their_numbers) = split(our_line), split(their_line)
    message = f"\n  webflow:    {our_line}\n  tensorflow: {their_line}"
    assert our_text == their_text, message
    rtol, atol = tolerance
    if "accuracy" in our_line.lower():
        atol = max(atol, ACCURACY_ATOL)
    assert our_numbers == pytest.approx(their_numbers, rel=rtol, abs=atol), message


def compare_weights(ours: dict, theirs: dict, fit: bool) -> None:
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key].shape == theirs[key].shape, key
        if not fit:
            _assert_weights_close(ours[key], theirs[key], key)


# Adam moves a weight by about its learning rate per step whatever the gradient's size, so where a gradient
# component is near zero, float32 rounding decides its sign: such weights part by a few learning rates. The
# Winograd convolution rounds its filter gradients differently from TensorFlow's direct one, so a few such
# components (under 1% of a kernel in these examples, 2 of a 64-element bias) may exceed WEIGHT_TOLERANCE; none
# may exceed ADAM_DRIFT_ATOL (10 steps of the examples' learning rate 1e-3).
OUTLIER_FRACTION = 0.01
ADAM_DRIFT_ATOL = 1e-2


def _assert_weights_close(ours: np.ndarray, theirs: np.ndarray, key: str) -> None:
    rtol, atol = WEIGHT_TOLERANCE
    outside = ~np.isclose(ours, theirs, rtol=rtol, atol=atol)
    allowed = 2 + int(OUTLIER_FRACTION * outside.size)
    assert outside.sum() <= allowed, (key, int(outside.sum()), outside.size)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ADAM_DRIFT_ATOL, err_msg=key)


@pytest.fixture(scope="module", autouse=True)
def data_folder():
    if not os.environ.get("WEBFLOW_DATA"):
        pytest.skip("WEBFLOW_DATA is not set: no MNIST")


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
@pytest.mark.parametrize("name", sorted(REPLACEMENTS))
def test_example_matches_tensorflow(name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        our_lines, our_weights = run(name, "webflow", folder)
        their_lines, their_weights = run(name, "tensorflow", folder)
    compare_lines(our_lines, their_lines, name in FIT_EXAMPLES)
    compare_weights(our_weights, their_weights, name in FIT_EXAMPLES)
