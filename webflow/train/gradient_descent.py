"""`tf.train.GradientDescentOptimizer`: var <- var - learning_rate * grad."""

from __future__ import annotations

from typing import Any

from webflow.framework.indexed_slices import IndexedSlices
from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer, dense_rows


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

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        # TensorFlow scatter-subtracts lr * rows; densifying the rows gives the same numbers.
        return self._apply_update(dense_rows(grad, var), var, None)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return self._apply_sparse(IndexedSlices(grad, indices, var.shape.as_list()), var)
