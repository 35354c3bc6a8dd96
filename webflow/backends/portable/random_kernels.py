"""Normal and truncated-normal draws without NumPy: the same numbers as backends/numpy/random_distributions.py.

Philox words come from the C kernel `wf_philox_uint32` (backends/c/philox.py); Box-Muller runs here in
plain Python, in float32 where TensorFlow computes in float32: each intermediate is rounded through an
`array('f')`, and log/sin/cos are the C library's `logf`/`sinf`/`cosf` when ctypes can reach it (as the
NumPy path does), so the values match it bit for bit. Without that library, float64 math rounded to
float32 (within an ulp or two). Used only where NumPy is missing (backends/selection.py installs them).
Cost: a few microseconds per value (a 784x1024 layer takes seconds), so float32 normal / truncated normal
run in C first (backends/c/philox.py: the same numbers, 784x512 in ~20 ms instead of ~3.5 s); these
kernels take float64 and run wherever the C library is missing.
"""

from __future__ import annotations

import array
import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.carray import CArray
from webflow.backends.c import library as c_library
from webflow.backends.c import philox as c_philox
from webflow.framework import random_generators

BOX_MULLER_EPSILON = 1e-7
TRUNCATE_AT = 2.0
VARIABLE_BLOCKS_PER_GROUP = 256


def _f32(values: list) -> list:
    """Each value rounded to float32 (and back to a Python float)."""
    return array.array("f", values).tolist()


def _words(generator: Any, start_block: int, count: int) -> list:
    """`count` uint32 words of the generator's stream from block `start_block` on."""
    key, counter = c_philox.key_and_counter(generator, start_block)
    out = array.array("I", bytes(4 * count))
    if count:
        c_library.function("wf_philox_uint32")(c_library.address(key), c_library.address(counter),
                                               out.buffer_info()[0], count)
    return out.tolist()


def _unit_f32(words: list) -> list:
    """[0, 1) float32: 23 bits as the mantissa of a float in [1, 2), minus 1 (exact)."""
    floats = array.array("f")
    floats.frombytes(array.array("I", [(w & 0x7FFFFF) | 0x3F800000 for w in words]).tobytes())
    return [v - 1.0 for v in floats]


def _unit_f64(high: list, low: list) -> list:
    """[0, 1) float64: 20 bits of `high` and 32 of `low` as the mantissa of a double in [1, 2), minus 1."""
    doubles = array.array("d")
    doubles.frombytes(array.array("Q", [((h & 0xFFFFF) << 32) | lo | 0x3FF0000000000000
                                        for h, lo in zip(high, low)]).tobytes())
    return [v - 1.0 for v in doubles]


def _libm32(name: str) -> Any:
    """float32 `name` as the C library computes it (logf ...), else float64 math rounded to float32."""
    from webflow.backends.numpy import random_distributions  # its ctypes handles on libm (no NumPy needed)

    found = random_distributions._LIBM.get((name, "f"))
    if found is not None:
        return found
    function = getattr(math, name)
    return lambda x: array.array("f", [function(x)])[0]


def _box_muller_f32(x0: list, x1: list) -> list:
    """Interleaved (r sin θ, r cos θ) pairs, r = sqrt(-2 log u1), θ = 2π u2, all in float32."""
    epsilon = _f32([BOX_MULLER_EPSILON])[0]
    log, sin, cos = _libm32("log"), _libm32("sin"), _libm32("cos")
    u1 = [max(u, epsilon) for u in _unit_f32(x0)]
    theta = _f32([2.0 * math.pi * u for u in _unit_f32(x1)])
    radius = _f32([math.sqrt(-2.0 * log(u)) for u in u1])
    out = []
    for t, r in zip(theta, radius):
        out += (sin(t) * r, cos(t) * r)
    return _f32(out)


def _box_muller_f64(x0: list, x1: list, x2: list, x3: list) -> list:
    out = []
    for u1, u2 in zip(_unit_f64(x0, x1), _unit_f64(x2, x3)):
        radius, theta = math.sqrt(-2.0 * math.log(max(u1, BOX_MULLER_EPSILON))), 2.0 * math.pi * u2
        out += (math.sin(theta) * radius, math.cos(theta) * radius)
    return out


def _pairs(words: list, double: bool) -> list:
    """Box-Muller values from consecutive words (2 per pair in float32, 4 in float64)."""
    if double:
        return _box_muller_f64(words[0::4], words[1::4], words[2::4], words[3::4])
    return _box_muller_f32(words[0::2], words[1::2])


def _sampled(context_: Any, shape: Any, dtype: Any, op: str) -> tuple:

    dtype = dtype.base_dtype
    if dtype.name not in ("float32", "float64"):
        raise TypeError(f"{op} of {dtype.name} needs NumPy, which is not installed here")
    dims = backend_values.output_dims(shape, op)
    count = int(math.prod(dims))
    local = random_generators.generator_for(context_).reserve_outputs(count, random_generators.RESERVE_MULTIPLIER)
    return dtype, dims, count, local


def random_standard_normal(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                           T: Any = None) -> CArray:  # noqa: N803 - TensorFlow's attr name
    """x ~ N(0, 1): Box-Muller on consecutive Philox words."""
    dtype, dims, count, local = _sampled(context_, shape, dtype, "RandomStandardNormal")
    double = dtype.name == "float64"
    words = _words(local, 0, (4 if double else 2) * ((count + 1) // 2))
    values = _pairs(words, double)[:count]
    return CArray(array.array(c_array.TYPECODES[dtype.name], values), tuple(dims), dtype)


def truncated_normal(context_: Any, shape: Any, *, dtype: Any, seed: int = 0, seed2: int = 0,
                     T: Any = None) -> CArray:  # noqa: N803
    """x ~ N(0, 1) conditioned on |x| < 2: each group of values reads its own blocks until it is full."""
    dtype, dims, count, local = _sampled(context_, shape, dtype, "TruncatedNormal")
    double = dtype.name == "float64"
    per_group, words_per_pair = (2, 4) if double else (4, 2)
    stride = per_group * VARIABLE_BLOCKS_PER_GROUP // 4  # blocks between the starts of two groups
    values: list = []
    for group in range(-(-count // per_group)):
        kept: list = []
        words_read, batch = 0, (per_group // 2 + 1) * words_per_pair
        while len(kept) < per_group:
            words = _words(local, group * stride, words_read + batch)[words_read:]
            kept += [v for v in _pairs(words, double) if abs(v) < TRUNCATE_AT]
            words_read += batch
        values += kept[:per_group]
    return CArray(array.array(c_array.TYPECODES[dtype.name], values[:count]), tuple(dims), dtype)


def _context_generator(context_: Any) -> Any:

    return random_generators.generator_for(context_)


def random_uniform_int(context_: Any, shape: Any, minval: Any, maxval: Any, *, seed: int = 0, seed2: int = 0,
                       Tout: Any = None, T: Any = None) -> CArray:  # noqa: N803 - TensorFlow's attr names
    """x = minval + bits % (maxval - minval), integers in [minval, maxval) (int64: two words per value)."""
    from webflow.framework.errors import InvalidArgumentError

    dims = backend_values.output_dims(shape, "RandomUniformInt")
    count, dtype = int(math.prod(dims)), minval.dtype
    if count == 0:
        return c_array.empty(dims, dtype)
    low, high = int(minval.item()), int(maxval.item())
    if low >= high:
        raise InvalidArgumentError(None, None, f"Need minval < maxval, got {low} >= {high}")
    local = _context_generator(context_).reserve_outputs(count, random_generators.RESERVE_MULTIPLIER)
    span = (high - low) % (1 << 64)
    if dtype.name == "int64":
        words = _words(local, 0, 2 * count)
        values = [low + ((lo | (hi << 32)) % span) for lo, hi in zip(words[0::2], words[1::2])]
    else:
        values = [low + w % (span % (1 << 32)) for w in _words(local, 0, count)]
    return CArray(array.array(c_array.TYPECODES[dtype.name], values), tuple(dims), dtype)


def random_shuffle(context_: Any, value: Any, *, seed: int = 0, seed2: int = 0, T: Any = None) -> CArray:  # noqa: N803
    """output[i] = value[permutation[i]]: TensorFlow's Fisher-Yates permutation of dimension 0."""
    if value.size <= 1 or value.ndim == 0 or value.shape[0] <= 1:
        return value.copy()
    size = value.shape[0]
    local = _context_generator(context_).reserve_uint32s(size - 1)
    permutation = list(range(size))
    for i, word in enumerate(_words(local, 0, size - 1)):
        j = i + word % (size - i)
        permutation[i], permutation[j] = permutation[j], permutation[i]
    inner = value.size // size
    data = value.data[:0]  # an empty buffer of the same kind: numbers, or strings (string_input_producer's names)
    for row in permutation:
        data.extend(value.data[row * inner:(row + 1) * inner])
    return CArray(data, value.shape, value.dtype)


def multinomial(context_: Any, logits: Any, num_samples: Any, *, seed: int = 0, seed2: int = 0,
                output_dtype: Any = None, T: Any = None) -> CArray:  # noqa: N803
    """samples[b, j] ~ Categorical(softmax(logits[b])), by inverse CDF on float64 uniforms (TF's shards)."""
    import bisect

    from webflow.backends.numpy.random_distributions import parallel_for_blocks
    from webflow.framework import dtypes
    from webflow.framework.errors import InvalidArgumentError

    samples = int(num_samples.item()) if isinstance(num_samples, CArray) else int(num_samples)
    if samples < 0:
        raise InvalidArgumentError(None, None, f"num_samples should be nonnegative, got {samples}")
    batch, classes = logits.shape
    if classes == 0 and batch > 0:
        raise InvalidArgumentError(None, None, "num_classes should be positive, got 0")
    reserved = batch * ((samples + 3) // 4 * 4) * 2
    local = _context_generator(context_).reserve_outputs(reserved, random_generators.RESERVE_MULTIPLIER)
    out_dtype = dtypes.as_dtype(output_dtype or dtypes.int64).base_dtype
    output = [0] * (batch * samples)
    if batch and samples:
        cost = int(50 * (samples * math.log(classes) / math.log(2) + classes))
        lowest = -3.4028234663852886e38 if logits.dtype.name == "float32" else -1.7976931348623157e308
        for start, limit in parallel_for_blocks(batch, cost, random_generators.cpu_threads(context_)):
            words = _words(local, start * (samples + 3) // 4, 2 * (limit - start) * samples)
            uniforms = _unit_f64(words[0::2], words[1::2])
            for row in range(start, limit):
                values = logits.data[row * classes:(row + 1) * classes].tolist()
                finite = [v for v in values if math.isfinite(v)]
                top = max(finite) if finite else lowest
                cdf, total = [], 0.0
                for v in values:
                    total += math.exp(v - top) if math.isfinite(v) else 0.0
                    cdf.append(total)
                base = (row - start) * samples
                for j in range(samples):
                    output[row * samples + j] = bisect.bisect_right(cdf, uniforms[base + j] * cdf[-1])
    return CArray(array.array(c_array.TYPECODES[out_dtype.name], output), (batch, samples), out_dtype)


__all__ = ["random_standard_normal", "truncated_normal", "random_uniform_int", "random_shuffle", "multinomial"]
