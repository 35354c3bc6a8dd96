"""Names shared by the TF2 facade (`webflow`) and the TF1 facade (`webflow.compat.v1`).

Each section belongs to one op family or package; add a name to the section of the module that
defines it. Names whose TF1 and TF2 spellings differ live in the facades themselves.
"""

# ruff: noqa: F401
from webflow.framework import dtypes as _dtypes
from webflow.framework.dtypes import (
    DType, as_dtype, bool, double, float16, float32, float64, half, int8, int16, int32, int64, resource,
    string, uint8, uint16, uint32, uint64, variant,
)
from webflow.framework.errors import OpError
from webflow.framework.graph import Graph, GraphKeys, Operation
from webflow.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from webflow.framework.tensor import EagerTensor, Tensor, is_tensor
from webflow.framework.tensor_shape import Dimension, TensorShape
from webflow.framework import errors
from webflow.ops.convert import convert_to_tensor, register_tensor_conversion_function
from webflow.ops.registry import NoGradient, NotDifferentiable, RegisterGradient
from webflow.ops.constants import constant
from webflow.autodiff.gradients import UnconnectedGradients
from webflow.autodiff.tape import GradientTape

# --- math (ops/math_ops.py) ---
from webflow.ops.math_ops import (
    add, add_n, cast, divide, matmul, multiply, negative, reduce_mean, reduce_sum, subtract, truediv,
)

# --- array (ops/array_ops.py) ---
from webflow.ops.array_ops import (
    broadcast_to, concat, fill, identity, one_hot, ones, ones_like, range, rank, reshape, shape, size,
    split, stack, stop_gradient, unstack, zeros, zeros_like,
)

# --- control flow (ops/control_flow_ops.py) ---
from webflow.ops.control_flow_ops import group, no_op, tuple, with_dependencies

# --- state (ops/state_ops.py) ---
from webflow.ops.state_ops import Variable

# --- random (ops/random_ops.py) ---

# --- nn (nn/) ---
