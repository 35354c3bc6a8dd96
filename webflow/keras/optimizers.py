"""`keras.optimizers` (= `tf.optimizers`): tf_keras's optimizers (the Keras 2.11+ ones), each update rule one method.

    SGD       m = momentum * m - lr * g;  var += m  (nesterov: var += momentum * m - lr * g); no momentum: var -= lr*g
    Adam      m += (g - m)(1 - b1);  v += (g^2 - v)(1 - b2);
              var -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)   (the factor in float32)
    RMSprop   v = rho v + (1 - rho) g^2;  var -= lr * g / sqrt(v + eps)
    Adagrad   a += g^2 (a starts at 0.1);  var -= lr * g / sqrt(a + eps)
`iterations` counts applied steps; `learning_rate` may be a schedule of it.
"""

from __future__ import annotations

from typing import Any

from webflow.autodiff.tape import GradientTape
from webflow.framework import dtypes
from webflow.keras import backend, schedules
from webflow.keras.schedules import LearningRateSchedule
from webflow.ops import unary_math_ops
from webflow.ops.resource_variable_ops import ResourceVariable


class Optimizer:
    """The base: `apply_gradients(grads_and_vars)`, `minimize(loss, var_list, tape=None)`, `iterations`."""

    def __init__(self, learning_rate: Any = 0.001, name: str = "Optimizer", clipnorm: Any = None,
                 clipvalue: Any = None, **kwargs: Any):
        self.name = name
        self._schedule = learning_rate if isinstance(learning_rate, LearningRateSchedule) else None
        self._learning_rate = None if self._schedule else float(learning_rate)
        self.iterations = ResourceVariable(0, dtype=dtypes.int64, trainable=False, name="iteration")
        self._slots: dict[tuple, Any] = {}

    @property
    def learning_rate(self) -> Any:
        return self._schedule if self._schedule is not None else self._learning_rate

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        self._learning_rate = float(value)

    lr = learning_rate

    def _current_lr(self) -> float:
        if self._schedule is not None:
            return float(self._schedule(self.iterations).numpy())
        return self._learning_rate

    def slot(self, variable: Any, name: str, initial: float = 0.0) -> Any:
        """The optimizer variable `name` of `variable` (made on first use, shaped like it)."""
        key = (id(variable), name)
        if key not in self._slots:
            value = backend.zeros(variable.shape.as_list(), dtype=variable.dtype)
            if initial:
                value = value + initial
            base = variable.name.split(":")[0]
            self._slots[key] = ResourceVariable(value, trainable=False, name=f"{self.name}/{base}/{name}")
        return self._slots[key]

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> Any:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        lr = self._current_lr()
        step = int(self.iterations.numpy()) + 1
        for gradient, variable in pairs:
            self.update_step(backend.convert_to_tensor(gradient), variable, lr, step)
        return self.iterations.assign_add(1)

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Any:
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a `Tensor` loss is passed. Received: loss=..., tape=None.")
            with GradientTape() as tape:
                value = loss()
        else:
            value = loss
        var_list = var_list() if callable(var_list) else list(var_list)
        return self.apply_gradients(zip(tape.gradient(value, var_list), var_list))

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        raise NotImplementedError

    def variables(self) -> list:
        return [self.iterations, *self._slots.values()]


class SGD(Optimizer):
    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        if not self.momentum:
            variable.assign_sub(gradient * lr)
            return
        m = self.slot(variable, "m")
        m.assign(m * self.momentum - gradient * lr)
        variable.assign_add(m * self.momentum - gradient * lr if self.nesterov else m.read_value())


class Adam(Optimizer):
    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-07, amsgrad: bool = False, name: str = "Adam", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        m, v = self.slot(variable, "m"), self.slot(variable, "v")
        alpha = _adam_alpha(lr, self.beta_1, self.beta_2, step)
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((unary_math_ops.square(gradient) - v) * (1 - self.beta_2))
        denominator = v.read_value()
        if self.amsgrad:
            v_hat = self.slot(variable, "vhat")
            from webflow.ops.binary_math_ops import maximum
            v_hat.assign(maximum(v_hat, v))
            denominator = v_hat.read_value()
        variable.assign_sub(m * alpha / (unary_math_ops.sqrt(denominator) + self.epsilon))


def _adam_alpha(lr: float, beta_1: float, beta_2: float, step: int) -> Any:
    """lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) in float32, as tf_keras computes it (float64 differs by 1e-6)."""
    from webflow.backends.arrays.numpy_arrays import np
    f32 = np.float32
    beta_1_power, beta_2_power = f32(beta_1) ** f32(step), f32(beta_2) ** f32(step)
    return f32(lr) * np.sqrt(f32(1) - beta_2_power) / (f32(1) - beta_1_power)


class RMSprop(Optimizer):
    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-07, centered: bool = False, name: str = "RMSprop", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        velocity = self.slot(variable, "velocity")
        velocity.assign(velocity * self.rho + unary_math_ops.square(gradient) * (1 - self.rho))
        denominator = velocity + self.epsilon
        if self.centered:
            average = self.slot(variable, "average_gradient")
            average.assign(average * self.rho + gradient * (1 - self.rho))
            denominator = denominator - unary_math_ops.square(average)
        increment = gradient * lr * unary_math_ops.rsqrt(denominator)
        if self.momentum > 0:
            momentum = self.slot(variable, "momentum")
            momentum.assign(momentum * self.momentum + increment)
            variable.assign_sub(momentum)
        else:
            variable.assign_sub(increment)


class Adagrad(Optimizer):
    def __init__(self, learning_rate: Any = 0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-07, name: str = "Adagrad", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        accumulator = self.slot(variable, "accumulator", self.initial_accumulator_value)
        accumulator.assign_add(unary_math_ops.square(gradient))
        variable.assign_sub(gradient * lr / unary_math_ops.sqrt(accumulator + self.epsilon))


schedules = schedules  # keras.optimizers.schedules

_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def get(identifier: Any) -> Optimizer:
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return _BY_NAME[identifier.lower()]()
    return identifier
