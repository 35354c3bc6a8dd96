"""`wf.debugging`: TensorFlow 2's checks (`tf.debugging.assert_equal`, `assert_rank`, `Assert`, `check_numerics` ...).

The Assert op and `tf.print` live in ops/logging_ops.py and ops/assert_ops.py; the element-wise comparisons in
ops/check_ops.py; rank, type and finiteness checks in ops/rank_checks.py; `assert_shapes` in ops/shape_checks.py.
`enable_check_numerics` / `disable_check_numerics` are ops/numerics_callback.py.
TF1's variant (each check takes `data`; plus is_nan / is_inf / is_finite) is webflow.compat.v1_debugging.
"""

# ruff: noqa: F401, I001
from webflow.ops.assert_ops import Assert
from webflow.ops.check_ops import (
    assert_equal_v2 as assert_equal, assert_greater_equal_v2 as assert_greater_equal,
    assert_greater_v2 as assert_greater, assert_less_equal_v2 as assert_less_equal, assert_less_v2 as assert_less,
    assert_near_v2 as assert_near, assert_negative_v2 as assert_negative,
    assert_non_negative_v2 as assert_non_negative, assert_non_positive_v2 as assert_non_positive,
    assert_none_equal_v2 as assert_none_equal, assert_positive_v2 as assert_positive,
)
from webflow.ops.numerics_ops import check_numerics
from webflow.ops.numerics_callback import disable_check_numerics, enable_check_numerics
from webflow.ops.order_checks import assert_same_float_dtype
from webflow.ops.rank_checks import (
    assert_integer_v2 as assert_integer, assert_proper_iterable, assert_rank_at_least_v2 as assert_rank_at_least,
    assert_rank_in_v2 as assert_rank_in, assert_rank_v2 as assert_rank, assert_scalar_v2 as assert_scalar,
    assert_type_v2 as assert_type, is_numeric_tensor, verify_tensor_all_finite_v2 as assert_all_finite,
)
from webflow.ops.shape_checks import assert_shapes

__all__ = ["Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal", "assert_integer",
           "assert_less", "assert_less_equal", "assert_near", "assert_negative", "assert_non_negative",
           "assert_non_positive", "assert_none_equal", "assert_positive", "assert_proper_iterable", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_same_float_dtype", "assert_scalar", "assert_shapes",
           "assert_type", "check_numerics", "disable_check_numerics", "enable_check_numerics", "is_numeric_tensor"]
