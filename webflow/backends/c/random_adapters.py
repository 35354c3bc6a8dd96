"""C kernel adapters for RandomStandardNormal and TruncatedNormal in float32 (webflow/wasm/philox.c).

The Philox words, TensorFlow's float Box-Muller and the truncation's groups all run in C, so a 784x512
layer initialises in milliseconds without NumPy (pure Python: seconds). log/sin/cos: the C library's
logf/sinf/cosf, passed in as function pointers when ctypes finds it (natively: the NumPy path's numbers,
bit for bit, which are TensorFlow's); else the kernels' own double-precision log/sin/cos rounded to
float, which is what the pure-Python path computes there (Pyodide, where ctypes finds no C library).
With NumPy these run only when a C backend is forced (min_size None); without NumPy at every size.
float64 raises Unsupported before touching the generator, and the op's other kernel runs.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.c import library as c_library
from webflow.backends.c import philox as c_philox
from webflow.backends.c.adapters import Unsupported, c_kernel, empty, fn, prod, ptr
from webflow.framework import random_generators


def _sample(name: str, op_type: str, context_: Any, shape: Any, dtype: Any) -> Any:

    dtype = dtype.base_dtype
    if dtype.name != "float32":
        raise Unsupported("dtype")  # before reserving: the other kernel must find the generator untouched
    dims = backend_values.output_dims(shape, op_type)
    count = int(prod(dims))
    local = random_generators.generator_for(context_).reserve_outputs(count, random_generators.RESERVE_MULTIPLIER)
    out = empty(count, dtype)
    if count:
        key, counter = c_philox.key_and_counter(local)
        fn(name)(c_library.address(key), c_library.address(counter), ptr(out), count, *c_philox.libm_pointers())
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


__all__ = ["random_standard_normal", "truncated_normal"]
