"""Layers that merge a list of inputs: Concatenate, Multiply, Average, Subtract, Maximum, Minimum, Dot (Add is in
core_layers.py), and their functional forms (`concatenate([a, b])` ...).

    Dot(axes)([x, y])   the batched dot product over axis axes[0] of x and axes[1] of y (tf_keras's batch_dot):
                        [b, n] . [b, n] -> [b, 1];  [b, t, n] . [b, u, n] with axes=2 -> [b, t, u]
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.nn.normalization import l2_normalize
from webflow.ops import concat_ops, manip_ops
from webflow.ops.binary_math_ops import maximum, minimum


class _Merge(Layer):
    def _check(self, inputs: Any) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError("A merge layer should be called on a list of inputs. "
                             f"Received: inputs={inputs} (not a list of tensors)")
        return list(inputs)

    def call(self, inputs: Any) -> Any:
        return self._merge(self._check(inputs))


class Multiply(_Merge):
    def _merge(self, inputs: list) -> Any:
        return reduce(backend.multiply, inputs)


class Average(_Merge):
    def _merge(self, inputs: list) -> Any:
        return reduce(backend.add, inputs) / len(inputs)


class Maximum(_Merge):
    def _merge(self, inputs: list) -> Any:
        return reduce(maximum, inputs)


class Minimum(_Merge):
    def _merge(self, inputs: list) -> Any:
        return reduce(minimum, inputs)


class Subtract(_Merge):
    def _merge(self, inputs: list) -> Any:
        if len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        return backend.subtract(inputs[0], inputs[1])


class Concatenate(_Merge):
    def __init__(self, axis: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "axis", axis)

    def _merge(self, inputs: list) -> Any:
        return concat_ops.concat(inputs, axis=self.axis)


def _batch_dot(x: Any, y: Any, axes: tuple) -> Any:
    """x moved to [b, rest of x, k], y to [b, k, rest of y]; one batched matmul; [b] becomes [b, 1]."""
    x_dims, y_dims = x.shape.as_list(), y.shape.as_list()
    x_rest = [axis for axis in range(1, len(x_dims)) if axis != axes[0]]
    y_rest = [axis for axis in range(1, len(y_dims)) if axis != axes[1]]
    x_moved = manip_ops.transpose(x, [0, *x_rest, axes[0]])
    y_moved = manip_ops.transpose(y, [0, axes[1], *y_rest])
    x_flat = backend.reshape(x_moved, [-1, _size(x_dims, x_rest), x_dims[axes[0]]])
    y_flat = backend.reshape(y_moved, [-1, y_dims[axes[1]], _size(y_dims, y_rest)])
    out_dims = [x_dims[a] for a in x_rest] + [y_dims[a] for a in y_rest]
    result = backend.reshape(backend.matmul(x_flat, y_flat), [-1, *out_dims])
    return manip_ops.expand_dims(result, 1) if not out_dims else result


def _size(dims: list, axes: list) -> int:
    total = 1
    for axis in axes:
        total *= dims[axis]
    return total


class Dot(_Merge):
    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "normalize", normalize)

    def _merge(self, inputs: list) -> Any:
        if len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on exactly 2 inputs. Received: inputs={inputs}")
        x, y = inputs
        axes = self.axes if isinstance(self.axes, (list, tuple)) else (self.axes, self.axes)
        axes = tuple(axis % len(t.shape.as_list()) for axis, t in zip(axes, (x, y)))
        if self.normalize:
            x, y = l2_normalize(x, axis=axes[0]), l2_normalize(y, axis=axes[1])
        return _batch_dot(x, y, axes)


def _functional(layer_class: type) -> Any:
    def merge(inputs: list, **kwargs: Any) -> Any:
        return layer_class(**kwargs)(inputs)
    merge.__name__ = layer_class.__name__.lower()
    merge.__doc__ = f"The functional form of `{layer_class.__name__}`."
    return merge


multiply, average, subtract = _functional(Multiply), _functional(Average), _functional(Subtract)
maximum_layer, minimum_layer = _functional(Maximum), _functional(Minimum)   # keras.layers.maximum / minimum


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: list, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
