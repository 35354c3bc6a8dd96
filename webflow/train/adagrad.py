"""`tf.train.AdagradOptimizer`: accum <- accum + grad^2; var <- var - lr * grad / sqrt(accum)."""

from __future__ import annotations

from typing import Any

from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer


class AdagradOptimizer(Optimizer):
    """Adagrad; slot "accumulator" ("Variable/Adagrad") starts at `initial_accumulator_value`."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: float = 0.1, use_locking: bool = False,
                 name: str = "Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._make_slot(v, self._initial_accumulator_value, "accumulator", self._name, "Const")

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        rest = [self._cast(self._learning_rate_tensor, var), grad]
        return self._run_update("Adagrad", var, [self.get_slot(var, "accumulator")], rest, indices,
                                {"update_slots": True})
