"""TF2's `tf.train` (`webflow.train`): the checkpoint helpers TF2 keeps. TF1's `tf.train` (optimizers, Saver,
schedules, global step) is `v1.py` (`webflow.compat.v1.train`), as TF2 drops those names; io/ is laid out alike."""

# ruff: noqa: F401

from webflow.train.saver import get_checkpoint_state, latest_checkpoint, list_variables, load_checkpoint, load_variable
