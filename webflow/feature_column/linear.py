"""The linear model of canned linear Estimators: one weight vector per column plus a bias.

Dense columns contribute `dense @ weights`; a categorical column used directly contributes the sum of its
ids' weights (TF's `sparse_combiner='sum'`), or their mean ('mean') or sum / sqrt(n) ('sqrtn').
Variables: `<scope>/<column name>/weights`, `<scope>/bias_weights`, all starting at zero, columns in name order.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.columns import _id_counts, _id_weights
from webflow.framework import dtypes


def _combined_counts(column: Any, features: dict, sparse_combiner: str) -> Any:
    """A categorical column's id weights per row, scaled as `sparse_combiner` says: 'sum' as they are, 'mean'
    divided by their sum, 'sqrtn' by the square root of their sum of squares (rows without ids stay 0)."""
    from webflow.ops.binary_math_ops import div_no_nan
    from webflow.ops.sum_mean_ops import reduce_sum
    from webflow.ops.unary_math_ops import sqrt
    counts = _id_counts(column, features)
    if sparse_combiner == "sum":
        return counts
    weights = _id_weights(column, features)
    if sparse_combiner == "mean":
        return div_no_nan(counts, reduce_sum(weights, -1, keepdims=True))
    return div_no_nan(counts, sqrt(reduce_sum(weights * weights, -1, keepdims=True)))


def linear_logits(features: dict, feature_columns: Any, units: int = 1, sparse_combiner: str = "sum") -> Any:
    from webflow.ops.init_ops import Zeros
    from webflow.ops.math_ops import add_n
    from webflow.ops.matmul_ops import matmul
    from webflow.ops.variable_scope import get_variable, variable_scope
    terms = []
    with variable_scope("linear_model"):
        for column in sorted(feature_columns, key=lambda c: c.name):
            with variable_scope(column.name):
                if hasattr(column, "dense_tensor"):
                    inputs, width = column.dense_tensor(features), column.variable_shape
                else:
                    inputs, width = _combined_counts(column, features, sparse_combiner), column.num_buckets
                weights = get_variable("weights", [width, units], dtypes.float32, initializer=Zeros())
                terms.append(matmul(inputs, weights))
        bias = get_variable("bias_weights", [units], dtypes.float32, initializer=Zeros())
        return add_n(terms) + bias if len(terms) > 1 else terms[0] + bias
