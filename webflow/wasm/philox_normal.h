/* philox_normal.h: Box-Muller in float32 for philox.c, with TensorFlow's recipe and libm-free math.
 *
 * TensorFlow (random_distributions.h, BoxMullerFloat) turns two uniform floats into two normals:
 *     u1 = max(u(x0), 1e-7f)     theta = (float)(2.0 * M_PI * u(x1))     (the product is a double)
 *     r  = sqrtf(-2.0f * logf(u1))             (sinf(theta) * r, cosf(theta) * r)
 * everything else in float32. logf/sinf/cosf are whatever the caller passes (the C library's, found by
 * ctypes, so natively the numbers are TensorFlow's and the NumPy path's bit for bit), or, for NULL,
 * the double-precision log/sin/cos below rounded to float (always in the wasm module, which has no libm
 * and ignores the pointers): what the pure-Python path computes where ctypes finds no C library (Pyodide).
 * The double functions are accurate to about an ulp of a double, so rounded to float they agree with
 * Python's math rounded to float32 (tests/kernels/test_c_philox_normal.py checks every input the recipe
 * can produce); the C library's logf/sinf/cosf differ from that in the last bit for ~1% of inputs.
 */
#ifndef WEBFLOW_PHILOX_NORMAL_H
#define WEBFLOW_PHILOX_NORMAL_H

typedef float (*wf_unary_f32)(float);

/* log(x) for a positive normal double: x = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact),
 * s = f / (2 + f), log(m) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ... (|s| <= 0.172: 12 terms reach
 * 1e-19), written as f - (f^2/2 - s (f^2/2 + R)) to keep the rounding error near half an ulp.
 * ln 2 is split in a 32-bit head (k * head is exact) and its tail. */
static double wf_log_double(double x) {
    union { double d; uint64_t u; } v = {x};
    int k = (int)((v.u >> 52) & 0x7ff) - 1023;
    v.u = (v.u & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
    double m = v.d;
    if (m > 1.4142135623730951) {
        m *= 0.5;
        k += 1;
    }
    static const double twice_odd_inverse[12] = {  /* 2 / (2j + 1) for j = 1 .. 12 */
        2.0 / 3, 2.0 / 5, 2.0 / 7, 2.0 / 9, 2.0 / 11, 2.0 / 13, 2.0 / 15, 2.0 / 17, 2.0 / 19, 2.0 / 21, 2.0 / 23,
        2.0 / 25};
    double f = m - 1.0, s = f / (2.0 + f), z = s * s, hfsq = 0.5 * f * f;
    double series = twice_odd_inverse[11];
    for (int j = 10; j >= 0; --j) series = twice_odd_inverse[j] + z * series;  /* 2/3 + 2z/5 + 2z^2/7 ... */
    double tail = z * series;                                                /* log(m) = 2s + s * tail */
    const double ln2_head = 0.6931471803691238, ln2_tail = 1.9082149292705877e-10;
    return k * ln2_head - ((hfsq - (s * (hfsq + tail) + k * ln2_tail)) - f);
}

/* sin and cos of x in [0, 8): x = n pi/2 + r with |r| <= pi/4 (pi/2 in three parts: n <= 5, so each
 * n * part is exact), then Taylor series to r^19 / r^20 (error below 1e-21) and the quadrant's signs. */
static void wf_sincos_double(double x, double *sine, double *cosine) {
    const double two_over_pi = 0.6366197723675814;
    const double pio2_1 = 1.5707963267341256, pio2_2 = 6.077100506303966e-11, pio2_3 = 2.0222662487959506e-21;
    double n = (double)(int64_t)(x * two_over_pi + 0.5);
    double r = ((x - n * pio2_1) - n * pio2_2) - n * pio2_3, z = r * r;
    /* Taylor coefficients (-1)^j / (2j+1)! and (-1)^j / (2j)!, summed from the smallest term up */
    static const double sin_coefficients[10] = {
        1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800.0,
        -1.0 / 1307674368000.0, 1.0 / 355687428096000.0, -1.0 / 121645100408832000.0};
    static const double cos_coefficients[11] = {
        1.0, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600,
        -1.0 / 87178291200.0, 1.0 / 20922789888000.0, -1.0 / 6402373705728000.0, 1.0 / 2432902008176640000.0};
    double sin_series = 0.0, cos_series = 0.0;
    for (int j = 9; j >= 1; --j) sin_series = sin_coefficients[j] + z * sin_series;
    for (int j = 10; j >= 2; --j) cos_series = cos_coefficients[j] + z * cos_series;
    double s = r + r * z * sin_series;               /* r - r^3/6 + ... */
    double c = 1.0 - (0.5 * z - z * z * cos_series);  /* 1 - r^2/2 + r^4/24 - ... */
    switch ((int64_t)n & 3) {
        case 0: *sine = s; *cosine = c; break;
        case 1: *sine = c; *cosine = -s; break;
        case 2: *sine = -s; *cosine = -c; break;
        default: *sine = -c; *cosine = s; break;
    }
}

static inline float wf_unit_float(uint32_t word) {
    union { uint32_t bits; float value; } v;
    v.bits = (word & 0x7fffffu) | 0x3f800000u;
    return v.value - 1.0f;
}

/* One Box-Muller pair from two Philox words, exactly TensorFlow's float recipe (see the top). */
static inline void wf_box_muller_pair(uint32_t x0, uint32_t x1, wf_unary_f32 log_f, wf_unary_f32 sin_f,
                                     wf_unary_f32 cos_f, float *first, float *second) {
#if defined(__wasm__)
    /* No calls through pointers in the wasm module: they would make it import the function table, which
     * the test runners do not provide (and inside Pyodide ctypes finds no C library to point at). */
    log_f = sin_f = cos_f = 0;
#endif
    const float epsilon = 1.0e-7f;
    float u1 = wf_unit_float(x0);
    u1 = u1 < epsilon ? epsilon : u1;
    float theta = (float)(6.283185307179586 * (double)wf_unit_float(x1));  /* 2.0 * M_PI * u, in double */
    float log_u1, sine, cosine;
    if (log_f) {
        log_u1 = log_f(u1);
    } else {
        log_u1 = (float)wf_log_double((double)u1);
    }
    if (sin_f && cos_f) {
        sine = sin_f(theta);
        cosine = cos_f(theta);
    } else {
        double s, c;
        wf_sincos_double((double)theta, &s, &c);
        sine = (float)s;
        cosine = (float)c;
    }
    float radius = __builtin_sqrtf(-2.0f * log_u1);  /* float32 throughout, as TF */
    *first = sine * radius;
    *second = cosine * radius;
}

#endif /* WEBFLOW_PHILOX_NORMAL_H */
