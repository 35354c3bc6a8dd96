"""TF1 learning-rate schedules: functions of `global_step` built from graph ops.

In graph mode each returns the decayed learning rate as a tensor (re-evaluated on every run, so it
follows the global step); executing eagerly it returns a no-argument callable, as TensorFlow does,
which optimizers call on every step.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

from webflow.framework import context
from webflow.framework.scopes import name_scope_v1 as name_scope
from webflow.ops import math_ops
from webflow.ops.convert import convert_to_tensor
from webflow.train import _math


def _schedule(function: Callable) -> Callable:
    """Builds now (graph mode) or returns a callable that builds on each call (eager)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if context.executing_eagerly():
            return functools.partial(function, *args, **kwargs)
        return function(*args, **kwargs)

    return wrapper


def _check_step(global_step: Any, what: str) -> None:
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")


def _progress(global_step: Any, decay_steps: Any, dtype: Any, staircase: bool) -> Any:
    """global_step / decay_steps in the learning rate's dtype, floored when `staircase` (steps in whole periods)."""
    p = math_ops.truediv(math_ops.cast(global_step, dtype), math_ops.cast(decay_steps, dtype))
    return _math.floor(p) if staircase else p


@_schedule
def exponential_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Any:
    """learning_rate * decay_rate ^ (global_step / decay_steps)  (exponent floored when `staircase`)."""
    _check_step(global_step, "exponential_decay")
    with name_scope(name, "ExponentialDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = initial.dtype
        p = _progress(global_step, decay_steps, dtype, staircase)
        return math_ops.multiply(initial, _math.pow(math_ops.cast(decay_rate, dtype), p), name=scope or None)


@_schedule
def inverse_time_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                       staircase: bool = False, name: str | None = None) -> Any:
    """learning_rate / (1 + decay_rate * global_step / decay_steps)  (floored ratio when `staircase`)."""
    _check_step(global_step, "inverse_time_decay")
    with name_scope(name, "InverseTimeDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = initial.dtype
        p = _progress(global_step, decay_steps, dtype, staircase)
        denominator = math_ops.add(math_ops.cast(1, dtype), math_ops.multiply(math_ops.cast(decay_rate, dtype), p))
        return math_ops.truediv(initial, denominator, name=scope or None)


@_schedule
def natural_exp_decay(learning_rate: Any, global_step: Any, decay_steps: Any, decay_rate: Any,
                      staircase: bool = False, name: str | None = None) -> Any:
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _check_step(global_step, "natural_exp_decay")
    with name_scope(name, "NaturalExpDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = initial.dtype
        p = _progress(global_step, decay_steps, dtype, staircase)
        exponent = _math.exp(math_ops.multiply(math_ops.negative(math_ops.cast(decay_rate, dtype)), p))
        return math_ops.multiply(initial, exponent, name=scope or None)


@_schedule
def polynomial_decay(learning_rate: Any, global_step: Any, decay_steps: Any, end_learning_rate: Any = 0.0001,
                     power: Any = 1.0, cycle: bool = False, name: str | None = None) -> Any:
    """(learning_rate - end) * (1 - step / decay_steps) ^ power + end, with step = min(global_step, decay_steps);
    with `cycle`, decay_steps grows to decay_steps * ceil(global_step / decay_steps) instead."""
    _check_step(global_step, "polynomial_decay")
    with name_scope(name, "PolynomialDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = initial.dtype
        end = math_ops.cast(end_learning_rate, dtype)
        step = math_ops.cast(global_step, dtype)
        steps = math_ops.cast(decay_steps, dtype)
        if cycle:  # TF: multiplier = 1 at step 0, else ceil(step / decay_steps); max(ceil, 1) is the same number
            steps = math_ops.multiply(steps, _math.maximum(_math.ceil(math_ops.truediv(step, steps)), 1.0))
        else:
            step = _math.minimum(step, steps)
        p = math_ops.truediv(step, steps)
        decayed = math_ops.multiply(math_ops.subtract(initial, end),
                                    _math.pow(math_ops.subtract(1.0, p), math_ops.cast(power, dtype)))
        return math_ops.add(decayed, end, name=scope or None)


@_schedule
def cosine_decay(learning_rate: Any, global_step: Any, decay_steps: Any, alpha: float = 0.0,
                 name: str | None = None) -> Any:
    """learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * min(global_step, decay_steps) / decay_steps)) + alpha)."""
    _check_step(global_step, "cosine decay")
    with name_scope(name, "CosineDecay") as scope:
        initial = convert_to_tensor(learning_rate, name="initial_learning_rate")
        dtype = initial.dtype
        steps = math_ops.cast(decay_steps, dtype)
        fraction = math_ops.truediv(_math.minimum(math_ops.cast(global_step, dtype), steps), steps)
        cosine = math_ops.multiply(0.5, math_ops.add(1.0, _math.cos(math_ops.multiply(math.pi, fraction))))
        decayed = math_ops.add(math_ops.multiply(1.0 - alpha, cosine), alpha)
        return math_ops.multiply(initial, decayed, name=scope or None)


@_schedule
def piecewise_constant(x: Any, boundaries: list, values: list, name: str | None = None) -> Any:
    """values[0] while x <= boundaries[0], values[i] while boundaries[i-1] < x <= boundaries[i], values[-1] after.

    TensorFlow selects with `tf.case`; here the one true interval's indicator (0 or 1) weights each value.
    """
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values")
    with name_scope(name, "PiecewiseConstant") as scope:
        x = convert_to_tensor(x)
        bounds = [math_ops.cast(convert_to_tensor(b), x.dtype.base_dtype) for b in boundaries]
        tensors = [convert_to_tensor(v) for v in values]
        if len({t.dtype.base_dtype for t in tensors}) > 1:
            raise ValueError(f"Values must have elements all with the same dtype "
                             f"({[t.dtype.base_dtype for t in tensors]}).")
        dtype = tensors[0].dtype.base_dtype
        predicates = [_math.less_equal(x, bounds[0])]
        predicates += [_math.logical_and(_math.greater(x, low), _math.less_equal(x, high))
                       for low, high in zip(bounds[:-1], bounds[1:])]
        predicates.append(_math.greater(x, bounds[-1]))
        terms = [math_ops.multiply(math_ops.cast(p, dtype), v) for p, v in zip(predicates, tensors)]
        return math_ops.add_n(terms, name=scope or None)


__all__ = ["exponential_decay", "inverse_time_decay", "natural_exp_decay", "polynomial_decay", "cosine_decay",
           "piecewise_constant"]
