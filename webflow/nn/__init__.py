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

# --- activations, dropout, normalization, top-k (ops/nn_activation_ops.py, nn/dropout_ops.py, nn/normalization.py,
#     ops/nn_topk_ops.py) ---
from webflow.ops.nn_activation_ops import elu, leaky_relu, relu6, selu, softplus, softsign
from webflow.ops.unary_math_ops import sigmoid, tanh
from webflow.nn.dropout_ops import dropout_v2 as dropout
from webflow.nn.normalization import batch_normalization, l2_normalize
from webflow.ops.nn_topk_ops import in_top_k_v2 as in_top_k
from webflow.ops.nn_topk_ops import top_k

# --- pooling (ops/pool_ops.py) ---
from webflow.ops.pool_ops import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d
from webflow.ops.pool_ops import avg_pool_v2 as avg_pool
from webflow.ops.pool_ops import max_pool_v2 as max_pool

# --- convolutions (ops/conv_ops.py) ---
from webflow.ops.conv_ops import conv2d, conv2d_transpose, convolution
from webflow.nn.depthwise_conv import depthwise_conv2d_v2 as depthwise_conv2d  # ops/depthwise_conv_ops.py
from webflow.nn.depthwise_conv import separable_conv2d_v2 as separable_conv2d
from webflow.ops.depthwise_conv_ops import depthwise_conv2d_native

# --- sampled losses and candidate samplers (nn/sampled_losses.py, ops/candidate_sampling_ops.py) ---
from webflow.nn.sampled_losses import nce_loss_v2 as nce_loss
from webflow.nn.sampled_losses import sampled_softmax_loss_v2 as sampled_softmax_loss
from webflow.ops.candidate_sampling_ops import compute_accidental_hits

# --- space to batch / depth (ops/space_batch_ops.py, nn/space_to_batch.py) ---
from webflow.ops.space_batch_ops import depth_to_space_v2 as depth_to_space
from webflow.ops.space_batch_ops import space_to_batch_v2 as space_to_batch
from webflow.ops.space_batch_ops import space_to_depth_v2 as space_to_depth
from webflow.nn.space_to_batch import with_space_to_batch
