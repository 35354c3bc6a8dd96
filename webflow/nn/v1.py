"""TF1's `tf.nn` (`webflow.compat.v1.nn`): everything in `webflow.nn`, with TF1's spelling where the two differ.

TF1's `softmax_cross_entropy_with_logits` is the deprecated one that stops gradients into the labels, and
its cross-entropies take named arguments only (a leading `_sentinel` catches positional ones).
Each section belongs to the module that defines the names.
"""

# ruff: noqa: F401, F403, I001
from webflow.nn import *

# --- softmax cross-entropies (ops/nn_cross_entropy.py) ---
from webflow.ops.nn_cross_entropy import softmax_cross_entropy_with_logits, sparse_softmax_cross_entropy_with_logits
from webflow.ops.nn_cross_entropy import sigmoid_cross_entropy_with_logits_v1 as sigmoid_cross_entropy_with_logits
