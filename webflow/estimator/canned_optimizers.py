"""The optimizers of TF 2.15's premade Estimators: `tf.keras.optimizers.legacy.*`, run in the Estimator's graph.

TF 2.15's `tf.estimator.DNNClassifier(optimizer='Adagrad')` builds `tf.keras.optimizers.legacy.Adagrad()`
(its default learning rate, 0.001) and makes the global step its `iterations`; the linear models use
`Ftrl(learning_rate=0.2)`. Those updates are written here with graph ops (no Keras needed), with Keras's
defaults and the checkpoint names TF writes: slots `training/<Name>/<variable>/<slot>`, hyper-parameters
`training/<Name>/learning_rate`, `training/<Name>/decay`, ...

| name | update (g = gradient) |
|---|---|
| SGD | var -= lr * g |
| Adagrad | acc += g^2; var -= lr * g / (sqrt(acc) + 1e-7)  (acc starts at 0.1) |
| Ftrl | acc' = acc + g^2; lin += g - (sqrt(acc') - sqrt(acc)) / lr * var; var = -lin / (sqrt(acc') / lr) |
| Adam | m, v moments; var -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + 1e-7) |
| RMSProp | ms = 0.9 ms + 0.1 g^2; var -= lr * g / (sqrt(ms) + 1e-7) |
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.ftrl_math import ftrl_update
from webflow.framework import dtypes

_DEFAULT_LEARNING_RATES = {"SGD": 0.01, "Adagrad": 0.001, "Ftrl": 0.001, "Adam": 0.001, "RMSProp": 0.001}
_EPSILON = 1e-7  # Keras's backend.epsilon()
_KERAS_NAMES = {"RMSProp": "RMSprop"}


class CannedOptimizer:
    """A Keras-legacy optimizer for premade Estimators: `get_updates(loss, var_list, global_step)`."""

    def __init__(self, name: str, learning_rate: float | None = None):
        self.kind = name
        self.name = _KERAS_NAMES.get(name, name)  # the Keras class name, which scopes its variables
        self.learning_rate = _DEFAULT_LEARNING_RATES[name] if learning_rate is None else learning_rate
        self._hyper_tensors: dict = {}

    def _variable(self, name: str, value: Any, shape: list, dtype: Any = dtypes.float32) -> Any:
        from webflow.ops.array_ops import fill
        from webflow.ops.convert import convert_to_tensor
        from webflow.ops.state_ops import RefVariable
        from webflow.ops.variable_scope import _root_name_scope
        with _root_name_scope():  # names from the root, outside any control dependencies (TF's init_scope)
            initial = fill(shape, convert_to_tensor(value, dtype)) if shape else convert_to_tensor(value, dtype)
            return RefVariable(initial, trainable=False, name=f"training/{self.name}/{name}")

    def _hyper(self, name: str, value: float) -> Any:
        if name not in self._hyper_tensors:
            self._hyper_tensors[name] = self._variable(name, value, []).value()
        return self._hyper_tensors[name]

    def _slot(self, var: Any, slot: str, value: float) -> Any:
        return self._variable(f"{var.op.name}/{slot}", value, var.shape.as_list())

    def get_updates(self, loss: Any, var_list: list, global_step: Any = None) -> Any:
        """One training step: the update of every variable, then global_step += 1 (Keras's `iterations`;
        without a global step, the optimizer's own `training/<Name>/iter`)."""
        from webflow.autodiff.gradients import gradients
        from webflow.framework.scopes import control_dependencies, name_scope_v1
        from webflow.ops.control_flow_ops import group
        from webflow.ops.state_ops import assign_add
        if global_step is None:
            global_step = self._variable("iter", 0, [], dtypes.int64)
        grads = gradients(loss, var_list)
        learning_rate = self._hyper("learning_rate", self.learning_rate)
        self._hyper("decay", 0.0)
        updates = []
        with name_scope_v1(None, f"training/{self.name}"):
            for grad, var in zip(grads, var_list):
                if grad is not None:
                    updates.append(self._apply(grad, var, learning_rate, global_step))
            with control_dependencies(updates):
                return group(assign_add(global_step, 1))

    def _apply(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        from webflow.ops.convert import convert_to_tensor
        grad = convert_to_tensor(grad)  # an embedding's IndexedSlices gradient as a dense one
        return getattr(self, f"_apply_{self.kind.lower()}")(grad, var, lr, step)

    def _apply_sgd(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        from webflow.ops.state_ops import assign_sub
        self._hyper("momentum", 0.0)
        return assign_sub(var, lr * grad)

    def _apply_adagrad(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        from webflow.framework.scopes import control_dependencies
        from webflow.ops.state_ops import assign, assign_add
        from webflow.ops.unary_math_ops import sqrt, square
        accumulator = self._slot(var, "accumulator", 0.1)
        new_accumulator = assign_add(accumulator, square(grad))
        with control_dependencies([new_accumulator]):
            return assign(var, var - lr * grad / (sqrt(new_accumulator) + _EPSILON))

    def _apply_ftrl(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        accumulator = self._slot(var, "accumulator", 0.1)
        linear = self._slot(var, "linear", 0.0)
        for name, value in (("learning_rate_power", -0.5), ("l1_regularization_strength", 0.0),
                            ("l2_regularization_strength", 0.0), ("beta", 0.0)):
            self._hyper(name, value)
        return ftrl_update(grad, var, accumulator, linear, lr)

    def _apply_adam(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        from webflow.framework.scopes import control_dependencies
        from webflow.ops.math_ops import cast
        from webflow.ops.state_ops import assign
        from webflow.ops.unary_math_ops import sqrt, square
        beta_1, beta_2 = self._hyper("beta_1", 0.9), self._hyper("beta_2", 0.999)
        m, v = self._slot(var, "m", 0.0), self._slot(var, "v", 0.0)
        t = cast(step, dtypes.float32) + 1.0
        lr_t = lr * sqrt(1.0 - beta_2 ** t) / (1.0 - beta_1 ** t)
        new_m = assign(m, beta_1 * m + (1.0 - beta_1) * grad)
        new_v = assign(v, beta_2 * v + (1.0 - beta_2) * square(grad))
        with control_dependencies([new_m, new_v]):
            return assign(var, var - lr_t * new_m / (sqrt(new_v) + _EPSILON))

    def _apply_rmsprop(self, grad: Any, var: Any, lr: Any, step: Any) -> Any:
        from webflow.framework.scopes import control_dependencies
        from webflow.ops.state_ops import assign
        from webflow.ops.unary_math_ops import sqrt, square
        rho = self._hyper("rho", 0.9)
        self._hyper("momentum", 0.0)
        ms = self._slot(var, "rms", 0.0)
        new_ms = assign(ms, rho * ms + (1.0 - rho) * square(grad))
        with control_dependencies([new_ms]):
            return assign(var, var - lr * grad / (sqrt(new_ms) + _EPSILON))


def _v1_optimizer(name: str, learning_rate: float) -> Any:
    """tf.compat.v1.estimator's choice for a name: the TF1 `tf.compat.v1.train` optimizer."""
    from webflow.estimator.ftrl_v1 import FtrlOptimizer
    from webflow.train.adagrad import AdagradOptimizer
    from webflow.train.adam import AdamOptimizer
    from webflow.train.gradient_descent import GradientDescentOptimizer
    from webflow.train.rmsprop import RMSPropOptimizer
    classes = {"Adagrad": AdagradOptimizer, "Adam": AdamOptimizer, "Ftrl": FtrlOptimizer,
               "RMSProp": RMSPropOptimizer, "SGD": GradientDescentOptimizer}
    return classes[name](learning_rate=learning_rate)


# Keras optimizer class -> (its name here, the settings these updates are written for)
_KERAS_DEFAULTS = {
    "SGD": ("SGD", {"momentum": 0.0, "nesterov": False}),
    "Adagrad": ("Adagrad", {"initial_accumulator_value": 0.1, "epsilon": 1e-7}),
    "Ftrl": ("Ftrl", {"learning_rate_power": -0.5, "initial_accumulator_value": 0.1, "beta": 0.0,
                      "l1_regularization_strength": 0.0, "l2_regularization_strength": 0.0,
                      "l2_shrinkage_regularization_strength": 0.0}),
    "Adam": ("Adam", {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}),
    "RMSprop": ("RMSProp", {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}),
}


def _from_keras(optimizer: Any) -> CannedOptimizer:
    """A `tf.keras.optimizers.*` object as its graph-mode twin (TF 2.15 converts it to the legacy optimizer)."""
    kind = type(optimizer).__name__
    if kind not in _KERAS_DEFAULTS:
        raise ValueError(f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {optimizer}")
    name, defaults = _KERAS_DEFAULTS[kind]
    config = optimizer.get_config()
    for key, default in defaults.items():
        value = config.get(key, default)
        if value != default and not (isinstance(default, float) and abs(value - default) < 1e-9):
            raise NotImplementedError(f"webflow's premade Estimators run {kind} with {key}={default!r} only "
                                      f"(given {value!r}).")
    return CannedOptimizer(name, float(config["learning_rate"]))


def get_optimizer(optimizer: Any, learning_rate: float | None = None, v1: bool = False) -> Any:
    """TF's `get_optimizer_instance_v2`: a name (with `learning_rate` or the optimizer's default), an
    optimizer, or a callable returning one. A TF1 `tf.compat.v1.train` optimizer is also accepted.
    With `v1`, TF's `get_optimizer_instance`: a name gives the TF1 optimizer at `learning_rate`."""
    if isinstance(optimizer, str):
        if optimizer not in _DEFAULT_LEARNING_RATES:
            raise ValueError(f"Unsupported optimizer name: {optimizer}. Supported names are: "
                             f"{tuple(sorted(_DEFAULT_LEARNING_RATES))}")
        if v1:
            return _v1_optimizer(optimizer, learning_rate)
        return CannedOptimizer(optimizer, learning_rate)
    if callable(optimizer) and not hasattr(optimizer, "minimize") and not hasattr(optimizer, "get_updates"):
        optimizer = optimizer()
    if hasattr(optimizer, "update_step") and hasattr(optimizer, "get_config"):
        return _from_keras(optimizer)
    if not (hasattr(optimizer, "minimize") or hasattr(optimizer, "get_updates")):
        raise ValueError(f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {optimizer}")
    return optimizer


def train_op(optimizer: Any, loss: Any, var_list: list, global_step: Any = None) -> Any:
    """The op that takes one step and increments the global step, whichever kind of optimizer this is."""
    if isinstance(optimizer, CannedOptimizer):
        return optimizer.get_updates(loss, var_list, global_step)
    return optimizer.minimize(loss, global_step=global_step, var_list=var_list)
