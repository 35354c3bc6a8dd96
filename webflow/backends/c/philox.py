"""C signatures of the Philox-4x32-10 kernels (webflow/wasm/philox.c), for c_library.function().

    wf_philox_uint32(key, counter, out, count)       the first `count` words of the stream at `counter`
    wf_philox_uniform_f32(key, counter, out, count)  TF's uniform float32 in [0, 1), one word each
    wf_philox_uniform_f64(key, counter, out, count)  TF's uniform float64 in [0, 1), two words each
    wf_box_muller_f32(words, out, pairs, log_f, sin_f, cos_f)            TF's float Box-Muller, pair by pair
    wf_philox_normal_f32(key, counter, out, count, log_f, sin_f, cos_f)  RandomStandardNormal (float32)
    wf_philox_truncated_normal_f32(key, counter, out, count, log_f, sin_f, cos_f)  TruncatedNormal (float32)
`key` is 2 uint32 words, `counter` 4 (least significant first): build them with `key_and_counter`.
log_f, sin_f, cos_f are pointers to float(float) functions (`libm_pointers()`: the C library's logf/sinf/cosf
when ctypes finds it, as the NumPy path uses) or None for the kernels' own (double-precision, rounded).
"""

from __future__ import annotations

import ctypes
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.c import library as c_library
from webflow.backends.c.adapters import FLOATS, Unsupported, c_kernel, empty, fn, prod, ptr, suffix
from webflow.backends.c.library import PTR, SIZE, VOID, declare
from webflow.framework import random_generators

MASK32 = 0xFFFFFFFF


def key_and_counter(generator: Any, start_block: int = 0) -> tuple:
    """(key, counter) C arrays for a webflow.framework.philox.PhiloxGenerator advanced by `start_block` blocks."""
    counter = (generator.counter + start_block) % (1 << 128)
    key = (ctypes.c_uint32 * 2)(*generator.key)
    words = (ctypes.c_uint32 * 4)(*((counter >> (32 * i)) & MASK32 for i in range(4)))
    return key, words


declare("wf_philox_uint32", [PTR, PTR, PTR, SIZE], VOID)
declare("wf_philox_uniform_f32", [PTR, PTR, PTR, SIZE], VOID)
declare("wf_philox_uniform_f64", [PTR, PTR, PTR, SIZE], VOID)
declare("wf_box_muller_f32", [PTR, PTR, SIZE, PTR, PTR, PTR], VOID)
declare("wf_philox_normal_f32", [PTR, PTR, PTR, SIZE, PTR, PTR, PTR], VOID)
declare("wf_philox_truncated_normal_f32", [PTR, PTR, PTR, SIZE, PTR, PTR, PTR], VOID)


def libm_pointers() -> tuple:
    """(logf, sinf, cosf) addresses of the C library's float functions, or (None, None, None) without one."""
    from webflow.backends.numpy.random_distributions import (
        _LIBM,  # (its ctypes handles; the module imports without NumPy)
    )

    found = [_LIBM.get((name, "f")) for name in ("log", "sin", "cos")]
    if any(f is None for f in found):
        return None, None, None
    return tuple(ctypes.cast(f, ctypes.c_void_p).value for f in found)


def _sample(name: str, op_type: str, context_: Any, shape: Any, dtype: Any) -> Any:

    dtype = dtype.base_dtype
    if dtype.name != "float32":
        raise Unsupported("dtype")  # before reserving: the other kernel must find the generator untouched
    dims = backend_values.output_dims(shape, op_type)
    count = int(prod(dims))
    local = random_generators.generator_for(context_).reserve_outputs(count, random_generators.RESERVE_MULTIPLIER)
    out = empty(count, dtype)
    if count:
        key, counter = key_and_counter(local)
        fn(name)(c_library.address(key), c_library.address(counter), ptr(out), count, *libm_pointers())
    return out.reshape(dims)


@c_kernel(dtypes=None)
def random_standard_normal(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                           T: Any = None) -> Any:  # noqa: N803 - TensorFlow's attr name
    """wf_philox_normal_f32: x ~ N(0, 1), Box-Muller on consecutive Philox words."""
    return _sample("wf_philox_normal_f32", "RandomStandardNormal", context_, shape, dtype)


@c_kernel(dtypes=None)
def truncated_normal(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                     T: Any = None) -> Any:  # noqa: N803
    """wf_philox_truncated_normal_f32: N(0, 1) conditioned on |x| < 2, group by group as TensorFlow draws."""
    return _sample("wf_philox_truncated_normal_f32", "TruncatedNormal", context_, shape, dtype)


# --- RandomUniform: the same Philox words as framework/philox.py, turned into floats in C ------------------------
@c_kernel(dtypes=None, min_size=0)
def random_uniform(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0, T: Any = None) -> Any:  # noqa: N803
    """wf_philox_uniform_<t>: x ~ U[0, 1), bit for bit the NumPy kernel's numbers."""

    dtype = dtype.base_dtype
    if dtype.name not in FLOATS:
        raise Unsupported("dtype")  # before reserving: the NumPy kernel must find the generator untouched
    dims = backend_values.output_dims(shape, "RandomUniform")
    count = int(prod(dims))
    local = random_generators.generator_for(context_).reserve_outputs(count, random_generators.RESERVE_MULTIPLIER)
    out = empty(count, dtype)
    if count:
        key, counter = key_and_counter(local)
        fn(f"wf_philox_uniform_{suffix(out)}")(c_library.address(key), c_library.address(counter), ptr(out), count)
    return out.reshape(dims)
