"""`tf.losses`: loss functions and the LOSSES / REGULARIZATION_LOSSES collections.

Each section belongs to the module that defines the names.
"""

# ruff: noqa: F401

# --- regularization losses (losses/util.py) ---
from webflow.losses.util import get_regularization_loss, get_regularization_losses
