"""`tf.compat.v1.debugging`: TF1's checks, each taking `data` (the tensors to show when it fails), and TF1's
is_nan / is_inf / is_finite, is_non_decreasing and is_strictly_increasing. The TF2 namespace is
webflow/debugging.py; the ops are in the modules it names.
"""

# ruff: noqa: F401, I001
from webflow.ops.assert_ops import Assert
from webflow.ops.check_ops import (
    assert_equal, assert_greater, assert_greater_equal, assert_less, assert_less_equal, assert_near, assert_negative,
    assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
)
from webflow.ops.numerics_ops import check_numerics
from webflow.ops.numerics_callback import disable_check_numerics, enable_check_numerics
from webflow.ops.order_checks import assert_same_float_dtype, is_non_decreasing, is_strictly_increasing
from webflow.ops.rank_checks import (
    assert_integer, assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in, assert_scalar,
    assert_type, is_numeric_tensor, verify_tensor_all_finite_v2 as assert_all_finite,
)
from webflow.ops.shape_checks import assert_shapes
from webflow.ops.unary_math_ops import is_finite, is_inf, is_nan

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer",
           "assert_less", "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_shapes",
           "assert_type", "check_numerics", "disable_check_numerics", "enable_check_numerics", "is_finite", "is_inf",
           "is_nan", "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing"]
