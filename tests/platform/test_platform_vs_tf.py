"""tf.logging, tf.get_logger, tf.flags / tf.app.run and tf.distribute's one-replica strategies against real
TensorFlow: one program run by both (webflow as `tf`), its results and its `LEVEL:tensorflow:message` log lines
compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tf_subprocess import SKIP_REASON, TF_PYTHON  # noqa: E402

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
pytest.importorskip("absl")   # tf.flags / tf.app are absl-py's
ROOT = os.path.dirname(os.path.dirname(HERE))

PROGRAM = """
import json
tf1 = tf.compat.v1
out = {}
out["levels"] = [tf1.logging.DEBUG, tf1.logging.INFO, tf1.logging.WARN, tf1.logging.ERROR, tf1.logging.FATAL]
out["default_verbosity"] = tf1.logging.get_verbosity()
tf1.logging.set_verbosity(tf1.logging.INFO)
out["verbosity"] = tf1.logging.get_verbosity()
tf1.logging.info("step %d", 3)
tf1.logging.debug("hidden")
tf1.logging.warn("careful")
tf1.logging.error("bad %s", "thing")
for i in range(5):
    tf1.logging.log_every_n(tf1.logging.INFO, "every %d", 2, i)
out["logger"] = [tf.get_logger().name, tf.get_logger() is tf1.get_logger()]
tf1.flags.DEFINE_string("data_dir", "/tmp/x", "where")
tf1.app.flags.DEFINE_integer("steps", 10, "how many")
tf1.flags.DEFINE_boolean("fast", False, "go fast")
FLAGS = tf1.flags.FLAGS
def main(argv):
    out["argv"] = argv
    out["flags"] = [FLAGS.data_dir, FLAGS.steps, FLAGS.fast]
    tf1.logging.info("before the strategy")
    s = tf.distribute.MirroredStrategy()
    out["replicas"] = [s.num_replicas_in_sync, tf.distribute.get_strategy().num_replicas_in_sync]
    with s.scope():
        out["scoped"] = [tf.distribute.get_strategy() is s, tf.distribute.has_strategy(),
                         tf.distribute.in_cross_replica_context()]
        v = tf.Variable(2.0)
        r = s.run(lambda x: x * v, args=(tf.constant([1., 2., 3.]),))
        out["reduce"] = [s.reduce("SUM", r, axis=None).numpy().tolist(),
                         s.reduce(tf.distribute.ReduceOp.MEAN, r, axis=0).numpy().tolist(),
                         s.reduce(tf.distribute.ReduceOp.SUM, r, axis=0).numpy().tolist()]
        ds = s.experimental_distribute_dataset(tf.data.Dataset.range(6).batch(4))
        out["dataset"] = [b.numpy().tolist() for b in ds]
        out["local"] = [t.numpy().tolist() for t in s.experimental_local_results(r)]
    out["outside"] = [tf.distribute.has_strategy(), tf.distribute.get_strategy().num_replicas_in_sync]
    o = tf.distribute.OneDeviceStrategy("/cpu:0")
    with o.scope():
        out["one"] = [o.num_replicas_in_sync, o.run(lambda: tf.constant(5) + 1).numpy().tolist()]
    print("RESULT:" + json.dumps(out))
tf1.app.run(main, argv=["prog", "--steps=7", "--fast", "--unknown=3", "rest"])
"""


def _run(python: str, header: str) -> tuple:
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": ROOT}
    done = subprocess.run([python, "-c", header + PROGRAM], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads([line for line in done.stdout.splitlines() if line.startswith("RESULT:")][-1][7:])
    logs = [line for line in done.stderr.splitlines() if ":tensorflow:" in line and ":tensorflow:From" not in line
            and "eagerly has significant overhead" not in line]
    return result, logs


def test_logging_flags_app_and_distribute_match_tensorflow() -> None:
    ours = _run(sys.executable, "import webflow as tf\nimport webflow.compat.v1\n")
    theirs = _run(TF_PYTHON, "import tensorflow as tf\n")
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]
