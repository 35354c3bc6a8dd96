"""Layers that move values around without weights:

    Permute(dims)          transposes the non-batch axes (dims counts from 1)
    RepeatVector(n)        [b, f] -> [b, n, f]
    Lambda(function)       any function of the inputs as a layer
    UpSampling2D(size)     [b, h, w, c] -> [b, h * sh, w * sw, c], "nearest" or "bilinear" (tf.image.resize)
    ZeroPadding2D(p)       zeros around h and w: ((top, bottom), (left, right))
    Cropping2D(c)          cuts ((top, bottom), (left, right)) off h and w
"""

from __future__ import annotations

import inspect
from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.ops import image_ops, manip_ops, pad_ops
from webflow.ops.indexing_ops import strided_slice


def _pairs(value: Any, name: str) -> tuple:
    """tf_keras's ZeroPadding2D / Cropping2D argument: n, (h, w) or ((top, bottom), (left, right))."""
    if isinstance(value, int):
        return ((value, value), (value, value))
    value = tuple(value)
    if len(value) != 2:
        raise ValueError(f"`{name}` should have two elements. Received: {value}.")
    return tuple((int(v), int(v)) if isinstance(v, int) else tuple(int(x) for x in v) for v in value)


class Permute(Layer):
    """Permute((2, 1)): [b, x, y] -> [b, y, x]."""

    def __init__(self, dims: Any, **kwargs: Any):
        super().__init__(**kwargs)
        dims = tuple(int(d) for d in dims)
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError(f"Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` "
                             f"must be consecutive and start from 1. Received dims={dims}")
        object.__setattr__(self, "dims", dims)

    def call(self, inputs: Any) -> Any:
        return manip_ops.transpose(inputs, perm=(0, *self.dims))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = tuple(input_shape)
        return (shape[0], *(shape[d] for d in self.dims))


class RepeatVector(Layer):
    """[b, features] -> [b, n, features] (each example repeated n times)."""

    def __init__(self, n: int, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "n", int(n))

    def call(self, inputs: Any) -> Any:
        if len(inputs.shape.as_list()) != 2:
            raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the layer: expected ndim=2, '
                             f"found ndim={len(inputs.shape.as_list())}. Full shape received: "
                             f"{tuple(inputs.shape.as_list())}")
        return manip_ops.tile(manip_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (tuple(input_shape)[0], self.n, tuple(input_shape)[1])


class Lambda(Layer):
    """`Lambda(lambda x: x * 2)`: `function(inputs, **arguments)`, given `mask` / `training` if it takes them."""

    def __init__(self, function: Any, output_shape: Any = None, mask: Any = None, arguments: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "function", function)
        object.__setattr__(self, "arguments", dict(arguments or {}))
        object.__setattr__(self, "_output_shape", output_shape)
        object.__setattr__(self, "mask", mask)
        parameters = inspect.signature(function).parameters
        object.__setattr__(self, "_fn_takes", {key for key in ("mask", "training") if key in parameters})

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if "mask" in self._fn_takes:
            kwargs["mask"] = mask
        if "training" in self._fn_takes:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask


class UpSampling2D(Layer):
    """Each pixel repeated size[0] x size[1] times ("nearest"), or bilinear interpolation, via tf.image.resize."""

    def __init__(self, size: Any = (2, 2), data_format: Any = None, interpolation: str = "nearest", **kwargs: Any):
        super().__init__(**kwargs)
        size = (int(size), int(size)) if isinstance(size, int) else tuple(int(s) for s in size)
        methods = ("area", "bicubic", "bilinear", "gaussian", "lanczos3", "lanczos5", "mitchellcubic", "nearest")
        if interpolation not in methods:
            raise ValueError(f"`interpolation` argument should be one of: {list(methods)}. "
                             f"Received: \"{interpolation}\".")
        object.__setattr__(self, "size", size)
        object.__setattr__(self, "data_format", "channels_last")
        object.__setattr__(self, "interpolation", interpolation)

    def call(self, inputs: Any) -> Any:
        _, height, width, _ = backend.int_shape(inputs)
        return image_ops.resize(inputs, [height * self.size[0], width * self.size[1]], method=self.interpolation)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch, height, width, channels = tuple(input_shape)
        scaled = [None if d is None else d * s for d, s in zip((height, width), self.size)]
        return (batch, *scaled, channels)


class ZeroPadding2D(Layer):
    def __init__(self, padding: Any = (1, 1), data_format: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "padding", _pairs(padding, "padding"))
        object.__setattr__(self, "data_format", "channels_last")

    def call(self, inputs: Any) -> Any:
        return pad_ops.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch, height, width, channels = tuple(input_shape)
        grown = [None if d is None else d + sum(p) for d, p in zip((height, width), self.padding)]
        return (batch, *grown, channels)


class Cropping2D(Layer):
    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "cropping", _pairs(cropping, "cropping"))
        object.__setattr__(self, "data_format", "channels_last")

    def call(self, inputs: Any) -> Any:
        _, height, width, _ = backend.int_shape(inputs)
        (top, bottom), (left, right) = self.cropping
        return strided_slice(inputs, [0, top, left, 0], [0, height - bottom, width - right, 0], [1, 1, 1, 1],
                             begin_mask=0b1001, end_mask=0b1001)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch, height, width, channels = tuple(input_shape)
        cut = [None if d is None else d - sum(c) for d, c in zip((height, width), self.cropping)]
        return (batch, *cut, channels)
