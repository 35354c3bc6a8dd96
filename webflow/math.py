"""`wf.math`: TensorFlow 2's math namespace (`tf.math.log`, `tf.math.reduce_max`, `tf.math.argmax` ...).

The ops live in ops/math_ops.py (arithmetic, Cast), ops/matmul_ops.py, ops/sum_mean_ops.py (Sum, Mean),
ops/unary_math_ops.py, ops/binary_math_ops.py, ops/logic_ops.py and ops/reduction_ops.py. TF1's variant (keep_dims,
reduction_indices, argmax's dimension) is webflow.compat.v1_math.
"""

# ruff: noqa: F401, I001, A004
from webflow.ops.binary_math_ops import (
    div_no_nan as divide_no_nan, floordiv, floormod, maximum, minimum, mod, pow, squared_difference,
)
from webflow.ops.logic_ops import (
    equal, greater, greater_equal, less, less_equal, logical_and, logical_not, logical_or, logical_xor, not_equal,
)
from webflow.ops.math_ops import add, add_n, cast, divide, multiply, negative, subtract, truediv
from webflow.ops.matmul_ops import matmul
from webflow.ops.order_checks import is_non_decreasing, is_strictly_increasing
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum
from webflow.ops.reduction_ops import (
    argmax, argmin, count_nonzero, cumprod, cumsum, reduce_all, reduce_any, reduce_logsumexp, reduce_max,
    reduce_min, reduce_prod,
)
from webflow.ops.unary_math_ops import (
    abs, ceil, cos, exp, floor, is_finite, is_inf, is_nan, log, log1p, reciprocal, round, rsqrt, sigmoid, sign, sin,
    sqrt, square, tanh,
)

__all__ = [
    "abs", "add", "add_n", "argmax", "argmin", "cast", "ceil", "cos", "count_nonzero", "cumprod", "cumsum",
    "divide", "divide_no_nan", "equal", "exp", "floor", "floordiv", "floormod", "greater", "greater_equal",
    "is_finite", "is_inf", "is_nan", "is_non_decreasing", "is_strictly_increasing", "less", "less_equal", "log",
    "log1p", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "pow",
    "reciprocal", "reduce_all", "reduce_any", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_sum", "round", "rsqrt", "sigmoid", "sign", "sin", "sqrt", "square", "squared_difference",
    "subtract", "tanh", "truediv",
]
