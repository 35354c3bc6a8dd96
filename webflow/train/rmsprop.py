"""`tf.train.RMSPropOptimizer`: TF1's RMSProp (rms slot starts at 1), optional momentum and centering."""

from __future__ import annotations

from typing import Any

from webflow.ops.convert import convert_to_tensor
from webflow.train.optimizer import Optimizer


class RMSPropOptimizer(Optimizer):
    """RMSProp; slots "rms" (ones), "mg" (zeros, centered only) and "momentum" (zeros), named
    "Variable/RMSProp", "Variable/RMSProp_1", ... in that order."""

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0, epsilon: Any = 1e-10,
                 use_locking: bool = False, centered: bool = False, name: str = "RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum, self._epsilon = learning_rate, decay, momentum, epsilon
        self._centered = centered

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._make_slot(v, 1.0, "rms", self._name, "ones")
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self) -> None:
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")
        self._decay_tensor = convert_to_tensor(self._call_if_callable(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(self._call_if_callable(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        rest = [self._cast(t, var) for t in (self._learning_rate_tensor, self._decay_tensor,
                                             self._momentum_tensor, self._epsilon_tensor)] + [grad]
        slots = [self.get_slot(var, "rms"), self.get_slot(var, "momentum")]
        if self._centered:
            return self._run_update("CenteredRMSProp", var, [self.get_slot(var, "mg")] + slots, rest, indices)
        return self._run_update("RMSProp", var, slots, rest, indices)
