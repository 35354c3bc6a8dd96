"""The update rules of more of tf_keras's optimizers, as mixins: optimizers.py makes the classes
(`class Adadelta(AdadeltaRule, Optimizer)`, so this module needs nothing from it; `super().__init__` is the
base's). The rules (Keras >= 2.11 rules; t = this update's step, starting at 1; all in float32):

    AdamW     Adam's update after the base's decoupled decay var -= var * weight_decay * lr (default 0.004)
    Adadelta  a = rho a + (1 - rho) g^2;  d = -sqrt(D + eps) g / sqrt(a + eps);  D = rho D + (1 - rho) d^2;
              var += lr * d
    Adamax    m += (g - m)(1 - b1);  u = max(b2 u, |g|);  var -= lr m / ((1 - b1^t)(u + eps))
    Nadam     mu_t = b1 (1 - 0.5 * 0.96^t);  P_t = mu_1 ... mu_t (one product per step);
              m, v as Adam;  m_hat = mu_{t+1} m / (1 - P_t mu_{t+1}) + (1 - mu_t) g / (1 - P_t);
              var -= lr m_hat / (sqrt(v / (1 - b2^t)) + eps)
    Ftrl      n' = n + g^2;  z += g + 2 s var - (n'^-p - n^-p) / lr * var   (p = learning_rate_power, s = l2 shrinkage)
              var = (clip(z, -l1, l1) - z) / (n'^-p / lr + 2 (l2 + beta / (2 lr)));  n = n'
"""

from __future__ import annotations

from typing import Any

from webflow.keras.optimizer_options import as_float32
from webflow.ops import unary_math_ops
from webflow.ops.binary_math_ops import maximum
from webflow.ops.binary_math_ops import pow as power
from webflow.train.clip_ops import clip_by_value


class AdamWRule:
    def __init__(self, learning_rate: Any = 0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-07, amsgrad: bool = False, name: str = "AdamW",
                 **kwargs: Any):
        if weight_decay is None:
            raise ValueError(f"Argument `weight_decay` must be a float. Received: weight_decay={weight_decay}")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name, weight_decay=weight_decay,
                         **kwargs)


class AdadeltaRule:
    def __init__(self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-07,
                 name: str = "Adadelta", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.rho, self.epsilon = rho, epsilon

    def update_step(self, gradient: Any, variable: Any, lr: Any, step: Any) -> None:
        grads, deltas = self.slot(variable, "accumulated_grad"), self.slot(variable, "accumulated_delta_var")
        rho, eps = self.rho, self.epsilon
        grads.assign(grads * rho + gradient * gradient * (1 - rho))
        delta = -unary_math_ops.sqrt(deltas + eps) * gradient / unary_math_ops.sqrt(grads + eps)
        deltas.assign(deltas * rho + delta * delta * (1 - rho))
        variable.assign_add(delta * as_float32(lr))


class AdamaxRule:
    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-07, name: str = "Adamax", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def update_step(self, gradient: Any, variable: Any, lr: Any, step: Any) -> None:
        m, u = self.slot(variable, "m"), self.slot(variable, "u")
        beta_1_power = power(as_float32(self.beta_1), as_float32(step))
        m.assign_add((gradient - m) * (1 - self.beta_1))
        u.assign(maximum(u * self.beta_2, unary_math_ops.abs(gradient)))
        variable.assign_sub(m * as_float32(lr) / ((1 - beta_1_power) * (u + self.epsilon)))


class NadamRule:
    def __init__(self, learning_rate: Any = 0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-07, name: str = "Nadam", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self._u_product = None   # mu_1 ... mu_t, a variable made on the first step

    def _momentum_products(self, step: Any) -> tuple:
        """(mu_t, mu_{t+1}, P_t): P advances once per step, however many variables the step updates."""
        from webflow.ops.resource_variable_ops import ResourceVariable
        if self._u_product is None:
            self._u_product = ResourceVariable(1.0, trainable=False, name=f"{self.name}/u_product")
            self._u_product_step = None
        t = as_float32(step)
        decay = as_float32(0.96)
        u_t = self.beta_1 * (1.0 - 0.5 * power(decay, t))
        u_next = self.beta_1 * (1.0 - 0.5 * power(decay, t + 1.0))
        key = step if isinstance(step, int) else id(step)
        if self._u_product_step != key:
            self._u_product.assign(self._u_product * u_t)
            self._u_product_step = key
        return u_t, u_next, self._u_product.read_value()

    def update_step(self, gradient: Any, variable: Any, lr: Any, step: Any) -> None:
        m, v = self.slot(variable, "m"), self.slot(variable, "v")
        u_t, u_next, u_product = self._momentum_products(step)
        beta_2_power = power(as_float32(self.beta_2), as_float32(step))
        m.assign_add((gradient - m) * (1 - self.beta_1))
        v.assign_add((unary_math_ops.square(gradient) - v) * (1 - self.beta_2))
        m_hat = u_next * m / (1 - u_product * u_next) + (1 - u_t) * gradient / (1 - u_product)
        v_hat = v / (1 - beta_2_power)
        variable.assign_sub(m_hat * as_float32(lr) / (unary_math_ops.sqrt(v_hat) + self.epsilon))


class FtrlRule:
    def __init__(self, learning_rate: Any = 0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1, l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0, name: str = "Ftrl",
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0, **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        _check_ftrl(learning_rate_power, initial_accumulator_value, l1_regularization_strength,
                    l2_regularization_strength, l2_shrinkage_regularization_strength)
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def update_step(self, gradient: Any, variable: Any, lr: Any, step: Any) -> None:
        accumulator = self.slot(variable, "accumulator", self.initial_accumulator_value)
        linear = self.slot(variable, "linear")
        lr = as_float32(lr)
        p = as_float32(-self.learning_rate_power)
        l1 = self.l1_regularization_strength
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk_gradient = gradient + 2 * self.l2_shrinkage_regularization_strength * variable
        new_accumulator = accumulator + power(gradient, as_float32(2.0))
        linear.assign_add(shrunk_gradient - (power(new_accumulator, p) - power(accumulator, p)) / lr * variable)
        quadratic = power(new_accumulator, p) / lr + 2 * l2
        variable.assign((clip_by_value(linear, -l1, l1) - linear) / quadratic)
        accumulator.assign(new_accumulator)


def _check_ftrl(power_: float, initial: float, l1: float, l2: float, shrinkage: float) -> None:
    """tf_keras's argument checks, with its messages."""
    if initial < 0.0:
        raise ValueError("`initial_accumulator_value` needs to be positive or zero. Received: "
                         f"initial_accumulator_value={initial}.")
    if power_ > 0.0:
        raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                         f"learning_rate_power={power_}.")
    for name, value in (("l1_regularization_strength", l1), ("l2_regularization_strength", l2),
                        ("l2_shrinkage_regularization_strength", shrinkage)):
        if value < 0.0:
            raise ValueError(f"`{name}` needs to be positive or zero. Received: {name}={value}.")
