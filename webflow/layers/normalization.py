"""`tf.layers.BatchNormalization` and `tf.layers.batch_normalization`.

y = gamma * (x - mean) / sqrt(variance + epsilon) + beta, per feature (the `axis` dims).
- training: mean/variance of the batch (over every other axis); each call also builds the two update ops
      moving_mean     -= (moving_mean - batch_mean) * (1 - momentum)
      moving_variance -= (moving_variance - batch_variance) * (1 - momentum)
  ("AssignMovingAvg", "AssignMovingAvg_1"), which go to tf.GraphKeys.UPDATE_OPS: run them with the
  train op, as TF1 programs do with `tf.control_dependencies(tf.get_collection(UPDATE_OPS))`.
- inference: the moving statistics; no update ops.
`fused=None` (or True) uses one FusedBatchNormV3 op for 4-D (and 5-D) inputs normalized over the channel
axis, as TF1 does; its batch variance for the moving average is the Bessel-corrected one (n / (n - 1)),
while the non-fused path averages the biased variance of tf.nn.moments. Variables: gamma (ones), beta
(zeros) trainable; moving_mean (zeros), moving_variance (ones) only in GLOBAL_VARIABLES.
`training` may be a Python bool or a bool tensor (then both behaviours are built, under a tf.cond).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor_shape import TensorShape
from webflow.layers.base import InputSpec, Layer
from webflow.layers.utils import constant_pred, get_initializer, smart_cond
from webflow.nn.moments import moments
from webflow.nn.normalization import batch_normalization as nn_batch_normalization
from webflow.nn.normalization import fused_batch_norm
from webflow.ops import array_ops, init_ops, math_ops
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor
from webflow.ops.state_ops import assign_sub

_FUSED_AXES = (-4, -3, -1, 1, 3, 4)
_FUSED_FORMATS = {(1, 4): "NCHW", (1, 5): "NCDHW", (3, 4): "NHWC", (4, 5): "NDHWC"}


def validate_axis(axis: Any, input_shape: TensorShape) -> list:
    """`axis` (an int or ints, negative from the end) as a list of axes in [0, rank)."""
    rank = input_shape.rank
    if not rank:
        raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}")
    axes = [axis] if isinstance(axis, int) else list(axis)
    axes = [a + rank if a < 0 else a for a in axes]
    for a in axes:
        if a < 0 or a >= rank:
            raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < inputs.rank (with "
                             f"inputs.rank={rank}). Received: axis={tuple(axes)}")
    if len(axes) != len(set(axes)):
        raise ValueError(f"Duplicate axis: {tuple(axes)}")
    return axes


def assign_moving_average(variable: Any, value: Any, momentum: Any) -> Any:
    """variable -= (variable - value) * (1 - momentum), as one AssignSub named "AssignMovingAvg"."""
    with name_scope_v1(None, "AssignMovingAvg") as scope:
        decay = convert_to_tensor(1.0 - momentum, name="decay")
        if decay.dtype.base_dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        update_delta = (variable - math_ops.cast(value, variable.dtype.base_dtype)) * decay
        return assign_sub(variable, update_delta, name=scope)


class BatchNormalization(Layer):
    """Normalizes each feature with batch statistics (training) or moving statistics (inference)."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = init_ops.zeros_initializer(),
                 gamma_initializer: Any = init_ops.ones_initializer(),
                 moving_mean_initializer: Any = init_ops.zeros_initializer(),
                 moving_variance_initializer: Any = init_ops.ones_initializer(), beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None, gamma_constraint: Any = None,
                 renorm: bool = False, renorm_clipping: Any = None, renorm_momentum: float = 0.99, fused: Any = None,
                 trainable: bool = True, virtual_batch_size: Any = None, adjustment: Any = None,
                 name: Any = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, **kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError(f"Expected an int or a list/tuple of ints for the argument 'axis', but received: {axis!r}")
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization: renorm, virtual_batch_size and adjustment are not "
                                      "supported by webflow.")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = get_initializer(beta_initializer)
        self.gamma_initializer = get_initializer(gamma_initializer)
        self.moving_mean_initializer = get_initializer(moving_mean_initializer)
        self.moving_variance_initializer = get_initializer(moving_variance_initializer)
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.renorm = renorm
        self.fused = True if fused is None else fused  # TF1: decided at build time from the input's rank

    @property
    def _param_dtype(self) -> Any:
        if self._dtype is not None and self._dtype.name in ("float16", "bfloat16"):
            return dtypes.float32
        return self._dtype or dtypes.float32

    def _fused_can_be_used(self) -> bool:
        axes = [self.axis] if isinstance(self.axis, int) else self.axis
        return (len(axes) == 1 and axes[0] in _FUSED_AXES
                and (self._dtype is None or self._dtype.name in ("float16", "bfloat16", "float32")))

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        self.axis = validate_axis(self.axis, input_shape)
        rank = input_shape.rank
        if self.fused:
            self.fused = rank in (4, 5) and self._fused_can_be_used()
        if self.fused:
            self._data_format = _FUSED_FORMATS.get((self.axis[0], rank))
            if self._data_format is None:
                if rank == 5:
                    self.fused = False
                else:
                    raise ValueError("Unsupported axis. The use of `fused=True` is only possible with `axis=1` or "
                                     f"`axis=3` for 4D input tensors. Received: axis={tuple(self.axis)}")
        dims = input_shape.as_list()
        axis_to_dim = {a: dims[a] for a in self.axis}
        if any(size is None for size in axis_to_dim.values()):
            raise ValueError(f"Input has undefined `axis` dimension. Received input with shape {tuple(input_shape)} "
                             f"and axis={tuple(self.axis)}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1:
            param_shape = [next(iter(axis_to_dim.values()))]
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
        self._param_shape = param_shape
        dtype = self._param_dtype
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", shape=param_shape, dtype=dtype, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         trainable=True)
        if self.center:
            self.beta = self.add_weight("beta", shape=param_shape, dtype=dtype, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        trainable=True)
        # Statistics, not parameters: never trained, kept in GLOBAL_VARIABLES (saved with the model).
        self.moving_mean = self.add_weight("moving_mean", shape=param_shape, dtype=dtype,
                                           initializer=self.moving_mean_initializer, synchronization="ON_READ",
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape=param_shape, dtype=dtype,
                                               initializer=self.moving_variance_initializer,
                                               synchronization="ON_READ", trainable=False)
        self.built = True

    def call(self, inputs: Any, training: Any = False) -> Any:
        inputs = math_ops.cast(inputs, self._dtype)
        if training is None:
            training = False  # TF reads Keras' learning phase here; webflow has none, so inference
        if self.fused:
            return self._fused_batch_norm(inputs, training)
        return self._batch_norm(inputs, training)

    def _fused_batch_norm(self, inputs: Any, training: Any) -> Any:
        beta = self.beta if self.center else constant(0.0, dtype=self._param_dtype, shape=self._param_shape)
        gamma = self.gamma if self.scale else constant(1.0, dtype=self._param_dtype, shape=self._param_shape)

        def fused(is_training: bool) -> Any:
            return fused_batch_norm(inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                                    epsilon=self.epsilon, is_training=is_training, data_format=self._data_format)

        output, mean, variance = smart_cond(training, lambda: fused(True), lambda: fused(False))
        training_value = constant_pred(training)
        if training_value or training_value is None:
            if training_value is None:
                momentum = smart_cond(training, lambda: convert_to_tensor(self.momentum),
                                      lambda: convert_to_tensor(1.0))
            else:
                momentum = convert_to_tensor(self.momentum)
            self.add_update(lambda: assign_moving_average(self.moving_mean, mean, momentum))
            self.add_update(lambda: assign_moving_average(self.moving_variance, variance, momentum))
        return output

    def _batch_norm(self, inputs: Any, training: Any) -> Any:
        input_shape = inputs.shape
        ndims = input_shape.rank
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = input_shape.as_list()[self.axis[0]]

        def broadcast(v: Any) -> Any:
            # Parameters of one axis that is not the last must be reshaped to broadcast against the inputs.
            if v is not None and v.shape.rank != ndims and reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = broadcast(self.gamma), broadcast(self.beta)
        if constant_pred(training) is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            batch_mean, batch_variance = moments(math_ops.cast(inputs, self._param_dtype), reduction_axes,
                                                 keepdims=len(self.axis) > 1)
            mean = smart_cond(training, lambda: batch_mean, lambda: convert_to_tensor(self.moving_mean))
            variance = smart_cond(training, lambda: batch_variance, lambda: convert_to_tensor(self.moving_variance))
            new_mean, new_variance = mean, variance

            def update(variable: Any, value: Any) -> Any:
                return smart_cond(training, lambda: assign_moving_average(variable, value, self.momentum),
                                  lambda: variable)

            self.add_update(lambda: update(self.moving_mean, new_mean))
            self.add_update(lambda: update(self.moving_variance, new_variance))
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        offset = math_ops.cast(offset, inputs.dtype) if offset is not None else None
        scale = math_ops.cast(scale, inputs.dtype) if scale is not None else None
        outputs = nn_batch_normalization(inputs, broadcast(mean), broadcast(variance), offset, scale, self.epsilon)
        outputs.set_shape(input_shape)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)


def batch_normalization(inputs: Any, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                        center: bool = True, scale: bool = True,
                        beta_initializer: Any = init_ops.zeros_initializer(),
                        gamma_initializer: Any = init_ops.ones_initializer(),
                        moving_mean_initializer: Any = init_ops.zeros_initializer(),
                        moving_variance_initializer: Any = init_ops.ones_initializer(),
                        beta_regularizer: Any = None, gamma_regularizer: Any = None, beta_constraint: Any = None,
                        gamma_constraint: Any = None, training: Any = False, trainable: bool = True,
                        name: str | None = None, reuse: Any = None, renorm: bool = False, renorm_clipping: Any = None,
                        renorm_momentum: float = 0.99, fused: Any = None, virtual_batch_size: Any = None,
                        adjustment: Any = None) -> Any:
    """`tf.layers.batch_normalization`: remember to run tf.GraphKeys.UPDATE_OPS with the train op."""
    layer = BatchNormalization(axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
                               beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                               moving_mean_initializer=moving_mean_initializer,
                               moving_variance_initializer=moving_variance_initializer,
                               beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
                               beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
                               renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
                               trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
                               name=name, _scope=name, _reuse=reuse)
    return layer(inputs, training=training)


__all__ = ["BatchNormalization", "batch_normalization"]
