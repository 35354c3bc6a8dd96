"""The FTRL-Proximal step both FTRL optimizers of the premade Estimators take (Keras's and TF1's)."""

from __future__ import annotations

from typing import Any


def ftrl_update(grad: Any, var: Any, accumulator: Any, linear: Any, lr: Any) -> Any:
    """FTRL-Proximal with learning_rate_power -0.5 and no l1 / l2 (TF's ApplyFtrl): returns the last assign."""
    from webflow.framework.scopes import control_dependencies
    from webflow.ops.state_ops import assign
    from webflow.ops.unary_math_ops import sqrt, square
    new_accumulator = accumulator + square(grad)
    new_linear = assign(linear, linear + grad - (sqrt(new_accumulator) - sqrt(accumulator)) / lr * var)
    with control_dependencies([new_linear]):
        new_var = assign(var, -new_linear / (sqrt(new_accumulator) / lr))
    with control_dependencies([new_var]):
        return assign(accumulator, new_accumulator)
