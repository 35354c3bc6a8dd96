"""`tf.io.gfile` and TF1's `tf.gfile` (webflow/io/gfile*.py) against real TensorFlow: the same story of calls
(tests/io/gfile_scenario.py) runs under both, in two fresh folders, and every step's value or error (class and
message, the folder's name replaced) must agree. Plus what TensorFlow cannot show in one run: the namespaces."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.framework import errors
from webflow.io import gfile, gfile_v1

HERE = os.path.dirname(os.path.abspath(__file__))

_DRIVER = r"""
import json, sys, tempfile
sys.path.insert(0, sys.argv[1])
import tensorflow as tf
import gfile_scenario
root = tempfile.mkdtemp()
print("RESULT:" + json.dumps(gfile_scenario.run(tf.io.gfile, tf.compat.v1.gfile, root)))
"""


def run_in_tensorflow() -> list:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([TF_PYTHON, "-c", _DRIVER, HERE], capture_output=True, text=True, timeout=300, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])


def run_in_webflow() -> list:
    import gfile_scenario

    with tempfile.TemporaryDirectory() as root:
        return json.loads(json.dumps(gfile_scenario.run(gfile, gfile_v1, root)))


@pytest.fixture(scope="module")
def both() -> tuple:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    return run_in_webflow(), run_in_tensorflow()


def test_every_step_as_tensorflow(both: tuple) -> None:
    ours, theirs = both
    assert [s[0] for s in ours] == [s[0] for s in theirs]
    different = [(o, t) for o, t in zip(ours, theirs) if o != t]
    assert not different, "\n".join(f"webflow {o}\nTF      {t}" for o, t in different)


def test_namespaces() -> None:
    assert wf.io.gfile is gfile and tf1.io.gfile is gfile and tf1.gfile is gfile_v1
    assert {"GFile", "exists", "glob", "listdir", "makedirs", "walk", "stat", "rmtree", "join"} <= set(dir(gfile))
    assert tf1.gfile.Open is gfile.GFile


def test_not_found_names_the_path(tmp_path) -> None:
    missing = str(tmp_path / "missing.png")
    with pytest.raises(errors.NotFoundError, match=f"^{missing}; No such file or directory$"):
        gfile.GFile(missing, "rb").read()


def test_close_flushes_and_context_manager(tmp_path) -> None:
    path = str(tmp_path / "out.bin")
    f = gfile.GFile(path, "wb")
    f.write(b"\x00\x01" * 1000)
    f.close()
    assert os.path.getsize(path) == 2000
    with gfile.GFile(path, "ab") as f:
        f.write(b"z")
    assert open(path, "rb").read()[-1:] == b"z"


def test_gfile_in_graph_program(tmp_path) -> None:
    """A TF1 program's usual first lines: list a folder, read each file's bytes."""
    for name in ("b.txt", "a.txt"):
        with tf1.gfile.GFile(str(tmp_path / name), "w") as f:
            f.write(name.upper())
    files = sorted(tf1.gfile.Glob(str(tmp_path / "*.txt")))
    assert [tf1.gfile.GFile(p, "rb").read() for p in files] == [b"A.TXT", b"B.TXT"]
