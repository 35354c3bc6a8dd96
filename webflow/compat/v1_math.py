"""`tf.compat.v1.math`: TF2's math namespace with TF1's signatures for reductions and argmax
(`keep_dims`, `reduction_indices`, `dimension`)."""

# ruff: noqa: F401, F403, I001
from webflow.math import *
from webflow.math import __all__ as _v2_names
from webflow.ops.reduction_ops import (
    argmax_v1 as argmax, argmin_v1 as argmin, count_nonzero_v1 as count_nonzero, reduce_all_v1 as reduce_all,
    reduce_any_v1 as reduce_any, reduce_logsumexp_v1 as reduce_logsumexp, reduce_max_v1 as reduce_max,
    reduce_min_v1 as reduce_min, reduce_prod_v1 as reduce_prod,
)

__all__ = list(_v2_names)
