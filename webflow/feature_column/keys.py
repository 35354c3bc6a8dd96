"""`feature_keys(column)`: the keys of the features dict a column reads, in the order it reads them."""

from __future__ import annotations

from typing import Any

from webflow.feature_column.crossed import CrossedColumn, leaf_keys


def feature_keys(column: Any) -> list[str]:
    """The features-dict keys `column` needs (TF: "Feature <key> is not in features dictionary." when absent)."""
    if isinstance(column, CrossedColumn):
        found: list[str] = []
        for key in leaf_keys(column.keys):
            found += [key] if isinstance(key, str) else feature_keys(key)
        return found
    for inner in ("categorical_column", "source_column"):   # indicator, embedding, weighted; bucketized
        if hasattr(column, inner):
            keys = feature_keys(getattr(column, inner))
            weight_key = getattr(column, "weight_feature_key", None)
            return keys + [weight_key] if weight_key else keys
    return [column.key]
