"""The linear model of canned linear Estimators: one weight vector per column plus a bias.

Dense columns contribute `dense @ weights`; a categorical column used directly contributes the sum of its
ids' weights (TF's `sparse_combiner='sum'`). Variables: `<scope>/<column name>/weights`, `<scope>/bias_weights`,
all starting at zero, columns in name order.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.columns import _id_counts
from webflow.framework import dtypes


def linear_logits(features: dict, feature_columns: Any, units: int = 1) -> Any:
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
                    inputs, width = _id_counts(column, features), column.num_buckets
                weights = get_variable("weights", [width, units], dtypes.float32, initializer=Zeros())
                terms.append(matmul(inputs, weights))
        bias = get_variable("bias_weights", [units], dtypes.float32, initializer=Zeros())
        return add_n(terms) + bias if len(terms) > 1 else terms[0] + bias
