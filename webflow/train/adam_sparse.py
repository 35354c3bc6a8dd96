"""Adam's update for an IndexedSlices gradient, as TensorFlow 1.x's AdamOptimizer builds it (`_apply_sparse_shared`).

Every entry of m and v decays, then the gradient's rows are scatter-added, then the whole variable moves:

    lr = lr_t * sqrt(1 - beta2^t) / (1 - beta1^t)
    m <- m * beta1;  m[indices] += grad * (1 - beta1)
    v <- v * beta2;  v[indices] += (grad * grad) * (1 - beta2)
    var <- var - lr * m / (sqrt(v) + epsilon)

The ops are ordinary ones (Assign, ScatterAdd or ResourceScatterAdd, Sqrt, AssignSub ...) with TensorFlow's names,
in TensorFlow's order; the rounding differs from the fused dense ApplyAdam (whose bias correction is folded
differently), exactly as it does in TensorFlow.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.framework.scopes import control_dependencies
from webflow.ops import math_ops, scatter_ops, state_ops, unary_math_ops
from webflow.ops.control_flow_ops import group


def apply_sparse_shared(optimizer: Any, grad: Any, var: Any, indices: Any, scatter_add: Callable) -> Any:
    """The update ops for rows `indices` of `var` with gradient rows `grad`; `scatter_add(slot, indices, rows)`
    adds rows into a slot and returns its new value."""
    dtype = var.dtype.base_dtype
    beta1_power, beta2_power = optimizer._get_beta_accumulators()
    beta1_power, beta2_power = math_ops.cast(beta1_power, dtype), math_ops.cast(beta2_power, dtype)
    lr_t, beta1_t, beta2_t, epsilon_t = (math_ops.cast(t, dtype) for t in (
        optimizer._lr_t, optimizer._beta1_t, optimizer._beta2_t, optimizer._epsilon_t))
    lr = (lr_t * unary_math_ops.sqrt(1 - beta2_power) / (1 - beta1_power))
    m = optimizer.get_slot(var, "m")
    m_scaled_g_values = grad * (1 - beta1_t)
    m_t = state_ops.assign(m, m * beta1_t, use_locking=optimizer._use_locking)
    with control_dependencies([m_t]):
        m_t = scatter_add(m, indices, m_scaled_g_values)
    v = optimizer.get_slot(var, "v")
    v_scaled_g_values = (grad * grad) * (1 - beta2_t)
    v_t = state_ops.assign(v, v * beta2_t, use_locking=optimizer._use_locking)
    with control_dependencies([v_t]):
        v_t = scatter_add(v, indices, v_scaled_g_values)
    v_sqrt = unary_math_ops.sqrt(v_t)
    var_update = state_ops.assign_sub(var, lr * m_t / (v_sqrt + epsilon_t), use_locking=optimizer._use_locking)
    return group(*[var_update, m_t, v_t])


def ref_scatter_add(use_locking: bool) -> Callable:
    """ScatterAdd on a TF1 variable; its output is the slot's new value."""
    return lambda slot, indices, rows: scatter_ops.scatter_add(slot, indices, rows, use_locking=use_locking)


def resource_scatter_add(slot: Any, indices: Any, rows: Any) -> Any:
    """ResourceScatterAdd, then the slot's value read after it (TensorFlow's `_resource_scatter_add`)."""
    update = scatter_ops.resource_scatter_add(slot.handle, indices, rows)
    with control_dependencies([] if update is None else [update]):
        return slot.value()
