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
from webflow.framework import context, dtypes
from webflow.framework.init_scope import init_scope
from webflow.keras import backend, optimizer_options, optimizers_more, optimizers_state, schedules
from webflow.keras.schedules import LearningRateSchedule
from webflow.keras.serialization import serialize_keras_object
from webflow.ops import math_ops, unary_math_ops
from webflow.ops.resource_variable_ops import ResourceVariable


class Optimizer:
    """The base: `apply_gradients(grads_and_vars)`, `minimize(loss, var_list, tape=None)`, `iterations`."""

    def __init__(self, learning_rate: Any = 0.001, name: str = "Optimizer", clipnorm: Any = None,
                 clipvalue: Any = None, **kwargs: Any):
        self.name = name
        self._schedule = learning_rate if isinstance(learning_rate, LearningRateSchedule) else None
        # A float32 variable, as in tf_keras: callbacks (ReduceLROnPlateau ...) assign it between epochs and a
        # traced train step reads it at run time instead of freezing a Python number into its graph.
        with init_scope():   # an optimizer made inside a traced function still holds eager variables
            self._lr_variable = None if self._schedule else ResourceVariable(
                float(learning_rate), dtype=dtypes.float32, trainable=False, name="learning_rate")
            self.iterations = ResourceVariable(0, dtype=dtypes.int64, trainable=False, name="iteration")
        self._slots: dict[tuple, Any] = {}
        optimizer_options.read_options(self, clipnorm, clipvalue, kwargs)   # weight_decay, global_clipnorm ...

    @property
    def learning_rate(self) -> Any:
        return self._schedule if self._schedule is not None else self._lr_variable

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        value = float(value.numpy() if hasattr(value, "numpy") else value)
        if self._lr_variable is None:   # a schedule replaced by a number
            self._schedule = None
            self._lr_variable = ResourceVariable(value, dtype=dtypes.float32, trainable=False, name="learning_rate")
        else:
            self._lr_variable.assign(value)

    lr = learning_rate

    @property
    def _learning_rate(self) -> Any:
        """The learning rate as a Python number (float32-rounded), None with a schedule."""
        return None if self._lr_variable is None else float(self._lr_variable.numpy())

    def _current_lr(self) -> float:
        if self._schedule is not None:
            return float(self._schedule(self.iterations).numpy())
        return self._learning_rate

    def _lr_and_step(self) -> tuple:
        """(learning rate, this update's step number): Python numbers eagerly; tensors read live on every call
        inside a wf.function trace (a number read there would be frozen into the graph)."""
        if context.executing_eagerly():
            return self._current_lr(), int(self.iterations.numpy()) + 1
        iterations = self.iterations.read_value()
        lr = self._schedule(iterations) if self._schedule is not None else self._lr_variable.read_value()
        return lr, iterations + 1

    def slot(self, variable: Any, name: str, initial: float = 0.0) -> Any:
        """The optimizer variable `name` of `variable` (made on first use, shaped like it)."""
        key = (id(variable), name)
        if key not in self._slots:
            with init_scope():   # as tf_keras's `build`: a first traced step makes its slots eagerly
                value = backend.zeros(variable.shape.as_list(), dtype=variable.dtype)
                if initial:
                    value = value + initial
                base = variable.name.split(":")[0]
                self._slots[key] = ResourceVariable(value, trainable=False, name=f"{self.name}/{name}/{base}")
        return self._slots[key]

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> Any:
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable.")
        optimizers_state.build(self, [variable for _, variable in pairs])   # tf_keras's var_list, once
        lr, step = self._lr_and_step()
        pairs = optimizer_options.prepare(self, pairs, lr)   # clipping, then decoupled weight decay
        for gradient, variable in pairs:
            self.update_step(backend.convert_to_tensor(gradient), variable, lr, step)
            if getattr(variable, "constraint", None) is not None:   # keras.constraints: projected after the step
                variable.assign(variable.constraint(variable))
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

    def _checkpoint_children(self) -> list:
        """Its edges in a checkpoint, as tf_keras's (`_variables`, `_iterations`, `_learning_rate`)."""
        return optimizers_state.checkpoint_children(self)

    def get_config(self) -> dict:
        return optimizer_options.get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> Any:
        return optimizer_options.from_config(cls, config)

    def exclude_from_weight_decay(self, var_list: Any = None, var_names: Any = None) -> None:
        optimizer_options.exclude_from_weight_decay(self, var_list, var_names)


def _in_dtype_of(value: Any, variable: Any) -> Any:
    """A traced learning rate (a float32 tensor) cast to a 16-bit variable's dtype, as tf_keras casts it
    (`tf.cast(lr, variable.dtype)`); Python numbers and float32 variables are left as they are."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or not dtype.is_floating or dtype.base_dtype is variable.dtype.base_dtype:
        return value
    return math_ops.cast(value, variable.dtype.base_dtype)


class SGD(Optimizer):
    def __init__(self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str = "SGD", **kwargs: Any):
        super().__init__(learning_rate, name, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def update_step(self, gradient: Any, variable: Any, lr: float, step: int) -> None:
        lr = _in_dtype_of(lr, variable)   # (a bfloat16 or float16 variable: a traced lr in its dtype)
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
        if variable.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            alpha = _adam_alpha_as(variable.dtype.base_dtype, lr, self.beta_1, self.beta_2, step)
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
    if not isinstance(step, int):   # a traced step: the same float32 arithmetic as graph ops
        return _adam_alpha_tensor(lr, beta_1, beta_2, step)
    from webflow.backends.arrays.numpy_arrays import np
    f32 = np.float32
    beta_1_power, beta_2_power = f32(beta_1) ** f32(step), f32(beta_2) ** f32(step)
    return f32(lr) * np.sqrt(f32(1) - beta_2_power) / (f32(1) - beta_1_power)


def _adam_alpha_as(dtype: Any, lr: Any, beta_1: float, beta_2: float, step: Any) -> Any:
    """alpha in the variable's own dtype, as tf_keras computes it (a pure 'bfloat16' policy: beta_2 = 0.999 is
    1.0 in bfloat16, so 1 - beta_2^t = 0 and Adam leaves bfloat16 variables unchanged)."""
    from webflow.ops.binary_math_ops import pow as power
    from webflow.ops.math_ops import cast
    t = cast(backend.convert_to_tensor(step), dtype)
    beta_1_power = power(cast(backend.constant(beta_1, dtype=dtypes.float32), dtype), t)
    beta_2_power = power(cast(backend.constant(beta_2, dtype=dtypes.float32), dtype), t)
    lr = cast(backend.convert_to_tensor(lr), dtype)
    return lr * unary_math_ops.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)


def _adam_alpha_tensor(lr: Any, beta_1: float, beta_2: float, step: Any) -> Any:
    from webflow.ops.binary_math_ops import pow as power
    from webflow.ops.math_ops import cast
    t = cast(step, dtypes.float32)
    beta_1_power = power(backend.constant(beta_1, dtype=dtypes.float32), t)
    beta_2_power = power(backend.constant(beta_2, dtype=dtypes.float32), t)
    lr = cast(backend.convert_to_tensor(lr, dtype=dtypes.float32), dtypes.float32)
    return lr * unary_math_ops.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)


class RMSprop(Optimizer):
    _option_defaults = {"ema_overwrite_frequency": 100}   # tf_keras's RMSprop alone says 100

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

# The other optimizers: their rules (optimizers_more.py) on the classes above.

class AdamW(optimizers_more.AdamWRule, Adam):
    """Adam with decoupled weight decay (weight_decay=0.004)."""


class Adadelta(optimizers_more.AdadeltaRule, Optimizer):
    pass


class Adamax(optimizers_more.AdamaxRule, Optimizer):
    pass


class Nadam(optimizers_more.NadamRule, Optimizer):
    pass


class Ftrl(optimizers_more.FtrlRule, Optimizer):
    pass


_BY_NAME.update({"adamw": AdamW, "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl})


def serialize(optimizer: Optimizer) -> dict:
    """{"module", "class_name", "config", "registered_name"} as tf_keras writes it."""
    return serialize_keras_object(optimizer, "keras.optimizers")


def deserialize(config: dict, custom_objects: Any = None) -> Optimizer:
    classes = {cls.__name__.lower(): cls for cls in _BY_NAME.values()}
    classes.update({key.lower(): value for key, value in (custom_objects or {}).items()})
    name = config["class_name"].lower()
    if name not in classes:
        raise ValueError(f"Could not interpret optimizer identifier: {config}")
    return classes[name].from_config(config["config"])


def get(identifier: Any) -> Optimizer:
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        if identifier.lower() not in _BY_NAME:
            raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
        return _BY_NAME[identifier.lower()]()
    return identifier
