"""C kernels of the stateless random ops (ops/stateless_random_ops.py): the Philox kernels of philox.py
(webflow/wasm/philox.c) run on the stream at the op's (key, counter) inputs instead of an op's own state -
the same numbers as the NumPy and portable kernels, bit for bit, fast enough for big layers in the browser."""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.c import library as c_library
from webflow.backends.c.adapters import FLOATS, Unsupported, c_kernel, empty, fn, prod, ptr, suffix
from webflow.backends.c.philox import key_and_counter, libm_pointers
from webflow.backends.portable.stateless_random_kernels import generator_at
from webflow.framework import dtypes as dtype_lib

PHILOX = 1


def _prepare(shape: Any, key: Any, counter: Any, alg: Any, dtype: Any, op: str, allowed: tuple) -> tuple:
    dtype = dtype_lib.as_dtype(dtype).base_dtype
    if dtype.name not in allowed or int(backend_values.flat_list(alg)[0]) != PHILOX:
        raise Unsupported("dtype")   # the NumPy kernel takes it (and raises TensorFlow's error for a bad alg)
    dims = backend_values.output_dims(shape, op)
    generator = generator_at(int(backend_values.flat_list(key)[0]),
                             tuple(int(c) for c in backend_values.flat_list(counter)))
    return dims, int(prod(dims)), empty(int(prod(dims)), dtype), key_and_counter(generator)


@c_kernel(dtypes=None, min_size=0)
def stateless_uniform(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any, Tshape: Any = None) -> Any:  # noqa: N803
    """wf_philox_uniform_<t> at (key, counter)."""
    dims, count, out, (c_key, c_counter) = _prepare(shape, key, counter, alg, dtype, "StatelessRandomUniformV2",
                                                    FLOATS)
    if count:
        fn(f"wf_philox_uniform_{suffix(out)}")(c_library.address(c_key), c_library.address(c_counter), ptr(out),
                                               count)
    return out.reshape(dims)


def _float32_sample(name: str, op: str, shape: Any, key: Any, counter: Any, alg: Any, dtype: Any) -> Any:
    dims, count, out, (c_key, c_counter) = _prepare(shape, key, counter, alg, dtype, op, ("float32",))
    if count:
        fn(name)(c_library.address(c_key), c_library.address(c_counter), ptr(out), count, *libm_pointers())
    return out.reshape(dims)


@c_kernel(dtypes=None, min_size=0)
def stateless_normal(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any, Tshape: Any = None) -> Any:  # noqa: N803
    """wf_philox_normal_f32 at (key, counter) (float32; other dtypes take the NumPy / portable kernel)."""
    return _float32_sample("wf_philox_normal_f32", "StatelessRandomNormalV2", shape, key, counter, alg, dtype)


@c_kernel(dtypes=None, min_size=0)
def stateless_truncated_normal(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any,
                               Tshape: Any = None) -> Any:  # noqa: N803
    """wf_philox_truncated_normal_f32 at (key, counter)."""
    return _float32_sample("wf_philox_truncated_normal_f32", "StatelessTruncatedNormalV2", shape, key, counter,
                           alg, dtype)
