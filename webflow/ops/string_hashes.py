"""The three string hashes TensorFlow buckets strings with, in plain Python (64-bit arithmetic masked by hand).

- `fingerprint64`: FarmHash's Fingerprint64 (farmhashna's Hash64), used by StringToHashBucketFast,
  `tf.strings.to_hash_bucket_fast` and `tf.lookup.StaticVocabularyTable`'s out-of-vocabulary buckets;
- `siphash24`: SipHash-2-4 with a 128-bit key, used by StringToHashBucketStrong;
- `legacy_hash64`: TensorFlow's own MurmurHash64A-style Hash64 (seed 0xDECAFCAFFE), used by the old
  StringToHashBucket (`tf.string_to_hash_bucket`).

Each is written from its published algorithm; tests/strings/ compares bucket numbers with real TensorFlow's.
"""

from __future__ import annotations

import struct

MASK = (1 << 64) - 1
K0 = 0xC3A5C85C97CB3127
K1 = 0xB492B66FBE98F273
K2 = 0x9AE16A3B2F90404F
K_MUL = 0x9DDFEA08EB382D69


def _fetch64(data: bytes, at: int) -> int:
    return struct.unpack_from("<Q", data, at)[0]


def _fetch32(data: bytes, at: int) -> int:
    return struct.unpack_from("<I", data, at)[0]


def _rotate(value: int, shift: int) -> int:
    """Rotate right by `shift` bits (64-bit)."""
    return value if shift == 0 else ((value >> shift) | (value << (64 - shift))) & MASK


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def _hash_len16(u: int, v: int, mul: int = K_MUL) -> int:
    a = ((u ^ v) * mul) & MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & MASK
    b ^= b >> 47
    return (b * mul) & MASK


def _hash_len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = K2 + n * 2
        a = (_fetch64(s, 0) + K2) & MASK
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & MASK
        d = ((_rotate(a, 25) + b) * mul) & MASK
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = K2 + n * 2
        a = _fetch32(s, 0)
        return _hash_len16((n + (a << 3)) & MASK, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * K2) ^ (z * K0)) & MASK) * K2) & MASK
    return K2


def _hash_len17to32(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K1) & MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & MASK
    d = (_fetch64(s, n - 16) * K2) & MASK
    return _hash_len16((_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK,
                       (a + _rotate((b + K2) & MASK, 18) + c) & MASK, mul)


def _hash_len33to64(s: bytes) -> int:
    n = len(s)
    mul = K2 + n * 2
    a = (_fetch64(s, 0) * K2) & MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & MASK
    d = (_fetch64(s, n - 16) * K2) & MASK
    y = (_rotate((a + b) & MASK, 43) + _rotate(c, 30) + d) & MASK
    z = _hash_len16(y, (a + _rotate((b + K2) & MASK, 18) + c) & MASK, mul)
    e = (_fetch64(s, 16) * mul) & MASK
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & MASK
    h = ((z + _fetch64(s, n - 24)) * mul) & MASK
    return _hash_len16((_rotate((e + f) & MASK, 43) + _rotate(g, 30) + h) & MASK,
                       (e + _rotate((f + a) & MASK, 18) + g) & MASK, mul)


def _weak_hash_len32_with_seeds(s: bytes, at: int, a: int, b: int) -> tuple:
    w, x, y, z = (_fetch64(s, at + 8 * i) for i in range(4))
    a = (a + w) & MASK
    b = _rotate((b + a + z) & MASK, 21)
    c = a
    a = (a + x + y) & MASK
    b = (b + _rotate(a, 44)) & MASK
    return (a + z) & MASK, (b + c) & MASK


def fingerprint64(s: bytes) -> int:
    """FarmHash Fingerprint64 of `s`, an unsigned 64-bit int (farmhashna::Hash64)."""
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s)
    if n <= 32:
        return _hash_len17to32(s)
    if n <= 64:
        return _hash_len33to64(s)
    return _hash_long(s)


def _hash_long(s: bytes) -> int:
    """Strings over 64 bytes: 64-byte blocks through two 128-bit states, then the last 64 bytes."""
    n, seed = len(s), 81
    x = seed
    y = (seed * K1 + 113) & MASK
    z = (_shift_mix((y * K2 + 113) & MASK) * K2) & MASK
    v, w = (0, 0), (0, 0)
    x = (x * K2 + _fetch64(s, 0)) & MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    at = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, at + 8)) & MASK, 37) * K1) & MASK
        y = (_rotate((y + v[1] + _fetch64(s, at + 48)) & MASK, 42) * K1) & MASK
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, at + 40)) & MASK
        z = (_rotate((z + w[0]) & MASK, 33) * K1) & MASK
        v = _weak_hash_len32_with_seeds(s, at, (v[1] * K1) & MASK, (x + w[0]) & MASK)
        w = _weak_hash_len32_with_seeds(s, at + 32, (z + w[1]) & MASK, (y + _fetch64(s, at + 16)) & MASK)
        z, x = x, z
        at += 64
        if at == end:
            break
    mul = K1 + ((z & 0xFF) << 1)
    at = last64
    w = ((w[0] + ((n - 1) & 63)) & MASK, w[1])
    v = ((v[0] + w[0]) & MASK, v[1])
    w = ((w[0] + v[0]) & MASK, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, at + 8)) & MASK, 37) * mul) & MASK
    y = (_rotate((y + v[1] + _fetch64(s, at + 48)) & MASK, 42) * mul) & MASK
    x ^= (w[1] * 9) & MASK
    y = (y + v[0] * 9 + _fetch64(s, at + 40)) & MASK
    z = (_rotate((z + w[0]) & MASK, 33) * mul) & MASK
    v = _weak_hash_len32_with_seeds(s, at, (v[1] * mul) & MASK, (x + w[0]) & MASK)
    w = _weak_hash_len32_with_seeds(s, at + 32, (z + w[1]) & MASK, (y + _fetch64(s, at + 16)) & MASK)
    z, x = x, z
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * K0 + z) & MASK,
                       (_hash_len16(v[1], w[1], mul) + x) & MASK, mul)


# --- SipHash-2-4 -----------------------------------------------------------------------------------------
def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & MASK


def _sip_round(v0: int, v1: int, v2: int, v3: int) -> tuple:
    v0 = (v0 + v1) & MASK
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = (v2 + v3) & MASK
    v3 = _rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & MASK
    v3 = _rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & MASK
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash24(key: tuple, s: bytes) -> int:
    """SipHash-2-4 of `s` under the 128-bit key (k0, k1): two rounds per 8-byte word, four to finish."""
    k0, k1 = key[0] & MASK, key[1] & MASK
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    tail = len(s) % 8
    words = [_fetch64(s, i) for i in range(0, len(s) - tail, 8)]
    words.append(int.from_bytes(s[len(s) - tail:], "little") | ((len(s) & 0xFF) << 56))
    for m in words:
        v3 ^= m
        v0, v1, v2, v3 = _sip_round(*_sip_round(v0, v1, v2, v3))
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(4):
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


# --- TensorFlow's Hash64 ---------------------------------------------------------------------------------
LEGACY_SEED = 0xDECAFCAFFE
_M = 0xC6A4A7935BD1E995


def legacy_hash64(s: bytes, seed: int = LEGACY_SEED) -> int:
    """tensorflow/core/lib/hash/hash.cc's Hash64: 8-byte words mixed MurmurHash64A-style, then the tail."""
    n = len(s)
    h = (seed ^ (n * _M)) & MASK
    body = n - n % 8
    for at in range(0, body, 8):
        k = (_fetch64(s, at) * _M) & MASK
        k ^= k >> 47
        k = (k * _M) & MASK
        h = ((h ^ k) * _M) & MASK
    if n % 8:
        for i in range(n % 8 - 1, -1, -1):
            h ^= s[body + i] << (8 * i)
        h = (h * _M) & MASK
    h ^= h >> 47
    h = (h * _M) & MASK
    return h ^ (h >> 47)


__all__ = ["fingerprint64", "siphash24", "legacy_hash64"]
