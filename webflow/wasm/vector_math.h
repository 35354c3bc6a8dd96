/* vector_math.h: exp, log, tanh and friends on whole vectors, without libm.
 *
 * The wasm module is linked with -nostdlib, so there is no expf/logf/tanhf to call; and calling a scalar
 * function per lane would undo the SIMD anyway. These are our own approximations, used by BOTH targets
 * so the native library and the browser give the same numbers. Each works the classic way:
 *
 *   exp(x): x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 split in a short high part, so n*hi is
 *           exact), exp(r) = 1 + r + r^2 P(r) with P a degree-4 polynomial we fitted (near-minimax,
 *           relative error 3e-9 on the interval), then multiply by 2^n (AVX-512: vscalefps; else built
 *           from bits, in two halves) so that 2^128 overflows to inf and 2^-149 comes out as a subnormal,
 *           as IEEE wants. One definition (WF_DEFINE_EXP_F32) serves every vector width.
 *   log(x): x = 2^k m with m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f):
 *           log(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)), R = 2s^2/3 + 2s^4/5 + ... (Taylor,
 *           |s| <= 0.172 so four terms reach float precision); subnormals are scaled by 2^23 first.
 *   tanh(x): |x| < 0.625: x + x^3 P(x^2) (fitted, degree 5 in x^2); else (1 - e) / (1 + e), e = exp(-2|x|).
 *   sigmoid(x): e = exp(-|x|); 1 / (1 + e) for x >= 0, e / (1 + e) below (no overflow, no early underflow).
 *
 * Measured against NumPy in float64 over all float32 inputs of the ranges in tests/kernels/test_c_elementwise.py
 * (see that file's docstring for the figures): exp <= 1 ulp, log <= 1 ulp, tanh <= 2 ulp, sigmoid <= 2 ulp.
 * float64 versions (exp, log) use the same reductions with Taylor polynomials long enough for double.
 */
#ifndef WEBFLOW_VECTOR_MATH_H
#define WEBFLOW_VECTOR_MATH_H

#include "webflow_kernels.h"

/* Integer vectors the width of wf_f32v / wf_f64v: comparison results and bit patterns live here. */
typedef int32_t wf_i32v __attribute__((vector_size(WF_VECTOR_BYTES)));
typedef int64_t wf_i64v __attribute__((vector_size(WF_VECTOR_BYTES)));
/* Unsigned twins, for bit arithmetic that may wrap (signed overflow is undefined behaviour, even in vectors). */
typedef uint32_t wf_u32v __attribute__((vector_size(WF_VECTOR_BYTES)));
typedef uint64_t wf_u64v __attribute__((vector_size(WF_VECTOR_BYTES)));

/* mask ? a : b, lane by lane (masks are all-ones or all-zeros lanes, as comparisons return). */
static inline wf_f32v wf_select_f32v(wf_i32v mask, wf_f32v a, wf_f32v b) {
    return (wf_f32v)((mask & (wf_i32v)a) | (~mask & (wf_i32v)b));
}
static inline wf_f64v wf_select_f64v(wf_i64v mask, wf_f64v a, wf_f64v b) {
    return (wf_f64v)((mask & (wf_i64v)a) | (~mask & (wf_i64v)b));
}

static inline wf_f32v wf_abs_f32v(wf_f32v x) { return (wf_f32v)((wf_i32v)x & 0x7fffffff); }
static inline wf_f64v wf_abs_f64v(wf_f64v x) { return (wf_f64v)((wf_i64v)x & 0x7fffffffffffffffLL); }

/* max/min that return NaN when either input is NaN (NumPy's np.maximum / np.minimum). */
static inline wf_f32v wf_max_f32v(wf_f32v a, wf_f32v b) {
    wf_f32v larger = wf_select_f32v(a > b, a, b);
    return wf_select_f32v(a != a, a, wf_select_f32v(b != b, b, larger));
}
static inline wf_f32v wf_min_f32v(wf_f32v a, wf_f32v b) {
    wf_f32v smaller = wf_select_f32v(a < b, a, b);
    return wf_select_f32v(a != a, a, wf_select_f32v(b != b, b, smaller));
}
static inline wf_f64v wf_max_f64v(wf_f64v a, wf_f64v b) {
    wf_f64v larger = wf_select_f64v(a > b, a, b);
    return wf_select_f64v(a != a, a, wf_select_f64v(b != b, b, larger));
}
static inline wf_f64v wf_min_f64v(wf_f64v a, wf_f64v b) {
    wf_f64v smaller = wf_select_f64v(a < b, a, b);
    return wf_select_f64v(a != a, a, wf_select_f64v(b != b, b, smaller));
}
static inline float wf_max_f32(float a, float b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
static inline float wf_min_f32(float a, float b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }
static inline double wf_max_f64(double a, double b) { return a != a ? a : (b != b ? b : (a > b ? a : b)); }
static inline double wf_min_f64(double a, double b) { return a != a ? a : (b != b ? b : (a < b ? a : b)); }

/* ------------------------------------------------------------------------------------- float32 */
#define WF_LN2_HI_F 0.693359375f      /* 355/512: 9 significant bits, so n * WF_LN2_HI_F is exact */
#define WF_LN2_LO_F (-2.12194440e-4f) /* ln 2 - WF_LN2_HI_F */
#define WF_ROUND_MAGIC_F 12582912.0f  /* 1.5 * 2^23: adding it rounds a float to an integer, in the low bits */

/* exp's two width-dependent steps, for float32 vectors of 16, 32 and 64 bytes (the 64-byte ones are
 * register_tiles.h's in the avx512 build; softmax_row.h runs exp on them):
 *   wf_larger_f32(a, b) = a > b ? a : b, and wf_smaller_f32(a, b) = a < b ? a : b, lane by lane. A NaN in a gives
 *       b, a NaN in b gives b (a comparison with NaN is false): x86's maxps / minps, one instruction with AVX.
 *   wf_times_pow2_f32(p, nf, n) = p * 2^n, n a whole number (nf as floats, n as int32), rounded once; n may
 *       reach -150 (a subnormal or zero result) and +128 (inf). AVX-512 has it as one instruction (vscalefps);
 *       elsewhere 2^n is built from exponent bits in two halves (one power of two alone would leave the float
 *       range), and p * 2^(n/2) * 2^(n - n/2) rounds only at the second multiply: the same bits.
 * _Generic picks the version for the vector's width. */
typedef float wf_f32x8 __attribute__((vector_size(32)));
typedef float wf_f32x16 __attribute__((vector_size(64)));
typedef int32_t wf_i32x8 __attribute__((vector_size(32)));
typedef int32_t wf_i32x16 __attribute__((vector_size(64)));

#define WF_PORTABLE_EXP_STEPS(W, VT, IT)                                                                      \
    static inline VT wf_larger_portable_##W(VT a, VT b) {                                                     \
        IT pick_a = a > b;                                                                                    \
        return (VT)((pick_a & (IT)a) | (~pick_a & (IT)b));                                                    \
    }                                                                                                         \
    static inline VT wf_smaller_portable_##W(VT a, VT b) {                                                    \
        IT pick_a = a < b;                                                                                    \
        return (VT)((pick_a & (IT)a) | (~pick_a & (IT)b));                                                    \
    }                                                                                                         \
    static inline VT wf_times_pow2_portable_##W(VT p, VT nf, IT n) {                                          \
        (void)nf;                                                                                             \
        IT half = n >> 1, rest = n - (n >> 1);                                                                \
        return p * (VT)((half + 127) << 23) * (VT)((rest + 127) << 23);                                       \
    }
WF_PORTABLE_EXP_STEPS(x4, f32x4, i32x4)

/* Wider vectors exist only in builds for CPUs that have them (a function on them elsewhere would change the
 * ABI: GCC's -Wpsabi). The AVX-512 instructions come through the compiler's builtins (no <immintrin.h>: see
 * webflow_kernels.h); GCC's 512-bit maxps / minps take a merge source, a mask and a rounding mode, clang's only
 * the rounding mode. */
#if defined(__AVX__)
WF_PORTABLE_EXP_STEPS(x8, wf_f32x8, wf_i32x8)
static inline wf_f32x8 wf_larger_x8(wf_f32x8 a, wf_f32x8 b) { return __builtin_ia32_maxps256(a, b); }
static inline wf_f32x8 wf_smaller_x8(wf_f32x8 a, wf_f32x8 b) { return __builtin_ia32_minps256(a, b); }
#if defined(__AVX512F__) && defined(__AVX512VL__)
static inline wf_f32x8 wf_times_pow2_x8(wf_f32x8 p, wf_f32x8 nf, wf_i32x8 n) {
    (void)n;
    return __builtin_ia32_scalefps256_mask(p, nf, p, (unsigned char)0xff);
}
#else
#define wf_times_pow2_x8 wf_times_pow2_portable_x8
#endif
#define WF_X8_CASE(stem) , wf_f32x8: stem##_x8
#else
#define WF_X8_CASE(stem)
#endif

#if defined(__AVX512F__)
#define WF_ALL_LANES ((unsigned short)0xffff)
#define WF_CURRENT_ROUNDING 4 /* _MM_FROUND_CUR_DIRECTION */
#if defined(__clang__)
#define WF_MAXPS512(a, b) __builtin_ia32_maxps512((a), (b), WF_CURRENT_ROUNDING)
#define WF_MINPS512(a, b) __builtin_ia32_minps512((a), (b), WF_CURRENT_ROUNDING)
#else
#define WF_MAXPS512(a, b) __builtin_ia32_maxps512_mask((a), (b), (a), WF_ALL_LANES, WF_CURRENT_ROUNDING)
#define WF_MINPS512(a, b) __builtin_ia32_minps512_mask((a), (b), (a), WF_ALL_LANES, WF_CURRENT_ROUNDING)
#endif
static inline wf_f32x16 wf_larger_x16(wf_f32x16 a, wf_f32x16 b) { return WF_MAXPS512(a, b); }
static inline wf_f32x16 wf_smaller_x16(wf_f32x16 a, wf_f32x16 b) { return WF_MINPS512(a, b); }
static inline wf_f32x16 wf_times_pow2_x16(wf_f32x16 p, wf_f32x16 nf, wf_i32x16 n) {
    (void)n;
    return __builtin_ia32_scalefps512_mask(p, nf, p, WF_ALL_LANES, WF_CURRENT_ROUNDING);
}
#define WF_X16_CASE(stem) , wf_f32x16: stem##_x16
#else
#define WF_X16_CASE(stem)
#endif

#define WF_BY_WIDTH(stem, x) _Generic((x), f32x4: stem##_portable_x4 WF_X8_CASE(stem) WF_X16_CASE(stem))
#define wf_larger_f32(a, b) WF_BY_WIDTH(wf_larger, a)((a), (b))
#define wf_smaller_f32(a, b) WF_BY_WIDTH(wf_smaller, a)((a), (b))
#define wf_times_pow2_f32(p, nf, n) WF_BY_WIDTH(wf_times_pow2, p)((p), (nf), (n))

/* exp(x) on float32 vectors of type VT (IT: int32 lanes of its width), as a function `name`: ONE definition that
 * vector_math.h instantiates for wf_f32v (wf_exp_f32v) and softmax_row.h for register_tiles.h's wider vectors.
 * Clamped to [-104, 89] first, so that round(x / ln2) fits the scaling (and 2^n is exact): exp(-104) is below
 * half the least subnormal and rounds to 0, exp(89) overflows to inf, as the true values do. NaN stays NaN
 * through the clamp and the arithmetic. NONPOSITIVE (a constant): the caller's x is never above 0 (a softmax
 * row minus its maximum), so the upper clamp is left out (one instruction of ~18 per vector). */
#define WF_DEFINE_EXP_F32(name, VT, IT, NONPOSITIVE)                                                          \
    static inline VT name(VT x) {                                                                             \
        VT xc = wf_larger_f32((VT){0} - 104.0f, x);                                                           \
        if (!(NONPOSITIVE)) xc = wf_smaller_f32((VT){0} + 89.0f, xc);                                         \
        VT t = xc * 1.44269504088896341f + WF_ROUND_MAGIC_F;                                                  \
        VT nf = t - WF_ROUND_MAGIC_F;                      /* round(x / ln2) as a float ... */                \
        IT n = (IT)t - 0x4B400000;                         /* ... and as an integer (the magic's low bits) */ \
        VT r = (xc - nf * WF_LN2_HI_F) - nf * WF_LN2_LO_F;                                                    \
        VT p = r * 1.3814610429108143e-3f + 8.368710055947304e-3f;                                            \
        p = p * r + 4.166838899254799e-2f;                                                                    \
        p = p * r + 1.666652113199234e-1f;                                                                    \
        p = p * r + 4.999999403953552e-1f;                                                                    \
        p = 1.0f + (r + (r * r) * p);                                                                         \
        return wf_times_pow2_f32(p, nf, n);                                                                   \
    }
WF_DEFINE_EXP_F32(wf_exp_f32v, wf_f32v, wf_i32v, 0)

static inline wf_f32v wf_log_f32v(wf_f32v x) {
    wf_i32v subnormal = x < 1.17549435e-38f;      /* (also true for 0 and negatives: fixed below) */
    wf_f32v scaled = wf_select_f32v(subnormal, x * 8388608.0f, x);
    wf_i32v k = subnormal & -23;
    /* bits of sqrt(1/2): m lands in [sqrt(1/2), sqrt(2)). Unsigned: a negative x's bits would overflow an int
     * (its lane is replaced by NaN below, but the overflow itself is undefined; UBSan, make test-asan). */
    wf_i32v ix = (wf_i32v)((wf_u32v)scaled - 0x3f3504f3u);
    k += ix >> 23;
    wf_f32v m = (wf_f32v)((ix & 0x007fffff) + 0x3f3504f3);
    wf_f32v f = m - 1.0f;
    wf_f32v s = f / (2.0f + f);
    wf_f32v z = s * s;
    wf_f32v big_r = z * (0.66666666666f + z * (0.4f + z * (0.28571428571f + z * 0.22222222222f)));
    wf_f32v hfsq = 0.5f * f * f;
    wf_f32v dk = __builtin_convertvector(k, wf_f32v);
    wf_f32v result = dk * WF_LN2_HI_F - ((hfsq - (s * (hfsq + big_r) + dk * WF_LN2_LO_F)) - f);
    result = wf_select_f32v(x == 0.0f, wf_splat_f32v(-WF_INF_F32), result);
    result = wf_select_f32v(x < 0.0f, wf_splat_f32v(__builtin_nanf("")), result);
    result = wf_select_f32v(x == WF_INF_F32, x, result);
    return wf_select_f32v(x != x, x, result);
}

static inline wf_f32v wf_tanh_f32v(wf_f32v x) {
    wf_f32v ax = wf_abs_f32v(x);
    wf_f32v z = x * x;
    wf_f32v p = wf_splat_f32v(2.1429636981338263e-3f);
    p = p * z - 8.177400566637516e-3f;
    p = p * z + 2.1700704470276833e-2f;
    p = p * z - 5.394676327705383e-2f;
    p = p * z + 1.333320587873459e-1f;
    p = p * z - 3.333333134651184e-1f;
    wf_f32v small = x + x * z * p;
    wf_f32v e = wf_exp_f32v(-2.0f * ax);
    wf_f32v large = (1.0f - e) / (1.0f + e);
    large = (wf_f32v)((wf_i32v)large | ((wf_i32v)x & INT32_MIN)); /* tanh is odd */
    return wf_select_f32v(ax < 0.625f, small, large);                      /* NaN: ax<.. false, large is NaN */
}

/* sigmoid: with e = exp(-|x|) <= 1 (never overflows): 1 / (1 + e) for x >= 0, e / (1 + e) for x < 0. */
static inline wf_f32v wf_sigmoid_f32v(wf_f32v x) {
    wf_f32v e = wf_exp_f32v(-wf_abs_f32v(x));
    return wf_select_f32v(x >= 0.0f, wf_splat_f32v(1.0f), e) / (1.0f + e);
}

/* ------------------------------------------------------------------------------------- float64 */
#define WF_LN2_HI_D 6.93147180369123816490e-01 /* ln 2 with 21 trailing zero bits: n * hi is exact */
#define WF_LN2_LO_D 1.90821492927058770002e-10
#define WF_ROUND_MAGIC_D 6755399441055744.0   /* 1.5 * 2^52 */

static inline wf_f64v wf_exp_f64v(wf_f64v x) {
    wf_f64v xc = wf_select_f64v(x < -746.0, wf_splat_f64v(-746.0), x);
    xc = wf_select_f64v(xc > 710.0, wf_splat_f64v(710.0), xc);
    wf_f64v t = xc * 1.4426950408889634074 + WF_ROUND_MAGIC_D;
    wf_i64v n = (wf_i64v)t - 0x4338000000000000LL;
    wf_f64v nf = t - WF_ROUND_MAGIC_D;
    wf_f64v r = (xc - nf * WF_LN2_HI_D) - nf * WF_LN2_LO_D;
    /* Taylor to r^13: |r| <= 0.347, the first term left out is below 1e-17 relative. */
    wf_f64v p = wf_splat_f64v(1.0 / 6227020800.0);
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = 1.0 + (r + (r * r) * p);
    wf_i64v n1 = n >> 1, n2 = n - (n >> 1);
    wf_f64v result = p * (wf_f64v)((n1 + 1023) << 52) * (wf_f64v)((n2 + 1023) << 52);
    result = wf_select_f64v(x < -746.0, wf_splat_f64v(0.0), result);
    return wf_select_f64v(x != x, x, result);
}

static inline wf_f64v wf_log_f64v(wf_f64v x) {
    wf_i64v subnormal = x < 2.2250738585072014e-308;
    wf_f64v scaled = wf_select_f64v(subnormal, x * 18014398509481984.0, x); /* 2^54 */
    wf_i64v k = subnormal & -54;
    wf_i64v ix = (wf_i64v)((wf_u64v)scaled - 0x3FE6A09E667F3BCDULL);  /* unsigned: as in wf_log_f32v */
    k += ix >> 52;
    wf_f64v m = (wf_f64v)((ix & 0x000fffffffffffffLL) + 0x3FE6A09E667F3BCDLL);
    wf_f64v f = m - 1.0;
    wf_f64v s = f / (2.0 + f);
    wf_f64v z = s * s;
    wf_f64v big_r = wf_splat_f64v(2.0 / 21.0);
    big_r = big_r * z + 2.0 / 19.0;
    big_r = big_r * z + 2.0 / 17.0;
    big_r = big_r * z + 2.0 / 15.0;
    big_r = big_r * z + 2.0 / 13.0;
    big_r = big_r * z + 2.0 / 11.0;
    big_r = big_r * z + 2.0 / 9.0;
    big_r = big_r * z + 2.0 / 7.0;
    big_r = big_r * z + 2.0 / 5.0;
    big_r = big_r * z + 2.0 / 3.0;
    big_r = big_r * z;
    wf_f64v hfsq = 0.5 * f * f;
    wf_f64v dk = __builtin_convertvector(k, wf_f64v);
    wf_f64v result = dk * WF_LN2_HI_D - ((hfsq - (s * (hfsq + big_r) + dk * WF_LN2_LO_D)) - f);
    result = wf_select_f64v(x == 0.0, wf_splat_f64v(-WF_INF_F64), result);
    result = wf_select_f64v(x < 0.0, wf_splat_f64v(__builtin_nan("")), result);
    result = wf_select_f64v(x == WF_INF_F64, x, result);
    return wf_select_f64v(x != x, x, result);
}

/* Scalar tails: run the vector code on one lane (so the last few elements get the same numbers). */
static inline float wf_scalar_exp_f32(float x) { return wf_exp_f32v(wf_splat_f32v(x))[0]; }
static inline float wf_scalar_log_f32(float x) { return wf_log_f32v(wf_splat_f32v(x))[0]; }
static inline double wf_scalar_exp_f64(double x) { return wf_exp_f64v(wf_splat_f64v(x))[0]; }
static inline double wf_scalar_log_f64(double x) { return wf_log_f64v(wf_splat_f64v(x))[0]; }

#endif /* WEBFLOW_VECTOR_MATH_H */
