/* philox.c: Philox-4x32-10, the counter-based generator behind TensorFlow's random ops, bit for bit
 * the same as webflow/ops/philox.py (and so as TensorFlow's core/lib/random/philox_random.h).
 *
 * philox(key, counter) -> 4 uint32 words: ten rounds of
 *     (c0, c1, c2, c3) <- (hi(B c2) ^ c1 ^ k0, lo(B c2), hi(A c0) ^ c3 ^ k1, lo(A c0))
 * with A = 0xD2511F53, B = 0xCD9E8D57 (32x32 -> 64-bit products), the key bumped by the Weyl constants
 * (0x9E3779B9, 0xBB67AE85) between rounds. The stream is block(counter), block(counter + 1), ... with
 * a 128-bit counter whose word 0 is the least significant.
 *
 *   void wf_philox_uint32(const uint32_t key[2], const uint32_t counter[4], uint32_t *out, wf_size count)
 *       the first `count` words of the stream starting at `counter` (the caller adds any block offset)
 *   void wf_philox_uniform_f32(key, counter, float *out, count)
 *       TF's uniform float: word & 0x7fffff as mantissa of a float in [1, 2), minus 1 -> [0, 1)
 *   void wf_philox_uniform_f64(key, counter, double *out, count)
 *       two words per value: 20 bits of the first and all 32 of the second as a double's mantissa, minus 1
 *   void wf_box_muller_f32(const uint32_t *words, float *out, wf_size pairs, log_f, sin_f, cos_f)
 *       out[2i], out[2i+1] = TF's float Box-Muller pair from words[2i], words[2i+1] (philox_normal.h)
 *   void wf_philox_normal_f32(key, counter, float *out, count, log_f, sin_f, cos_f)
 *       RandomStandardNormal: pair i from words 2i, 2i+1 of the stream (an odd count drops the last cosine)
 *   void wf_philox_truncated_normal_f32(key, counter, float *out, count, log_f, sin_f, cos_f)
 *       TruncatedNormal: group g of 4 values starts at block counter + 256 g and takes, in order, the
 *       Box-Muller values with |x| < 2 until it holds 4
 * log_f, sin_f, cos_f: float (*)(float) (the C library's logf/sinf/cosf) or NULL for the built-in ones.
 * These are exactly PhiloxGenerator.uint32s and random_distributions.uniform / normal / truncated_normal
 * (float32) for a generator at `counter`.
 */
#include "webflow_kernels.h"
#include "philox_normal.h"

#define WF_PHILOX_A 0xD2511F53u
#define WF_PHILOX_B 0xCD9E8D57u
#define WF_PHILOX_BUMP_0 0x9E3779B9u
#define WF_PHILOX_BUMP_1 0xBB67AE85u

static inline void wf_philox_block(uint32_t k0, uint32_t k1, const uint32_t counter[4], uint32_t out[4]) {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    for (int round = 0; round < 10; ++round) {
        if (round) {
            k0 += WF_PHILOX_BUMP_0;
            k1 += WF_PHILOX_BUMP_1;
        }
        uint64_t product_a = (uint64_t)WF_PHILOX_A * c0;
        uint64_t product_b = (uint64_t)WF_PHILOX_B * c2;
        c0 = (uint32_t)(product_b >> 32) ^ c1 ^ k0;
        c1 = (uint32_t)product_b;
        c2 = (uint32_t)(product_a >> 32) ^ c3 ^ k1;
        c3 = (uint32_t)product_a;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* counter += 1 over 128 bits (wrapping at 2^128, as TF's Skip does). */
static inline void wf_philox_next(uint32_t counter[4]) {
    for (int word = 0; word < 4; ++word)
        if (++counter[word] != 0) return;
}

WF_EXPORT void wf_philox_uint32(const uint32_t *key, const uint32_t *counter, uint32_t *out, wf_size count) {
    uint32_t position[4] = {counter[0], counter[1], counter[2], counter[3]}, block[4];
    for (wf_size i = 0; i < count; i += 4) {
        wf_philox_block(key[0], key[1], position, block);
        wf_philox_next(position);
        for (wf_size j = 0; j < 4 && i + j < count; ++j) out[i + j] = block[j];
    }
}

WF_EXPORT void wf_philox_uniform_f32(const uint32_t *key, const uint32_t *counter, float *out, wf_size count) {
    wf_philox_uint32(key, counter, (uint32_t *)out, count);   /* bits first, in place ... */
    for (wf_size i = 0; i < count; ++i) {                      /* ... then each word becomes its float */
        union { uint32_t bits; float value; } word;
        __builtin_memcpy(&word.bits, out + i, 4);
        word.bits = (word.bits & 0x7fffffu) | 0x3f800000u;
        out[i] = word.value - 1.0f;
    }
}

WF_EXPORT void wf_philox_uniform_f64(const uint32_t *key, const uint32_t *counter, double *out, wf_size count) {
    uint32_t position[4] = {counter[0], counter[1], counter[2], counter[3]}, block[4];
    for (wf_size i = 0; i < count; i += 2) {                   /* one block = two doubles */
        wf_philox_block(key[0], key[1], position, block);
        wf_philox_next(position);
        for (wf_size j = 0; j < 2 && i + j < count; ++j) {
            union { uint64_t bits; double value; } word;
            word.bits = ((uint64_t)(block[2 * j] & 0xfffffu) << 32) | block[2 * j + 1] | 0x3ff0000000000000ull;
            out[i + j] = word.value - 1.0;
        }
    }
}

/* counter += blocks over 128 bits. */
static inline void wf_philox_skip(uint32_t counter[4], uint64_t blocks) {
    uint64_t low = (uint64_t)counter[0] + (uint32_t)blocks, carry;
    counter[0] = (uint32_t)low;
    carry = (low >> 32) + (blocks >> 32) + counter[1];
    counter[1] = (uint32_t)carry;
    carry >>= 32;
    for (int word = 2; word < 4 && carry; ++word) {
        carry += counter[word];
        counter[word] = (uint32_t)carry;
        carry >>= 32;
    }
}

WF_EXPORT void wf_box_muller_f32(const uint32_t *words, float *out, wf_size pairs, wf_unary_f32 log_f,
                                 wf_unary_f32 sin_f, wf_unary_f32 cos_f) {
    for (wf_size i = 0; i < pairs; ++i)
        wf_box_muller_pair(words[2 * i], words[2 * i + 1], log_f, sin_f, cos_f, out + 2 * i, out + 2 * i + 1);
}

WF_EXPORT void wf_philox_normal_f32(const uint32_t *key, const uint32_t *counter, float *out, wf_size count,
                                    wf_unary_f32 log_f, wf_unary_f32 sin_f, wf_unary_f32 cos_f) {
    uint32_t position[4] = {counter[0], counter[1], counter[2], counter[3]}, block[4];
    for (wf_size i = 0; i < count; i += 4) {                   /* one block = two pairs = four values */
        wf_philox_block(key[0], key[1], position, block);
        wf_philox_next(position);
        float values[4];
        wf_box_muller_pair(block[0], block[1], log_f, sin_f, cos_f, values, values + 1);
        if (i + 2 < count) wf_box_muller_pair(block[2], block[3], log_f, sin_f, cos_f, values + 2, values + 3);
        for (wf_size j = 0; j < 4 && i + j < count; ++j) out[i + j] = values[j];
    }
}

#define WF_TRUNCATED_GROUP 4          /* float32 values per group */
#define WF_TRUNCATED_GROUP_BLOCKS 256 /* blocks reserved for each group (TF: kReservedSamplesPerOutput) */

WF_EXPORT void wf_philox_truncated_normal_f32(const uint32_t *key, const uint32_t *counter, float *out,
                                              wf_size count, wf_unary_f32 log_f, wf_unary_f32 sin_f,
                                              wf_unary_f32 cos_f) {
    for (wf_size start = 0; start < count; start += WF_TRUNCATED_GROUP) {
        uint32_t position[4] = {counter[0], counter[1], counter[2], counter[3]}, block[4];
        wf_philox_skip(position, (uint64_t)(start / WF_TRUNCATED_GROUP) * WF_TRUNCATED_GROUP_BLOCKS);
        wf_size filled = 0, wanted = WF_MIN(WF_TRUNCATED_GROUP, count - start);
        while (filled < WF_TRUNCATED_GROUP) {
            wf_philox_block(key[0], key[1], position, block);
            wf_philox_next(position);
            float values[4];
            wf_box_muller_pair(block[0], block[1], log_f, sin_f, cos_f, values, values + 1);
            wf_box_muller_pair(block[2], block[3], log_f, sin_f, cos_f, values + 2, values + 3);
            for (int j = 0; j < 4 && filled < WF_TRUNCATED_GROUP; ++j) {
                if (values[j] < 2.0f && values[j] > -2.0f) {
                    if (filled < wanted) out[start + filled] = values[j];
                    ++filled;
                }
            }
        }
    }
}
