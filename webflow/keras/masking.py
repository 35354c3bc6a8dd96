"""`keras.layers.Masking(mask_value=0.0)`: timesteps whose features all equal `mask_value` are masked.

The output is the input with those timesteps zeroed; its mask ([batch, time] bool, True = real) goes to the
layers after it (masks.py), e.g. an LSTM that then skips them.
"""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.ops.logic_ops import not_equal
from webflow.ops.reduction_ops import reduce_any


class Masking(Layer):
    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "mask_value", mask_value)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return reduce_any(not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return backend.multiply(inputs, backend.cast(keep, inputs.dtype))

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
