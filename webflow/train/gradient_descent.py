"""`tf.train.GradientDescentOptimizer`: var <- var - learning_rate * grad.

A dense gradient runs one ApplyGradientDescent op. An IndexedSlices gradient (an embedding lookup's) updates only
its rows, as TensorFlow does, without summing repeated indices first: ScatterSub of lr * rows on a TF1 variable,
ResourceScatterAdd of -rows * lr on a resource variable (gradient_descent.py's `_apply_sparse_duplicate_indices`).
"""

from __future__ import annotations

from typing import Any

from webflow.framework.indexed_slices import IndexedSlices
from webflow.ops import math_ops, scatter_ops
from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """Plain gradient descent (one ApplyGradientDescent op per variable, no slots)."""

    def __init__(self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        return self._run_update("GradientDescent", var, [], [self._cast(self._learning_rate_tensor, var), grad])

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        """var[indices[i]] -= lr * values[i], repeated indices one after the other (no de-duplication)."""
        delta = grad.values * self._cast(self._learning_rate_tensor, var)
        return scatter_ops.scatter_sub(var, grad.indices, delta, use_locking=self._use_locking)

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Any, indices: Any) -> Any:
        """var[indices[i]] += -values[i] * lr: ResourceScatterAdd, as TensorFlow writes it."""
        lr = math_ops.cast(self._learning_rate_tensor, grad.dtype.base_dtype)
        return scatter_ops.resource_scatter_add(var.handle, indices, -grad * lr)
