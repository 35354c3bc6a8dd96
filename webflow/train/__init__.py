"""TF2's `tf.train` (`webflow.train`): the checkpoint helpers TF2 keeps. TF1's `tf.train` (optimizers, Saver,
schedules, global step) is `v1.py` (`webflow.compat.v1.train`), as TF2 drops those names; io/ is laid out alike."""

# ruff: noqa: F401

# --- TF2 object-based checkpoints (train/checkpoint.py, checkpoint_management.py) ---
from webflow.train.checkpoint import Checkpoint
from webflow.train.checkpoint_management import CheckpointManager

# --- threads that stop together (train/coordinator.py), kept in TF2's tf.train ---
from webflow.train.coordinator import Coordinator, LooperThread

# --- tf.train.Example and its parts (train/example_messages.py): protobuf classes, loaded on first use ---
from webflow.train.example_messages import example_class as _example_class

# --- the checkpoint helpers TF2 keeps (train/saver.py) ---
from webflow.train.saver import get_checkpoint_state, latest_checkpoint, list_variables, load_checkpoint, load_variable


def __getattr__(name: str) -> object:  # tf.train.Example, Features, Feature, BytesList, FloatList, Int64List ...
    return _example_class(name, __name__)
