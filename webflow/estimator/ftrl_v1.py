"""TF1's `tf.compat.v1.train.FtrlOptimizer` as tf.compat.v1.estimator's linear models use it by default.

Only learning_rate_power=-0.5 with no l1 / l2 regularization (the canned defaults) is written, with the
update of ftrl_math.py. Slots, as TF names them: `<var>/Ftrl` (the accumulator, starting at
`initial_accumulator_value`) and `<var>/Ftrl_1` (the "linear" term, starting at 0).
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.ftrl_math import ftrl_update
from webflow.train.optimizer import Optimizer


class FtrlOptimizer(Optimizer):
    def __init__(self, learning_rate: Any, learning_rate_power: float = -0.5, initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0, l2_regularization_strength: float = 0.0,
                 use_locking: bool = False, name: str = "Ftrl"):
        if learning_rate_power != -0.5 or l1_regularization_strength or l2_regularization_strength:
            raise NotImplementedError("webflow's FtrlOptimizer has only learning_rate_power=-0.5 and no l1 / l2.")
        super().__init__(use_locking, name)
        self._learning_rate, self._initial_accumulator_value = learning_rate, initial_accumulator_value

    def _create_slots(self, var_list: list) -> None:
        for v in var_list:
            self._make_slot(v, self._initial_accumulator_value, "accum", self._name, "Const")
            self._zeros_slot(v, "linear", self._name)   # "<var>/Ftrl_1": slot names are made unique, as TF's

    def _prepare(self) -> None:
        from webflow.ops.convert import convert_to_tensor
        self._learning_rate_tensor = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                       name="learning_rate")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        from webflow.ops.convert import convert_to_tensor
        if indices is not None:
            raise NotImplementedError("webflow's FtrlOptimizer updates dense gradients only.")
        return ftrl_update(convert_to_tensor(grad), var, self.get_slot(var, "accum"), self.get_slot(var, "linear"),
                           self._cast(self._learning_rate_tensor, var))

    def _apply_sparse(self, grad: Any, var: Any) -> Any:
        from webflow.ops.convert import convert_to_tensor
        return self._apply_update(convert_to_tensor(grad), var, None)  # the rows as a dense gradient
