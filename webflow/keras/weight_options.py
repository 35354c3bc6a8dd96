"""The regularizer / constraint arguments a layer with a kernel and a bias keeps (`kernel_regularizer=` ...)."""

from __future__ import annotations

from typing import Any

from webflow.keras import constraints, regularizers


def set_weight_options(layer: Any, kernel_regularizer: Any, bias_regularizer: Any, kernel_constraint: Any,
                       bias_constraint: Any) -> None:
    """Each looked up by name (`"l2"`, `"max_norm"`) or kept as given; passed to add_weight in `build`."""
    for key, value in (("kernel_regularizer", regularizers.get(kernel_regularizer)),
                       ("bias_regularizer", regularizers.get(bias_regularizer)),
                       ("kernel_constraint", constraints.get(kernel_constraint)),
                       ("bias_constraint", constraints.get(bias_constraint))):
        object.__setattr__(layer, key, value)
