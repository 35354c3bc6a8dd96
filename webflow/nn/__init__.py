"""`tf.nn`: neural-network ops (activations, losses, embedding lookups), composites of ops/ or their own stanzas.

Each section belongs to the module that defines the names.
"""

# ruff: noqa: F401, I001

# --- activations, bias_add, softmax cross-entropies (ops/nn_ops.py, ops/nn_cross_entropy.py) ---
from webflow.ops.nn_cross_entropy import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from webflow.ops.nn_cross_entropy import softmax_cross_entropy_with_logits_v2 as softmax_cross_entropy_with_logits
from webflow.ops.nn_cross_entropy import (
    sparse_softmax_cross_entropy_with_logits_v2 as sparse_softmax_cross_entropy_with_logits,
)
from webflow.ops.nn_ops import bias_add, log_softmax, relu, softmax

# --- embedding lookups (nn/embedding.py) ---
from webflow.nn.embedding import embedding_lookup

# --- losses with their own kernels (ops/nn_loss_ops.py) ---
from webflow.ops.nn_loss_ops import l2_loss

# --- statistics (nn/moments.py) ---
from webflow.nn.moments import moments
