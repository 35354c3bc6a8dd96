"""`keras.optimizers.schedules`: learning rates as a function of the optimizer's step."""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend
from webflow.ops.binary_math_ops import pow as power
from webflow.ops.math_ops import cast
from webflow.ops.unary_math_ops import floor


class LearningRateSchedule:
    def __call__(self, step: Any) -> Any:
        raise NotImplementedError


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps) (the exponent floored when `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False,
                 name: str | None = None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase

    def __call__(self, step: Any) -> Any:
        exponent = cast(backend.convert_to_tensor(step), dtypes.float32) / float(self.decay_steps)
        if self.staircase:
            exponent = floor(exponent)
        rate = backend.constant(self.decay_rate, dtype=dtypes.float32)
        return backend.constant(self.initial_learning_rate, dtype=dtypes.float32) * power(rate, exponent)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": None}
