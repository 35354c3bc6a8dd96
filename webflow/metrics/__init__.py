"""`tf.metrics` (TF1): streaming metrics returning (value, update_op) backed by local variables.

Each section belongs to the module that defines the names.
"""

# ruff: noqa: F401, I001  (sections, one per module, rather than one sorted block)

# --- mean, accuracy, mean_squared_error, precision, recall (metrics/metrics_impl.py) ---
from webflow.metrics.metrics_impl import (
    accuracy, false_negatives, false_positives, mean, mean_squared_error, precision, recall, true_positives,
)

# --- auc (metrics/auc_impl.py) ---
from webflow.metrics.auc_impl import auc
