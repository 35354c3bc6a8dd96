"""From Philox's random bits to TensorFlow's distributions, value for value.

TensorFlow's CPU kernels (core/lib/random/random_distributions.h, core/kernels/random_op.cc) fill
an output in *groups*: group g starts at Philox block g (or g * 256 for truncated normal, which may
need a variable number of draws) and yields a fixed number of values; the last group is cut short.
Each function below takes a `PhiloxGenerator` already positioned for this run and returns a flat
array of `count` values.

- uniform float32: mantissa trick — put 23 random bits under exponent 0 (a float in [1, 2)) and
  subtract 1; float64 uses 52 bits from two words; float16 uses 10 bits of each word's low half.
- normal: Box-Muller on pairs, u1 = max(uniform, 1e-7), r = sqrt(-2 log u1), (r sin 2πu2, r cos 2πu2).
- truncated normal: Box-Muller pairs, keeping values with |x| < 2, until the group is full.
- int: lo + bits % (hi - lo) (one word for int32, two for int64).

To give TensorFlow's numbers bit for bit, log/sin/cos are evaluated by the platform C library
(`logf`, `sinf`, `cosf`), as TensorFlow's kernel does; NumPy's float32 versions differ in the last
bit for a few percent of inputs. Without a C library (or for huge tensors) we fall back to NumPy in
float64 rounded to float32, which is within a few ulps.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math
from typing import Any

from webflow.backends.arrays.numpy_arrays import np

# Above this many libm calls we use vectorised NumPy (each ctypes call costs ~0.4 µs).
EXACT_LIBM_MAX_CALLS = 1 << 22
TRUNCATE_AT = 2.0          # truncated normal keeps |x| < 2 (standard deviations)
BOX_MULLER_EPSILON = 1e-7  # u1 is clamped here so log(u1) stays finite
VARIABLE_BLOCKS_PER_GROUP = 256  # blocks reserved for each group of a variable-draw distribution


# --- the C library, for bit-exact log/sin/cos --------------------------------------------------------
def _load_libm() -> dict:
    """{(name, numpy dtype char): C function} for logf/sinf/cosf/log/sin/cos, or {} if unavailable."""
    try:
        path = ctypes.util.find_library("m") or ctypes.util.find_library("c")
        library = ctypes.CDLL(path) if path else None
    except (OSError, TypeError, AttributeError):
        library = None
    if library is None:
        return {}
    functions = {}
    for name in ("log", "sin", "cos"):
        try:
            functions[(name, "f")] = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)((name + "f", library))
            functions[(name, "d")] = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double)((name, library))
        except AttributeError:
            return {}
    return functions


_LIBM = _load_libm()


def libm(name: str, x: Any) -> Any:
    """`name`(x) elementwise in x's precision, computed as the C library computes it when possible."""
    x = np.asarray(x)
    function = _LIBM.get((name, x.dtype.char))
    if function is not None and x.size <= EXACT_LIBM_MAX_CALLS:
        return np.fromiter(map(function, x.reshape(-1).tolist()), dtype=x.dtype, count=x.size).reshape(x.shape)
    return getattr(np, name)(x.astype(np.float64)).astype(x.dtype)


# --- bits -> unit interval -------------------------------------------------------------------------
def uint32_to_float(bits: Any) -> Any:
    """[0, 1) float32: the low 23 bits as mantissa of a float in [1, 2), minus 1."""
    bits = np.asarray(bits, dtype=np.uint32)
    return ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def uint64_to_double(high: Any, low: Any) -> Any:
    """[0, 1) float64: 20 bits of `high` and all 32 of `low` as mantissa of a double in [1, 2), minus 1."""
    high = np.asarray(high, dtype=np.uint64) & np.uint64(0xFFFFF)
    bits = (high << np.uint64(32)) | np.asarray(low, dtype=np.uint64) | np.uint64(0x3FF0000000000000)
    return bits.view(np.float64) - 1.0


def uint16_to_half(bits: Any) -> Any:
    """[0, 1) float16: 10 low bits as mantissa of a half in [1, 2), minus 1."""
    bits = np.asarray(bits, dtype=np.uint32).astype(np.uint16)
    return ((bits & np.uint16(0x3FF)) | np.uint16(0x3C00)).view(np.float16) - np.float16(1.0)


# --- Box-Muller ------------------------------------------------------------------------------------
def box_muller_float(x0: Any, x1: Any) -> tuple:
    """Two standard normals (float32) from two words: r = sqrt(-2 log u1), (r sin θ, r cos θ), θ = 2π u2."""
    u1 = np.maximum(uint32_to_float(x0), np.float32(BOX_MULLER_EPSILON))
    # TF writes 2.0f * M_PI * u: M_PI is a double, so θ is computed in double and stored as float.
    theta = (2.0 * math.pi * uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    radius = np.sqrt(np.float32(-2.0) * libm("log", u1))
    return libm("sin", theta) * radius, libm("cos", theta) * radius


def box_muller_double(x0: Any, x1: Any, x2: Any, x3: Any) -> tuple:
    """Two standard normals (float64) from four words (u1 from x0,x1; u2 from x2,x3)."""
    u1 = np.maximum(uint64_to_double(x0, x1), BOX_MULLER_EPSILON)
    theta = 2.0 * math.pi * uint64_to_double(x2, x3)
    radius = np.sqrt(-2.0 * libm("log", u1))
    return libm("sin", theta) * radius, libm("cos", theta) * radius


def _interleave(first: Any, second: Any) -> Any:
    return np.stack([first, second], axis=-1).reshape(-1)


# --- fixed-draw distributions: value i comes from word i (or words 2i, 2i+1) of the stream ----------
def uniform(generator: Any, count: int, dtype: Any) -> Any:
    """`count` values in [0, 1) of NumPy `dtype` (float16/32/64)."""
    if dtype == np.float64:
        words = generator.uint32s(2 * count).reshape(-1, 2)
        return uint64_to_double(words[:, 0], words[:, 1])
    words = generator.uint32s(count)
    return uint16_to_half(words) if dtype == np.float16 else uint32_to_float(words)


def normal(generator: Any, count: int, dtype: Any) -> Any:
    """`count` standard normal values of NumPy `dtype`."""
    if dtype == np.float64:
        words = generator.uint32s(4 * ((count + 1) // 2)).reshape(-1, 4)
        return _interleave(*box_muller_double(*words.T))[:count]
    words = generator.uint32s(2 * ((count + 1) // 2)).reshape(-1, 2)
    return _interleave(*box_muller_float(words[:, 0], words[:, 1]))[:count].astype(dtype)


def uniform_int(generator: Any, count: int, low: int, high: int, dtype: Any) -> Any:
    """`count` integers lo + bits % (hi - lo) (slightly biased unless hi - lo is a power of two)."""
    span = (int(high) - int(low)) % (1 << 64)
    if dtype == np.int64:
        words = generator.uint32s(2 * count).reshape(-1, 2).astype(np.uint64)
        bits = words[:, 0] | (words[:, 1] << np.uint64(32))
        return (np.int64(low) + (bits % np.uint64(span)).astype(np.int64)).astype(np.int64)
    words = generator.uint32s(count).astype(np.uint64)
    offsets = (words % np.uint64(span % (1 << 32))).astype(np.int64)
    return (int(low) + offsets).astype(np.int32)


# --- truncated normal: each group of values may need any number of draws ------------------------------
def truncated_normal(generator: Any, count: int, dtype: Any) -> Any:
    """`count` standard normals conditioned on |x| < 2, by rejection, group by group as TF draws them.

    A group of G values (G = 4 for float32/16, 2 for float64) starts at block g * G * 256 / 4 and
    reads words in order, one Box-Muller pair at a time, until G values were accepted. We draw a few
    pairs for every group at once and go back for more only for the rare groups still short.
    """
    per_group = 2 if dtype == np.float64 else 4
    words_per_pair = 4 if dtype == np.float64 else 2
    groups = -(-count // per_group)
    stride = per_group * VARIABLE_BLOCKS_PER_GROUP // 4   # blocks between group starts
    result = np.empty((groups, per_group), dtype=np.float64 if dtype == np.float64 else np.float32)
    filled = np.zeros(groups, dtype=np.int64)
    pending = np.arange(groups)
    words_used = 0
    batch_pairs = per_group // 2 + 1  # one spare pair: enough for ~97% of groups (acceptance ≈ 95%)
    while pending.size:
        words = _group_words(generator, pending * stride, words_used, batch_pairs * words_per_pair)
        words = words.reshape(pending.size, batch_pairs, words_per_pair)
        if dtype == np.float64:
            pair = box_muller_double(*np.moveaxis(words, -1, 0))
        else:
            pair = box_muller_float(words[..., 0], words[..., 1])
        candidates = np.stack(pair, axis=-1).reshape(pending.size, -1)
        accepted = np.abs(candidates) < TRUNCATE_AT
        # rank of each accepted candidate within its group, after what the group already holds
        slot = filled[pending][:, None] + np.cumsum(accepted, axis=1) - 1
        take = accepted & (slot < per_group)
        rows = np.broadcast_to(pending[:, None], take.shape)[take]
        result[rows, slot[take]] = candidates[take]
        filled[pending] = np.minimum(filled[pending] + accepted.sum(axis=1), per_group)
        pending = pending[filled[pending] < per_group]
        words_used += batch_pairs * words_per_pair
        batch_pairs = 2
    return result.reshape(-1)[:count].astype(dtype)


def _group_words(generator: Any, start_blocks: Any, skip_words: int, count: int) -> Any:
    """uint32 (len(start_blocks), count): words skip_words ... of the stream starting at each block."""
    first_block = skip_words // 4
    blocks_needed = -(-(skip_words + count) // 4) - first_block
    offsets = (start_blocks[:, None] + first_block + np.arange(blocks_needed)[None, :]).reshape(-1)
    words = generator.blocks_at(offsets).reshape(len(start_blocks), -1)
    start = skip_words - 4 * first_block
    return words[:, start:start + count]


# --- permutations and categorical draws ------------------------------------------------------------
def shuffle_permutation(generator: Any, size: int) -> list:
    """Fisher-Yates as TF runs it: for i = 0 .. size-2, swap i with i + (word % (size - i))."""
    words = generator.uint32s(size - 1).tolist()
    permutation = list(range(size))
    for i, word in enumerate(words):
        j = i + word % (size - i)
        permutation[i], permutation[j] = permutation[j], permutation[i]
    return permutation


def categorical(generator: Any, logits: Any, num_samples: int, threads: int = 1) -> Any:
    """int64 [batch, num_samples]: for each row, inverse-CDF draws on exp(logits - max), in float64.

    Non-finite logits get probability 0. TF splits the rows into shards over its `threads` CPU
    threads; a shard starting at row r skips to block r * (num_samples + 3) // 4 and then draws doubles
    (two words each) row after row, so the shard boundaries change the numbers and we follow them.
    """
    logits = np.asarray(logits)
    batch, classes = logits.shape
    output = np.zeros((batch, num_samples), dtype=np.int64)
    if batch == 0 or num_samples == 0:
        return output
    cost = int(50 * (num_samples * math.log(classes) / math.log(2) + classes))
    finite = np.isfinite(logits)
    for start, limit in parallel_for_blocks(batch, cost, threads):
        shard = generator.copy()
        shard.skip(start * (num_samples + 3) // 4)
        words = shard.uint32s(2 * (limit - start) * num_samples).reshape(limit - start, num_samples, 2)
        uniforms = uint64_to_double(words[..., 0], words[..., 1])
        for row in range(start, limit):
            row_max = logits[row][finite[row]].max() if finite[row].any() else np.finfo(logits.dtype).min
            weights = np.exp(logits[row].astype(np.float64) - float(row_max))
            cdf = np.cumsum(np.where(finite[row], weights, 0.0))  # running total, as TF sums left to right
            output[row] = np.searchsorted(cdf, uniforms[row - start] * cdf[-1], side="right")
    return output


def parallel_for_blocks(count: int, cost_per_unit: int, threads: int) -> list:
    """[(start, limit)]: how TF's CPU thread pool (Eigen's parallelFor cost model) shards `count` units.

    Small jobs run as one block; otherwise the block size starts at max(count / (4 threads),
    40000 cycles / cost) and grows (up to 2x) while that does not hurt the threads' balance.
    """
    def divup(a: int, b: int) -> int:
        return -(-a // b)

    def efficiency(blocks: int) -> float:
        return blocks / (divup(blocks, threads) * threads)

    if count <= 1 or threads <= 1 or min(threads, max(1, int((count * cost_per_unit - 1e5) / 1e5 + 0.9))) == 1:
        return [(0, count)]
    size = min(count, max(divup(count, 4 * threads), int(40000 / max(cost_per_unit, 1))))
    max_size = min(count, 2 * size)
    blocks = divup(count, size)
    best = efficiency(blocks)
    previous = blocks
    while best < 1.0 and previous > 1:
        coarser = divup(count, previous - 1)
        if coarser > max_size:
            break
        previous = divup(count, coarser)
        if efficiency(previous) + 0.01 >= best:
            size, blocks = coarser, previous
            best = max(best, efficiency(previous))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


__all__ = ["uniform", "normal", "uniform_int", "truncated_normal", "shuffle_permutation", "categorical",
           "parallel_for_blocks", "libm", "uint32_to_float", "uint64_to_double", "box_muller_float",
           "box_muller_double"]
