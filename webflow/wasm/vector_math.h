/* vector_math.h: exp, log, tanh and friends on whole vectors, without libm.
 *
 * The wasm module is linked with -nostdlib, so there is no expf/logf/tanhf to call; and calling a scalar
 * function per lane would undo the SIMD anyway. These are our own approximations, used by BOTH targets
 * so the native library and the browser give the same numbers. Each works the classic way:
 *
 *   exp(x): x = n ln2 + r with |r| <= ln2/2 (Cody-Waite: ln2 split in a short high part, so n*hi is
 *           exact), exp(r) = 1 + r + r^2 P(r) with P a degree-4 polynomial we fitted (near-minimax,
 *           relative error 3e-9 on the interval), then multiply by 2^n built from bits, in two halves
 *           so that 2^128 overflows to inf and 2^-149 comes out as a subnormal, as IEEE wants.
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

static inline wf_f32v wf_exp_f32v(wf_f32v x) {
    /* Clamp so 2^n stays representable in two halves; NaN is put back at the end. */
    wf_f32v xc = wf_select_f32v(x < -104.0f, wf_splat_f32v(-104.0f), x);
    xc = wf_select_f32v(xc > 89.0f, wf_splat_f32v(89.0f), xc);
    wf_f32v t = xc * 1.44269504088896341f + WF_ROUND_MAGIC_F;
    wf_i32v n = (wf_i32v)t - 0x4B400000;          /* round(x / ln2) as an integer */
    wf_f32v nf = t - WF_ROUND_MAGIC_F;            /* ... and as a float */
    wf_f32v r = (xc - nf * WF_LN2_HI_F) - nf * WF_LN2_LO_F;
    wf_f32v p = wf_splat_f32v(1.3814610429108143e-3f);
    p = p * r + 8.368710055947304e-3f;
    p = p * r + 4.166838899254799e-2f;
    p = p * r + 1.666652113199234e-1f;
    p = p * r + 4.999999403953552e-1f;
    p = 1.0f + (r + (r * r) * p);
    wf_i32v n1 = n >> 1, n2 = n - (n >> 1);
    wf_f32v result = p * (wf_f32v)((n1 + 127) << 23) * (wf_f32v)((n2 + 127) << 23);
    result = wf_select_f32v(x < -104.0f, wf_splat_f32v(0.0f), result); /* exp(-104) < half the least subnormal */
    return wf_select_f32v(x != x, x, result);
}

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
