"""site/demo/mnist_tfdata.py in CPython: the tf.data-fed demo and the feed_dict one both learn on the sample.

Oracle: the sample's test labels. The browser side is tests/pyodide/test_mnist_tfdata_pyodide.py.
"""

from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "site", "demo")


PROGRAM = r"""
import sys
sys.path.insert(0, DEMO)
from mnist_tfdata import MnistTfDataDemo
from mnist_model import MnistDemo
for demo in (MnistTfDataDemo(examples=2000, epochs=2), MnistDemo()):
    demo.steps = 40
    first = demo.train_chunk(5)
    demo.train_chunk(30)
    last = demo.train_chunk(5)
    print(type(demo).__name__, first["loss"], last["loss"], demo.test_accuracy(), demo.step)
"""


def test_both_input_pipelines_train_the_demo_model() -> None:
    """40 steps each (a separate process: the demo switches the default graph to TF1 mode)."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", f"DEMO = {DEMO!r}\n" + PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines()]
    assert [row[0] for row in rows] == ["MnistTfDataDemo", "MnistDemo"]
    for name, first, last, accuracy, steps in rows:
        assert float(last) < 0.6 * float(first), (name, first, last)
        assert float(accuracy) > 0.75, (name, accuracy)
        assert int(steps) == 40
