"""`tf.losses`: loss functions and the LOSSES / REGULARIZATION_LOSSES collections.

Each section belongs to the module that defines the names.
"""

# ruff: noqa: F401, I001  (sections, one per module, rather than one sorted block)

# --- regularization losses (losses/util.py) ---
from webflow.losses.util import get_regularization_loss, get_regularization_losses

# --- weighted losses and the LOSSES collection (losses/losses_impl.py, losses/cross_entropy.py) ---
from webflow.losses.losses_impl import (
    Reduction, absolute_difference, add_loss, compute_weighted_loss, cosine_distance, get_losses, get_total_loss,
    hinge_loss, huber_loss, log_loss, mean_squared_error,
)
from webflow.losses.cross_entropy import sigmoid_cross_entropy, softmax_cross_entropy, sparse_softmax_cross_entropy
