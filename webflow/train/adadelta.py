"""`tf.train.AdadeltaOptimizer` (Zeiler 2012), with TensorFlow's learning-rate factor."""

from __future__ import annotations

from typing import Any

from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer


class AdadeltaOptimizer(Optimizer):
    """Adadelta; slots "accum" ("Variable/Adadelta") and "accum_update" ("Variable/Adadelta_1")."""

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8, use_locking: bool = False,
                 name: str = "Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="lr")
        self._rho_t = convert_to_tensor(self._call_if_callable(self._rho), name="rho")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        slots = [self.get_slot(var, "accum"), self.get_slot(var, "accum_update")]
        rest = [self._cast(self._lr_t, var), self._cast(self._rho_t, var), self._cast(self._epsilon_t, var), grad]
        return self._run_update("Adadelta", var, slots, rest, indices)
