"""`tf.contrib`: the few TF1 contrib names classic programs use (`tf.contrib.layers.l2_regularizer`, ...)."""

# ruff: noqa: F401
from types import SimpleNamespace

from webflow.train import regularizers as _regularizers

# --- layers (regularizers from train/regularizers.py) ---
layers = SimpleNamespace(
    l1_regularizer=_regularizers.l1_regularizer,
    l2_regularizer=_regularizers.l2_regularizer,
    l1_l2_regularizer=_regularizers.l1_l2_regularizer,
    sum_regularizer=_regularizers.sum_regularizer,
    apply_regularization=_regularizers.apply_regularization,
)
