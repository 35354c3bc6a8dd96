"""The public TF1 recurrent examples (TensorFlow-Examples' recurrent_network.py, bidirectional_rnn.py and
dynamic_rnn.py, re-created in tests/rnn/public_examples/) run unchanged under webflow and under real TensorFlow
2.21, and print the same losses and accuracies.

What differs from the public programs, and only here (the files are the programs as published):
- the import lines: `import tensorflow as tf` becomes `import webflow.compat.v1 as tf` (or TensorFlow's
  `tensorflow.compat.v1`), with `tf.disable_v2_behavior()` (graph mode, as TF 1.x was) and a graph seed
  `tf.set_random_seed(0)` plus `random.seed(0)`, so that both engines draw the same initial weights (webflow's
  random ops give TensorFlow's numbers for the same seeds) and dynamic_rnn.py the same toy data;
  `from tensorflow.contrib import rnn` becomes webflow's `tf.contrib.rnn` or, in TensorFlow 2.21 (no contrib),
  a namespace of the same functions under `tf.nn` (which is where TF 1.x's contrib.rnn took them from);
  `from tensorflow.examples.tutorials.mnist import input_data` becomes public_examples/input_data.py (MNIST from
  $WEBFLOW_DATA, the same seeded batches in both processes; no download);
- `training_steps` and `display_step` are smaller so that each program runs in well under a minute.
The printed minibatch losses, training accuracies and the test accuracy must match TensorFlow's (TOLERANCE).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "public_examples")
REPO = os.path.dirname(os.path.dirname(HERE))

SEEDS = "tf.set_random_seed(0)\nimport random\nrandom.seed(0)\n"
HEADERS = {
    "webflow": {
        "import tensorflow as tf": "import webflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + SEEDS,
        "from tensorflow.contrib import rnn": "rnn = tf.contrib.rnn",
    },
    "tensorflow": {
        "import tensorflow as tf": (
            "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" + SEEDS
            + "from types import SimpleNamespace\n"
            + "tf.contrib = SimpleNamespace(rnn=SimpleNamespace(BasicLSTMCell=tf.nn.rnn_cell.BasicLSTMCell,"
            + " static_rnn=tf.nn.static_rnn, static_bidirectional_rnn=tf.nn.static_bidirectional_rnn))"),
        "from tensorflow.contrib import rnn": "rnn = tf.contrib.rnn",
    },
}
SHARED = {"from tensorflow.examples.tutorials.mnist import input_data": "import input_data"}
# program: (training_steps, display_step)
STEPS = {"recurrent_network": (200, 50), "bidirectional_rnn": (100, 25), "dynamic_rnn": (400, 100)}
# rtol, atol on printed values: float32 sums in another order, carried through a few hundred SGD steps
TOLERANCE = (2e-3, 2e-3)
STEP_LINE = re.compile(r"Step (\d+), Minibatch Loss= ([\d.]+), Training Accuracy= ([\d.]+)")
TEST_LINE = re.compile(r"Testing Accuracy: ([\d.]+)")


def program_source(name: str, engine: str) -> str:
    """The program's text with the import lines and the two step counts replaced (each must occur once)."""
    with open(os.path.join(EXAMPLES, name + ".py")) as handle:
        source = handle.read()
    steps, display = STEPS[name]
    replacements = {**HEADERS[engine], **SHARED, "training_steps = 10000": f"training_steps = {steps}",
                    "display_step = 200": f"display_step = {display}"}
    lines = source.split("\n")
    for old, new in replacements.items():
        if old not in lines:
            continue  # dynamic_rnn.py imports neither rnn nor input_data
        assert lines.count(old) == 1, old
        lines[lines.index(old)] = new
    return "\n".join(lines)


def run(name: str, engine: str) -> dict:
    """{"steps": [(step, loss, accuracy), ...], "test_accuracy": float} from the program's printout."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "TF_USE_LEGACY_KERAS": "1", "PYTHONPATH": EXAMPLES}
    python = sys.executable
    if engine == "webflow":
        env["PYTHONPATH"] = EXAMPLES + os.pathsep + REPO
        env["OPENBLAS_NUM_THREADS"] = "1"  # small GEMMs: spinning BLAS threads only slow a shared machine
    else:
        python = TF_PYTHON
    process = subprocess.run([python, "-c", program_source(name, engine)], capture_output=True, text=True,
                             env=env, cwd=EXAMPLES, timeout=300)
    assert process.returncode == 0, f"{engine} failed on {name}:\n{process.stderr[-3000:]}"
    steps = [(int(s), float(loss), float(acc)) for s, loss, acc in STEP_LINE.findall(process.stdout)]
    test = TEST_LINE.findall(process.stdout)
    assert steps and len(test) == 1, process.stdout
    return {"steps": steps, "test_accuracy": float(test[0])}


@pytest.fixture(scope="module", autouse=True)
def data_folder():
    if not os.environ.get("WEBFLOW_DATA"):
        pytest.skip("WEBFLOW_DATA is not set: no MNIST")


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
@pytest.mark.parametrize("name", sorted(STEPS))
def test_example_matches_tensorflow(name: str) -> None:
    webflow, tensorflow = run(name, "webflow"), run(name, "tensorflow")
    assert [s for s, _, _ in webflow["steps"]] == [s for s, _, _ in tensorflow["steps"]]
    rtol, atol = TOLERANCE
    for (step, wf_loss, wf_acc), (_, tf_loss, tf_acc) in zip(webflow["steps"], tensorflow["steps"]):
        assert wf_loss == pytest.approx(tf_loss, rel=rtol, abs=atol), f"loss at step {step}"
        assert wf_acc == pytest.approx(tf_acc, abs=atol), f"training accuracy at step {step}"
    assert webflow["test_accuracy"] == pytest.approx(tensorflow["test_accuracy"], abs=atol)
