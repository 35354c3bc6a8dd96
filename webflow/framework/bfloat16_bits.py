"""The one rounding rule from float32 to bfloat16 (round to nearest, ties to even; NaN kept quiet with its sign),
on one float32's bits or on a whole NumPy array; used by the kernels (backends/bfloat16.py) and the file formats
(io/: TensorProtos, checkpoint bundles). As Eigen's float -> bfloat16 conversion, which TensorFlow's CPU kernels use:
add 0x7FFF, plus 1 when the kept half is odd, then drop the low 16 bits; NaN becomes 0x7FC0 / 0xFFC0 (Eigen's
scalar conversion; where TF's vectorised one drops the sign: backends/bfloat16_eigen.py).
"""

from __future__ import annotations

from typing import Any

SIGN, QUIET_NAN, HIGH_HALF = 0x80000000, 0x7FC00000, 0xFFFF0000


def is_nan_bits(bits: int) -> bool:
    return bits & 0x7F800000 == 0x7F800000 and bits & 0x007FFFFF != 0


def round_bits(bits: int, truncate: bool = False) -> int:
    """A float32's bit pattern (uint32) rounded to the nearest bfloat16's, as float32 bits (low 16 bits 0);
    `truncate`: the low 16 bits dropped instead (Cast's Truncate=True)."""
    if is_nan_bits(bits):
        return (bits & SIGN) | QUIET_NAN
    if truncate:
        return bits & HIGH_HALF
    return (bits + 0x7FFF + ((bits >> 16) & 1)) & HIGH_HALF


def round_array(value: Any, truncate: bool = False) -> Any:
    """`value` as a new float32 NumPy array holding the nearest bfloat16 values (NumPy imported here, lazily:
    the framework imports without it)."""
    import numpy

    single = numpy.array(value, dtype=numpy.float32)  # (a private copy: rounded in place)
    bits = single.view(numpy.uint32)
    nan = numpy.isnan(single)
    signs = bits & numpy.uint32(SIGN) if nan.any() else None
    if not truncate:
        bits += numpy.uint32(0x7FFF) + ((bits >> numpy.uint32(16)) & numpy.uint32(1))
    bits &= numpy.uint32(HIGH_HALF)
    if signs is not None:
        bits[nan] = signs[nan] | numpy.uint32(QUIET_NAN)
    return single


def high_halves(value: Any) -> Any:
    """The bfloat16 bit patterns (uint16 NumPy array) of `value` rounded to bfloat16."""
    import numpy

    return (round_array(value).view(numpy.uint32) >> numpy.uint32(16)).astype(numpy.uint16)


def from_high_halves(halves: Any) -> Any:
    """float32 values (NumPy) from bfloat16 bit patterns (uint16)."""
    import numpy

    return (numpy.asarray(halves, dtype=numpy.uint32) << numpy.uint32(16)).view(numpy.float32)
