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

# --- dropout, fused batch norm, in_top_k, xw_plus_b: TF1 spellings (nn/dropout_ops.py, nn/normalization.py,
#     ops/nn_topk_ops.py) ---
from webflow.nn.dropout_ops import dropout
from webflow.nn.normalization import fused_batch_norm
from webflow.ops.nn_topk_ops import in_top_k, xw_plus_b

# --- pooling (ops/pool_ops.py) ---
from webflow.ops.pool_ops import avg_pool, avg_pool_v2, max_pool, max_pool_v2
from webflow.ops.pool_ops import avg_pool as avg_pool2d

# --- convolutions (ops/conv_ops.py) ---
from webflow.ops.conv_ops import conv2d_backprop_filter, conv2d_backprop_input
from webflow.ops.conv_ops import conv2d_transpose_v1 as conv2d_transpose
from webflow.ops.conv_ops import conv2d_v1 as conv2d
from webflow.ops.conv_ops import convolution_v1 as convolution

# --- recurrent networks (nn/rnn_cell.py, nn/rnn.py): TF1's tf.nn.rnn_cell, static_rnn, dynamic_rnn ---
from webflow.nn import rnn_cell
from webflow.nn.rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_bidirectional_rnn, static_rnn

# --- sampled losses: TF1 signatures with partition_strategy (nn/sampled_losses.py) ---
from webflow.nn.sampled_losses import nce_loss, sampled_softmax_loss
from webflow.ops.candidate_sampling_ops import log_uniform_candidate_sampler, uniform_candidate_sampler

# --- depthwise / separable convolutions with TF1's `rate` (nn/depthwise_conv.py) ---
from webflow.nn.depthwise_conv import depthwise_conv2d, separable_conv2d

# --- space to batch / depth: TF1 signatures (ops/space_batch_ops.py) ---
from webflow.ops.space_batch_ops import depth_to_space, space_to_batch, space_to_depth
