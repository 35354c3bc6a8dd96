"""`tf.train.MomentumOptimizer`: accum <- momentum * accum + grad; var <- var - lr * accum (or Nesterov)."""

from __future__ import annotations

from typing import Any

from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer


class MomentumOptimizer(Optimizer):
    """Gradient descent with momentum; slot "momentum" ("Variable/Momentum")."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        rest = [self._cast(self._learning_rate_tensor, var), grad, self._cast(self._momentum_tensor, var)]
        return self._run_update("Momentum", var, [self.get_slot(var, "momentum")], rest, indices,
                                {"use_nesterov": self._use_nesterov})
