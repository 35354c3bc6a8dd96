"""`keras.optimizers.schedules`: learning rates as a function of the optimizer's step."""

from __future__ import annotations

import math
from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend
from webflow.keras.serialization import serialize_keras_object
from webflow.ops.binary_math_ops import pow as power
from webflow.ops.math_ops import cast
from webflow.ops.unary_math_ops import floor


class LearningRateSchedule:
    def __call__(self, step: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """initial_learning_rate * decay_rate ^ (step / decay_steps) (the exponent floored when `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False,
                 name: str | None = None):
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step: Any) -> Any:
        exponent = cast(backend.convert_to_tensor(step), dtypes.float32) / float(self.decay_steps)
        if self.staircase:
            exponent = floor(exponent)
        rate = backend.constant(self.decay_rate, dtype=dtypes.float32)
        return backend.constant(self.initial_learning_rate, dtype=dtypes.float32) * power(rate, exponent)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


def _f32(value: Any) -> Any:
    """A float32 tensor of a step (an int64 variable, a tensor or a number) or a Python hyperparameter."""
    if hasattr(value, "dtype"):
        return cast(backend.convert_to_tensor(value), dtypes.float32)
    return backend.constant(float(value), dtype=dtypes.float32)


class PiecewiseConstantDecay(LearningRateSchedule):
    """values[0] while step <= boundaries[0], values[i] while boundaries[i-1] < step <= boundaries[i], then the last."""

    def __init__(self, boundaries: list, values: list, name: str | None = None):
        if len(boundaries) != len(values) - 1:
            raise ValueError("The length of boundaries should be 1 less than the length of values. "
                             f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                             f"values={values} of length {len(values)}.")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step: Any) -> Any:
        from webflow.ops.logic_ops import greater, where
        t = _f32(step)
        result = _f32(self.values[0])
        for boundary, value in zip(self.boundaries, self.values[1:]):
            result = where(greater(t, _f32(boundary)), _f32(value), result)
        return result

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """(initial - end) * (1 - min(step, decay_steps) / decay_steps) ^ power + end; with `cycle` decay_steps grows
    to the next multiple of itself past the step."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, end_learning_rate: float = 0.0001,
                 power: float = 1.0, cycle: bool = False, name: str | None = None):
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power, self.cycle, self.name = end_learning_rate, power, cycle, name

    def __call__(self, step: Any) -> Any:
        from webflow.ops.binary_math_ops import minimum
        from webflow.ops.logic_ops import equal, where
        from webflow.ops.unary_math_ops import ceil
        t, steps = _f32(step), _f32(self.decay_steps)
        if self.cycle:
            steps = steps * where(equal(t, _f32(0.0)), _f32(1.0), ceil(t / steps))
        else:
            t = minimum(t, steps)
        fraction = t / steps
        span = _f32(self.initial_learning_rate) - _f32(self.end_learning_rate)
        return span * power(1.0 - fraction, _f32(self.power)) + _f32(self.end_learning_rate)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "end_learning_rate": self.end_learning_rate, "power": self.power, "cycle": self.cycle,
                "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """initial_learning_rate / (1 + decay_rate * step / decay_steps) (the fraction floored when `staircase`)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, decay_rate: float, staircase: bool = False,
                 name: str | None = None):
        self.initial_learning_rate, self.decay_steps, self.decay_rate = initial_learning_rate, decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step: Any) -> Any:
        fraction = _f32(step) / _f32(self.decay_steps)
        if self.staircase:
            fraction = floor(fraction)
        return _f32(self.initial_learning_rate) / (1.0 + _f32(self.decay_rate) * fraction)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "decay_rate": self.decay_rate, "staircase": self.staircase, "name": self.name}


def _cosine(fraction: Any, alpha: float, scale: Any = 1.0) -> Any:
    """(1 - alpha) * 0.5 * scale * (1 + cos(pi * fraction)) + alpha."""
    from webflow.ops.unary_math_ops import cos
    decayed = 0.5 * scale * (1.0 + cos(_f32(math.pi) * fraction))
    return (1.0 - alpha) * decayed + alpha


class CosineDecay(LearningRateSchedule):
    """Optional linear warmup from initial_learning_rate to warmup_target over warmup_steps, then
    lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""

    def __init__(self, initial_learning_rate: float, decay_steps: int, alpha: float = 0.0, name: str | None = None,
                 warmup_target: float | None = None, warmup_steps: int = 0):
        self.initial_learning_rate, self.decay_steps, self.alpha, self.name = (
            initial_learning_rate, decay_steps, alpha, name)
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def __call__(self, step: Any) -> Any:
        from webflow.ops.binary_math_ops import minimum
        from webflow.ops.logic_ops import less, where
        t, steps = _f32(step), _f32(self.decay_steps)
        if self.warmup_target is None:
            return _f32(self.initial_learning_rate) * _cosine(minimum(t, steps) / steps, self.alpha)
        warmup = _f32(self.warmup_steps)
        t = minimum(t, steps + warmup)
        target, initial = _f32(self.warmup_target), _f32(self.initial_learning_rate)
        rising = (target - initial) * (t / warmup) + initial
        falling = target * _cosine((t - warmup) / steps, self.alpha)
        return where(less(t, warmup), rising, falling)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "decay_steps": self.decay_steps,
                "alpha": self.alpha, "name": self.name, "warmup_target": self.warmup_target,
                "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay restarted after first_decay_steps, each period t_mul times longer and m_mul times lower
    (SGDR): with f = step / first_decay_steps, restart i = floor(log(1 - f (1 - t_mul)) / log(t_mul))."""

    def __init__(self, initial_learning_rate: float, first_decay_steps: int, t_mul: float = 2.0,
                 m_mul: float = 1.0, alpha: float = 0.0, name: str | None = None):
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, first_decay_steps
        self.t_mul, self.m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def __call__(self, step: Any) -> Any:
        from webflow.ops.unary_math_ops import log
        fraction = _f32(step) / _f32(self.first_decay_steps)
        t_mul = _f32(self.t_mul)
        if self.t_mul == 1.0:
            restart = floor(fraction)
            fraction = fraction - restart
        else:
            restart = floor(log(1.0 - fraction * (1.0 - t_mul)) / log(t_mul))
            done = (1.0 - power(t_mul, restart)) / (1.0 - t_mul)
            fraction = (fraction - done) / power(t_mul, restart)
        scale = power(_f32(self.m_mul), restart)
        return _f32(self.initial_learning_rate) * _cosine(fraction, self.alpha, scale)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate, "first_decay_steps": self.first_decay_steps,
                "t_mul": self.t_mul, "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


def serialize(schedule: LearningRateSchedule) -> dict:
    return serialize_keras_object(schedule, "keras.optimizers.schedules")


def deserialize(config: dict, custom_objects: Any = None) -> LearningRateSchedule:
    classes = {cls.__name__: cls for cls in (ExponentialDecay, PiecewiseConstantDecay, PolynomialDecay,
                                            InverseTimeDecay, CosineDecay, CosineDecayRestarts)}
    classes.update(custom_objects or {})
    return classes[config["class_name"]].from_config(config["config"])
