"""Names shared by the TF2 facade (`webflow`) and the TF1 facade (`webflow.compat.v1`).

Each section belongs to one op family or package; add a name to the section of the module that
defines it. Names whose TF1 and TF2 spellings differ live in the facades themselves.
"""

# ruff: noqa: F401
from webflow.framework import dtypes as _dtypes
from webflow.framework.dtypes import (
    DType, as_dtype, bfloat16, bool, double, float16, float32, float64, half, int8, int16, int32, int64, resource,
    string, uint8, uint16, uint32, uint64, variant,
)
from webflow.framework.errors import OpError
from webflow.framework.graph import Graph, GraphKeys, Operation
from webflow.framework.init_scope import init_scope
from webflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from webflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from webflow.framework.sparse_tensor_spec import SparseTensorSpec
from webflow.framework.tensor import EagerTensor, Tensor, is_tensor
from webflow.framework.tensor_shape import Dimension, TensorShape
from webflow.framework import errors
from webflow.ops.convert import convert_to_tensor, register_tensor_conversion_function
from webflow.ops.registry import NoGradient, NotDifferentiable, RegisterGradient
from webflow.ops.script_ops import numpy_function, py_function  # Python functions as ops
from webflow.ops.constants import constant
from webflow.autodiff.gradients import UnconnectedGradients
from webflow.autodiff.tape import GradientTape
from webflow.autodiff.custom_gradient import custom_gradient

# --- math (ops/math_ops.py, matmul_ops.py, sum_mean_ops.py) ---
from webflow.ops.math_ops import add, add_n, cast, divide, multiply, negative, subtract, truediv
from webflow.ops.matmul_ops import matmul
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum
# (ops/unary_math_ops.py, binary_math_ops.py, logic_ops.py, reduction_ops.py; names TF1 and TF2 share)
from webflow.ops.unary_math_ops import abs, cos, exp, floor, round, sigmoid, sign, sin, sqrt, square, tanh
from webflow.ops.binary_math_ops import maximum, minimum, pow, realdiv, tensordot, truncatediv, truncatemod
from webflow.ops.logic_ops import (
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or, not_equal,
)
from webflow.ops.reduction_ops import cumsum

# --- array (ops/array_ops.py, broadcast_ops.py, concat_ops.py, sequence_ops.py) ---
from webflow.ops.array_ops import (
    fill, identity, ones, ones_like, rank, reshape, shape, size, stop_gradient, zeros, zeros_like,
)
from webflow.ops.broadcast_ops import broadcast_to
from webflow.ops.concat_ops import concat, split, stack, unstack
from webflow.ops.sequence_ops import one_hot, range
from webflow.ops.indexing_ops import slice, strided_slice
from webflow.ops.gather_ops import gather_v2 as gather, gather_nd_v2 as gather_nd, boolean_mask_v2 as boolean_mask
from webflow.ops.gather_ops import scatter_nd
from webflow.ops.dynamic_stitch_ops import dynamic_stitch
from webflow.ops.ensure_shape_ops import ensure_shape  # EnsureShape: static merge + run-time check
from webflow.ops.manip_ops import (
    identity_n, invert_permutation, reverse, sequence_mask, shape_n, tile,
    expand_dims_v2 as expand_dims, squeeze_v2 as squeeze, transpose_v2 as transpose,
)
from webflow.ops.pad_ops import pad_v2 as pad
from webflow.ops.space_batch_ops import space_to_batch_nd  # ops/space_batch_ops.py, nn/space_to_batch.py
from webflow.nn.space_to_batch import required_space_to_batch_paddings
from webflow.ops.manip_ops import reverse as reverse_v2
newaxis = None

# --- control flow (ops/control_flow_ops.py, while_loop.py) ---
from webflow.ops.control_flow_ops import group, no_op, tuple, with_dependencies
from webflow.ops.control_flow_ops import case
from webflow.ops.control_flow_ops import cond_v2 as cond
from webflow.ops.while_loop import while_loop_v2 as while_loop
from webflow.ops.tensor_array import TensorArray
from webflow.ops.reverse_sequence_ops import reverse_sequence
from webflow.ops.functional_loops import foldl, foldr, map_fn, scan

# --- state (ops/state_ops.py) ---
from webflow.ops.state_ops import Variable
# --- tf.Module (train/module.py): a named container of variables, what tf.train.Checkpoint saves ---
from webflow.train.module import Module

# --- random (ops/random_ops.py) ---
# (none shared: TF2 has only tf.random.*, TF1 adds tf.random_normal ...; see the facades)

# --- nn (nn/) ---

# --- assertions and printing (ops/assert_ops.py on ops/logging_ops.py): tf.Assert, tf.print ---
from webflow.ops.assert_ops import Assert
from webflow.ops.assert_ops import print_v2 as print  # noqa: A004 - TensorFlow's name

# --- gradient clipping (train/clip_ops.py) ---
from webflow.train.clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
