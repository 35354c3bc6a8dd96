"""`keras.mixed_precision.LossScaleOptimizer`: dynamic loss scaling around another optimizer (tf_keras's V3 rules).

    scaled_loss = loss * S                 (get_scaled_loss; differentiate this one)
    gradients   = scaled_gradients / S     (get_unscaled_gradients)
    apply_gradients: if every gradient is finite -> the inner optimizer's step; counter += 1, and after
                     `dynamic_growth_steps` (2000) finite steps in a row S *= 2 (kept only if finite), counter = 0;
                     else (an inf / nan: S was too large) -> skip the step (only `iterations` advances),
                     S = max(S / 2, 1), counter = 0.
S starts at `initial_scale` (2**15). With dynamic=False, S stays `initial_scale` and every step is applied.
Eagerly the finiteness decision is a Python `if`; in a wf.function trace, a `cond`.
"""

from __future__ import annotations

from typing import Any

from webflow.autodiff.tape import GradientTape
from webflow.framework import context, dtypes
from webflow.keras import optimizers_state
from webflow.ops.convert import convert_to_tensor as backend_convert
from webflow.ops.math_ops import cast
from webflow.ops.reduction_ops import reduce_all
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.unary_math_ops import is_finite


class LossScaleOptimizer:
    """`LossScaleOptimizer(inner_optimizer, dynamic=True, initial_scale=None, dynamic_growth_steps=None)`."""

    def __init__(self, inner_optimizer: Any, dynamic: bool = True, initial_scale: float | None = None,
                 dynamic_growth_steps: int | None = None):
        from webflow.keras.optimizers import Optimizer
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError('"inner_optimizer" must be an instance of `tf.keras.optimizers.Optimizer` or '
                            f"`tf.keras.optimizers.experimental.Optimizer`, but got: {inner_optimizer}.")
        if not dynamic and initial_scale is None:
            raise ValueError('"initial_scale" must be specified if "dynamic" is False')
        if not dynamic and dynamic_growth_steps is not None:
            raise ValueError('"dynamic_growth_steps" must be None if "dynamic" is False, but got: '
                             f"{dynamic_growth_steps}")
        self._optimizer = inner_optimizer
        self._dynamic = bool(dynamic)
        self._initial_scale = float(2**15 if initial_scale is None else initial_scale)
        self._growth_steps = int(2000 if dynamic_growth_steps is None else dynamic_growth_steps) if dynamic else None
        self._scale = ResourceVariable(self._initial_scale, dtype=dtypes.float32, trainable=False,
                                       name="current_loss_scale")
        self._counter = ResourceVariable(0, dtype=dtypes.int64, trainable=False, name="good_steps")

    # --- the scale -----------------------------------------------------------------------------------

    @property
    def inner_optimizer(self) -> Any:
        return self._optimizer

    @property
    def dynamic(self) -> bool:
        return self._dynamic

    @property
    def initial_scale(self) -> float:
        return self._initial_scale

    @property
    def dynamic_growth_steps(self) -> int | None:
        return self._growth_steps

    @property
    def loss_scale(self) -> Any:
        return self._scale.read_value()

    @property
    def dynamic_counter(self) -> Any:
        return self._counter.read_value() if self._dynamic else None

    def get_scaled_loss(self, loss: Any) -> Any:
        """loss * S (a callable loss gives a callable)."""
        if callable(loss):
            return lambda: self.get_scaled_loss(loss())
        return loss * cast(self._scale.read_value(), loss.dtype)

    def get_unscaled_gradients(self, grads: list) -> list:
        """Each gradient * (1 / S), in the gradient's dtype (None stays None)."""
        reciprocal = 1.0 / self._scale.read_value()
        return [None if g is None else g * cast(reciprocal, g.dtype) for g in grads]

    # --- steps ---------------------------------------------------------------------------------------

    def _all_finite(self, grads: list) -> bool:
        return all(bool(reduce_all(is_finite(g)).numpy()) for g in grads if g is not None)

    def _update_scale(self, finite: bool) -> None:
        if not finite:
            self._scale.assign(max(float(self._scale.numpy()) / 2.0, 1.0))
            self._counter.assign(0)
        elif int(self._counter.numpy()) + 1 >= self._growth_steps:
            grown = self._scale * 2.0
            if bool(is_finite(grown).numpy()):
                self._scale.assign(grown)
            self._counter.assign(0)
        else:
            self._counter.assign_add(1)

    def _checkpoint_children(self) -> list:
        """Its edges in a checkpoint, as tf_keras's (the inner optimizer's, then `loss_scale`)."""
        return optimizers_state.loss_scale_children(self)

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> Any:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not self._dynamic:
            return self._optimizer.apply_gradients(pairs, name=name)
        if not context.executing_eagerly():
            return self._apply_traced(pairs, name)
        finite = self._all_finite([g for g, _ in pairs])
        self._update_scale(finite)
        if finite:
            return self._optimizer.apply_gradients(pairs, name=name)
        return self._optimizer.iterations.assign_add(1)   # a skipped step still counts, as in tf_keras

    def _apply_traced(self, pairs: list, name: str | None) -> Any:
        """The same rules as graph ops, for a step traced by wf.function: a `cond` on the gradients' finiteness."""
        from webflow.ops.binary_math_ops import maximum
        from webflow.ops.concat_ops import stack
        from webflow.ops.control_flow_ops import cond
        from webflow.ops.logic_ops import greater_equal, logical_and, where

        grads = [backend_convert(g) for g, _ in pairs]
        finite = reduce_all(stack([reduce_all(is_finite(g)) for g in grads]))

        def apply() -> Any:
            grow = greater_equal(self._counter.read_value() + 1, self._growth_steps)
            doubled = self._scale.read_value() * 2.0
            self._scale.assign(where(logical_and(grow, is_finite(doubled)), doubled, self._scale.read_value()))
            self._optimizer.apply_gradients(list(zip(grads, [v for _, v in pairs])), name=name)
            return where(grow, self._counter.read_value() * 0, self._counter.read_value() + 1)

        def skip() -> Any:
            self._scale.assign(maximum(self._scale.read_value() / 2.0, 1.0))
            self._optimizer.iterations.assign_add(1)
            return self._counter.read_value() * 0

        # The counter's assignment (a stateful op, always run) reads the cond's output, so the cond runs too.
        return self._counter.assign(cond(finite, apply, skip))

    def compute_gradients(self, loss: Any, var_list: Any, tape: Any = None) -> list:
        """Gradients of the scaled loss, unscaled: [(gradient, variable)]."""
        tape = GradientTape() if tape is None else tape
        with tape:
            scaled = self.get_scaled_loss(loss)
            if callable(scaled):
                scaled = scaled()
        var_list = var_list() if callable(var_list) else list(var_list)
        grads = tape.gradient(scaled, var_list)
        return list(zip(self.get_unscaled_gradients(grads), var_list))

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Any:
        return self.apply_gradients(self.compute_gradients(loss, var_list, tape))

    # --- the rest is the inner optimizer's ---------------------------------------------------------------

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_optimizer":
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    def variables(self) -> list:
        return [*self._optimizer.variables(), self._scale, self._counter]

    def get_config(self) -> dict:
        from webflow.keras import optimizers
        return {"inner_optimizer": optimizers.serialize(self._optimizer), "dynamic": self._dynamic,
                "initial_scale": self._initial_scale, "dynamic_growth_steps": self._growth_steps}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> LossScaleOptimizer:
        from webflow.keras import optimizers
        config = dict(config)
        config["inner_optimizer"] = optimizers.deserialize(config["inner_optimizer"], custom_objects)
        return cls(**config)

