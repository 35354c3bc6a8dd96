"""bfloat16 tensors in checkpoint bundles: TensorFlow stores each as its 2 bytes (little-endian), webflow holds them
as float32 values that are exactly bfloat16 (backends/bfloat16.py), i.e. whose low 16 bits are zero.

Writing keeps each float32's high half (rounded by framework/bfloat16_bits.py's rule, a no-op on such values);
reading puts the 16 bits back on top of 16 zero bits.
"""

from __future__ import annotations

import array
import sys
from typing import Any

from webflow.framework import bfloat16_bits, dtypes


class Bfloat16Words:
    """What `write_bundle` writes for a bfloat16 tensor: read like a CArray (a `data` buffer, `shape`, a DType)."""

    __slots__ = ("data", "shape", "dtype")

    def __init__(self, data: array.array, shape: tuple):
        self.data = data
        self.shape = tuple(shape)
        self.dtype = dtypes.bfloat16

    @property
    def size(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count


def bundle_value(value: Any) -> Bfloat16Words:
    """A bfloat16 tensor's float32 storage (a NumPy array, or a CArray without NumPy) as its 16-bit values."""
    if hasattr(value, "data") and isinstance(getattr(value, "dtype", None), dtypes.DType):  # a CArray
        words = array.array("I", value.data.tobytes()[:4 * value.size])
        if sys.byteorder == "big":
            words.byteswap()
        return Bfloat16Words(array.array("H", [bfloat16_bits.round_bits(word) >> 16 for word in words]), value.shape)
    halves = bfloat16_bits.high_halves(value)
    return Bfloat16Words(array.array("H", halves.astype("=u2").tobytes()), halves.shape)


def float32_words(payload: bytes) -> array.array:
    """The float32 storage ('f' buffer, native order) of a bundle's little-endian bfloat16 payload."""
    halves = array.array("H", payload)
    if sys.byteorder == "big":
        halves.byteswap()
    return array.array("f", array.array("I", [half << 16 for half in halves]).tobytes())
