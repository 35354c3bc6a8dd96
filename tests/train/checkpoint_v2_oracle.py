"""Real TensorFlow's side of tests/train/test_checkpoint_v2.py, run once per test module in the oracle interpreter
(WEBFLOW_TF_PYTHON): it restores webflow's checkpoints, writes its own, runs a CheckpointManager and records
TensorFlow's error messages, all into one JSON result."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from checkpoint_v2_model import MODEL_SOURCE
from tf_subprocess import TF_PYTHON

ORACLE_SOURCE = r'''
import json, os, sys
import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import trackable_object_graph_pb2

paths = json.loads(sys.stdin.readline())
tf1 = tf.compat.v1
exec(MODEL_SOURCE)
result = {}


def message(call):
    try:
        call()
    except Exception as error:
        return [type(error).__name__, str(error)]
    return None


# 1. webflow's checkpoint, restored into the same structure built with other values
_, model, ckpt = make(99)
ckpt.restore(paths["webflow_saved"]).assert_consumed()
result["restored_webflow"] = model_state(model, ckpt)
result["restored_save_counter"] = int(ckpt.save_counter.numpy())
result["webflow_list_variables"] = tf.train.list_variables(paths["webflow_saved"])
reader = tf.train.load_checkpoint(paths["webflow_saved"])
graph = trackable_object_graph_pb2.TrackableObjectGraph()
graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
result["webflow_graph_nodes"] = len(graph.nodes)
result["webflow_strings"] = [v.decode("utf-8") for v in
                             tf.train.load_checkpoint(paths["webflow_strings"]).get_tensor("words").ravel()]

# 2. TensorFlow's checkpoints of the same objects and values (seed 0), to compare bytes
_, model, ckpt = make(0)
result["tf_saved"] = ckpt.save(os.path.join(paths["tf_dir"], "ckpt"))
with open(os.path.join(paths["tf_dir"], "checkpoint")) as state:
    result["save_state"] = state.read()
ckpt.write(os.path.join(paths["tf_dir"], "written"))
result["tf_variables"] = [v.name for v in model.variables]
result["tf_trainable"] = [v.name for v in model.trainable_variables]
result["tf_submodules"] = [m.name for m in model.submodules]

result["tf_nested"] = nested(0).write(os.path.join(paths["tf_dir"], "nested"))

# 2b. a Checkpoint made with root=: the model's own edges, then the keywords, `root` and save_counter
_, model, _ = make(0)
result["tf_rooted"] = tf.train.Checkpoint(model, scale=tf.Variable(np.float32(0.5), name="scale")).save(
    os.path.join(paths["tf_dir"], "rooted"))

# 3. one for webflow to restore (seed 1)
_, model, ckpt = make(1)
ckpt.save(os.path.join(paths["tf_dir"], "for_webflow"))

# 4. a string tensor bundle (SaveV2 itself)
tf.raw_ops.SaveV2(prefix=os.path.join(paths["tf_dir"], "strings"), tensor_names=["words", "n", "empty"],
                  shape_and_slices=["", "", ""],
                  tensors=[tf.constant([[b"ab", b""], [b"x" * 300, "\u00e9t\u00e9".encode()]]),
                           tf.constant(np.arange(3, dtype=np.int32)), tf.constant(b"")])

# 5. CheckpointManager: 4 saves keeping 2, then a numbered one; then a new manager on the same directory
step = tf.Variable(np.zeros((2, 3), np.float32), name="w")
ckpt = tf.train.Checkpoint(v=step)
manager = tf.train.CheckpointManager(ckpt, paths["tf_manager"], max_to_keep=2)
result["manager_saves"] = [manager.save() for _ in range(4)]
result["manager_checkpoints"] = manager.checkpoints
result["manager_files"] = sorted(os.listdir(paths["tf_manager"]))
result["manager_numbered"] = manager.save(checkpoint_number=10)
with open(os.path.join(paths["tf_manager"], "checkpoint")) as state:
    result["manager_state"] = state.read()
again = tf.train.CheckpointManager(tf.train.Checkpoint(v=step), paths["tf_manager"], max_to_keep=3)
result["manager_again"] = [again.checkpoints, again.latest_checkpoint, again.save()]
result["manager_again_files"] = sorted(os.listdir(paths["tf_manager"]))
# 7. TF1 optimizers' state: TensorFlow's checkpoint of the same values (bytes), one restored from webflow's,
# and one for webflow to restore
net, adam, momentum, ckpt = train_state(0)
fill(optimizer_variables(net, adam, momentum), 11)
result["tf_optimizer"] = ckpt.write(os.path.join(paths["tf_dir"], "optimizer"))
net, adam, momentum, ckpt = train_state(1)
ckpt.read(paths["webflow_optimizer"]).assert_consumed()
result["restored_optimizer"] = [v.numpy().tolist() for v in optimizer_variables(net, adam, momentum)]
net, adam, momentum, ckpt = train_state(2)
result["optimizer_for_webflow_values"] = fill(optimizer_variables(net, adam, momentum), 12)
result["optimizer_for_webflow"] = ckpt.write(os.path.join(paths["tf_dir"], "optimizer_for_webflow"))

# 6. errors
source = paths["webflow_small"]
zeros = lambda shape, dtype: tf.train.Checkpoint(v=tf.Variable(np.zeros(shape, dtype)))
result["shape_error"] = message(lambda: zeros((3, 2), np.float32).restore(source))
result["dtype_error"] = message(lambda: zeros((2, 3), np.float64).restore(source))
extra = tf.train.Checkpoint(v=tf.Variable(np.zeros((2, 3), np.float32)), extra=tf.Variable(1.0))
status = extra.restore(source)
result["unmatched_python"] = message(status.assert_consumed)
result["unmatched_python_existing"] = message(status.assert_existing_objects_matched)
empty = tf.train.Checkpoint()   # (held: a status keeps only a weak reference to its checkpoint)
status = empty.restore(source)
result["unmatched_counter"] = message(status.assert_consumed)
partial = tf.train.Checkpoint(scale=tf.Variable(0.0))
status = partial.restore(paths["webflow_saved"])
result["unresolved_checkpoint"] = message(status.assert_consumed)
result["unresolved_existing"] = message(status.assert_existing_objects_matched)
prefix = os.path.join(paths["tf_dir"], "name_based")
result["name_based_path"] = prefix
tf.raw_ops.SaveV2(prefix=prefix, tensor_names=["dense/kernel", "other"], shape_and_slices=["", ""],
                  tensors=[tf.constant(np.ones((2, 2), np.float32)), tf.constant(np.int64(3))])
kernel = tf.Variable(np.zeros((2, 2), np.float32), name="dense/kernel")
missing = tf.Variable(1.0, name="missing")
by_name = tf.train.Checkpoint(k=kernel, z=missing)
status = by_name.restore(prefix)
other = tf.Variable(np.zeros((3, 2), np.float32), name="dense/kernel")
result["name_based"] = [type(status).__name__,
                        [kernel.numpy().tolist(), float(missing.numpy()), int(by_name.save_counter.numpy())],
                        message(status.assert_consumed), message(status.assert_existing_objects_matched),
                        message(lambda: tf.train.Checkpoint(k=other).restore(prefix))]
result["not_found"] = message(lambda: tf.train.Checkpoint().restore(source + "-9"))
result["none_status"] = message(tf.train.Checkpoint().restore(None).assert_consumed)
result["not_trackable"] = message(lambda: tf.train.Checkpoint(a=1))
result["bad_module_name"] = message(lambda: tf.Module(name="a b"))
result["module_default_name"] = type("MyDenseLayer", (tf.Module,), {})().name
print("RESULT:" + json.dumps(result))
'''


def run_oracle(paths: dict) -> Any:
    """TensorFlow's JSON result for the checkpoint files named in `paths`."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    source = "MODEL_SOURCE = " + repr(MODEL_SOURCE) + "\n" + ORACLE_SOURCE
    done = subprocess.run([TF_PYTHON, "-c", source], input=json.dumps(paths) + "\n", capture_output=True,
                          text=True, timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"TensorFlow failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT:"):])
