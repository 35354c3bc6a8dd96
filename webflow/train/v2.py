"""TF2's `tf.train` (as `webflow.train`): the checkpoint helpers TF2 keeps. Optimizers live in TF1's
`tf.train` only (webflow has no Keras optimizers); `tf.train.Saver` is TF1's (`webflow.compat.v1.train`)."""

# ruff: noqa: F401

from webflow.train.saver import get_checkpoint_state, latest_checkpoint, list_variables, load_checkpoint, load_variable
