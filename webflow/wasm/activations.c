/* activations.c: the activations beyond relu and their *Grad ops, and the rounding / classifying unary ops.
 *
 *   y = f(x)            void wf_<op>_<t>(const T *x, T *y, wf_size n)
 *       elu selu softplus softsign relu6 floor ceil round sign        (f32 f64; relu6 and sign also i32 i64)
 *   y = f(x; alpha)     void wf_leaky_relu_<t>(const T *x, T *y, wf_size n, T alpha)
 *   backprops           void wf_<op>_grad_<t>(const T *gradients, const T *saved, T *out, wf_size n)
 *       elu selu (saved = the outputs), relu6 softplus softsign (saved = the features)
 *                       void wf_leaky_relu_grad_<t>(const T *gradients, const T *features, T *out, wf_size n, T alpha)
 *   bool out            void wf_is_nan_<t>(const T *x, uint8_t *y, wf_size n)    also is_inf, is_finite
 *
 * The formulas are the NumPy kernels' (ops/nn_activation_ops.py, ops/unary_math_ops.py), in the input's
 * dtype. exp/log come from vector_math.h (no libm in wasm); expm1 is Kahan's (e - 1) * x / log(e), exact
 * to a few ulp near 0 where e - 1 alone would cancel. floor/ceil/round are exact without libm: below
 * 2^23 (2^52 for doubles) a float has a fractional part, and adding then subtracting 2^23 rounds half to
 * even in the FPU's default mode; above it every float is already an integer. Arrays are contiguous.
 */
#include "webflow_kernels.h"
#include "vector_math.h"

/* ------------------------------------------------------------------------ vector helpers: expm1 */
static inline wf_f32v wf_expm1_f32v(wf_f32v x) {
    wf_f32v e = wf_exp_f32v(x), em1 = e - 1.0f;
    wf_f32v kahan = em1 * x / wf_log_f32v(e);
    wf_f32v out = wf_select_f32v(e == 1.0f, x, kahan);  /* |x| below half an ulp of 1: expm1(x) = x */
    out = wf_select_f32v(em1 == -1.0f, wf_splat_f32v(-1.0f), out); /* e tiny (or a subnormal log) */
    out = wf_select_f32v(e == WF_INF_F32, e, out);
    return wf_select_f32v(x != x, x, out);
}
static inline wf_f64v wf_expm1_f64v(wf_f64v x) {
    wf_f64v e = wf_exp_f64v(x), em1 = e - 1.0;
    wf_f64v kahan = em1 * x / wf_log_f64v(e);
    wf_f64v out = wf_select_f64v(e == 1.0, x, kahan);
    out = wf_select_f64v(em1 == -1.0, wf_splat_f64v(-1.0), out);
    out = wf_select_f64v(e == WF_INF_F64, e, out);
    return wf_select_f64v(x != x, x, out);
}

/* A whole-vector unary kernel; the last partial vector goes through a padded buffer (same formula). */
#define WF_ACT_VECTOR(name, T, suffix, VT, LANES, LOAD, STORE, BODY)                  \
    static inline VT wf_##name##_##suffix##_v(VT x) { BODY }                          \
    WF_EXPORT void wf_##name##_##suffix(const T *x, T *y, wf_size n) {                \
        wf_size i = 0;                                                                \
        for (; i + LANES <= n; i += LANES) STORE(y + i, wf_##name##_##suffix##_v(LOAD(x + i))); \
        if (i < n) {                                                                  \
            T buffer[LANES] = {0};                                                    \
            for (wf_size j = 0; i + j < n; ++j) buffer[j] = x[i + j];                 \
            VT v = wf_##name##_##suffix##_v(LOAD(buffer));                            \
            for (wf_size j = 0; i + j < n; ++j) y[i + j] = v[j];                      \
        }                                                                             \
    }
#define WF_ACT_F32(name, BODY) \
    WF_ACT_VECTOR(name, float, f32, wf_f32v, WF_F32_LANES, wf_load_f32v, wf_store_f32v, BODY)
#define WF_ACT_F64(name, BODY) \
    WF_ACT_VECTOR(name, double, f64, wf_f64v, WF_F64_LANES, wf_load_f64v, wf_store_f64v, BODY)

#define WF_SELU_SCALE 1.0507009873554804934193349852946
#define WF_SELU_SCALE_ALPHA (1.0507009873554804934193349852946 * 1.6732632423543772848170429916717)

/* elu: expm1(min(x, 0)) where x < 0, else x. selu: scale * alpha * expm1(min(x, 0)) where x < 0, else scale x. */
WF_ACT_F32(elu, {
    wf_f32v negative = wf_expm1_f32v(wf_select_f32v(x < 0.0f, x, wf_splat_f32v(0.0f)));
    return wf_select_f32v(x < 0.0f, negative, x);
})
WF_ACT_F64(elu, {
    wf_f64v negative = wf_expm1_f64v(wf_select_f64v(x < 0.0, x, wf_splat_f64v(0.0)));
    return wf_select_f64v(x < 0.0, negative, x);
})
WF_ACT_F32(selu, {
    wf_f32v negative = (float)WF_SELU_SCALE_ALPHA * wf_expm1_f32v(wf_select_f32v(x < 0.0f, x, wf_splat_f32v(0.0f)));
    return wf_select_f32v(x < 0.0f, negative, (float)WF_SELU_SCALE * x);
})
WF_ACT_F64(selu, {
    wf_f64v negative = WF_SELU_SCALE_ALPHA * wf_expm1_f64v(wf_select_f64v(x < 0.0, x, wf_splat_f64v(0.0)));
    return wf_select_f64v(x < 0.0, negative, WF_SELU_SCALE * x);
})

/* softplus with TensorFlow's thresholds t = log(machine epsilon) + 2: x above -t, exp(x) below t,
 * else log(exp(x) + 1). */
#define WF_SOFTPLUS_T_F32 (-13.942385152878742f) /* log(2^-23) + 2 */
#define WF_SOFTPLUS_T_F64 (-34.04365338911715)   /* log(2^-52) + 2 */
WF_ACT_F32(softplus, {
    wf_f32v e = wf_exp_f32v(x);
    wf_f32v middle = wf_log_f32v(e + 1.0f);
    return wf_select_f32v(x > -WF_SOFTPLUS_T_F32, x, wf_select_f32v(x < WF_SOFTPLUS_T_F32, e, middle));
})
WF_ACT_F64(softplus, {
    wf_f64v e = wf_exp_f64v(x);
    wf_f64v middle = wf_log_f64v(e + 1.0);
    return wf_select_f64v(x > -WF_SOFTPLUS_T_F64, x, wf_select_f64v(x < WF_SOFTPLUS_T_F64, e, middle));
})

/* ------------------------------------------------------------------------------ plain loops */
#define WF_LOOP(name, T, suffix, EXPR)                                     \
    WF_EXPORT void wf_##name##_##suffix(const T *x, T *y, wf_size n) {     \
        for (wf_size i = 0; i < n; ++i) {                                  \
            T a = x[i];                                                    \
            y[i] = (EXPR);                                                 \
        }                                                                  \
    }
#define WF_GRAD_LOOP(name, T, suffix, EXPR)                                                       \
    WF_EXPORT void wf_##name##_##suffix(const T *gradients, const T *saved, T *out, wf_size n) {  \
        for (wf_size i = 0; i < n; ++i) {                                                         \
            T g = gradients[i], s = saved[i];                                                     \
            out[i] = (EXPR);                                                                      \
        }                                                                                         \
    }

/* relu6 = min(max(x, 0), 6) keeping NaN (NumPy's maximum/minimum propagate it). */
WF_LOOP(relu6, float, f32, a != a ? a : (a < 0.0f ? 0.0f : (a > 6.0f ? 6.0f : a)))
WF_LOOP(relu6, double, f64, a != a ? a : (a < 0.0 ? 0.0 : (a > 6.0 ? 6.0 : a)))
WF_LOOP(relu6, int32_t, i32, a < 0 ? 0 : (a > 6 ? 6 : a))
WF_LOOP(relu6, int64_t, i64, a < 0 ? 0 : (a > 6 ? 6 : a))
WF_LOOP(softsign, float, f32, a / (__builtin_fabsf(a) + 1.0f))
WF_LOOP(softsign, double, f64, a / (__builtin_fabs(a) + 1.0))
/* sign: -1, 0 or 1; zeros and NaN come back as they are (np.sign). */
WF_LOOP(sign, float, f32, a > 0.0f ? 1.0f : (a < 0.0f ? -1.0f : a))
WF_LOOP(sign, double, f64, a > 0.0 ? 1.0 : (a < 0.0 ? -1.0 : a))
WF_LOOP(sign, int32_t, i32, (int32_t)((a > 0) - (a < 0)))
WF_LOOP(sign, int64_t, i64, (int64_t)((a > 0) - (a < 0)))

/* floor / ceil / round: |x| < 2^23 (2^52) has a fraction to drop; NaN and larger values pass through. */
static inline float wf_round_even_f32(float a) {
    float m = __builtin_fabsf(a);
    if (!(m < 8388608.0f)) return a;
    volatile float big = m + 8388608.0f; /* volatile: the sum must be rounded to float before subtracting */
    return __builtin_copysignf(big - 8388608.0f, a);
}
static inline double wf_round_even_f64(double a) {
    double m = __builtin_fabs(a);
    if (!(m < 4503599627370496.0)) return a;
    volatile double big = m + 4503599627370496.0;
    return __builtin_copysign(big - 4503599627370496.0, a);
}
static inline float wf_floor_f32_scalar(float a) {
    if (!(__builtin_fabsf(a) < 8388608.0f)) return a;
    float t = (float)(int32_t)a;
    return __builtin_copysignf(t > a ? t - 1.0f : t, a);
}
static inline float wf_ceil_f32_scalar(float a) {
    if (!(__builtin_fabsf(a) < 8388608.0f)) return a;
    float t = (float)(int32_t)a;
    return __builtin_copysignf(t < a ? t + 1.0f : t, a);
}
static inline double wf_floor_f64_scalar(double a) {
    if (!(__builtin_fabs(a) < 4503599627370496.0)) return a;
    double t = (double)(int64_t)a;
    return __builtin_copysign(t > a ? t - 1.0 : t, a);
}
static inline double wf_ceil_f64_scalar(double a) {
    if (!(__builtin_fabs(a) < 4503599627370496.0)) return a;
    double t = (double)(int64_t)a;
    return __builtin_copysign(t < a ? t + 1.0 : t, a);
}
WF_LOOP(floor, float, f32, wf_floor_f32_scalar(a))
WF_LOOP(floor, double, f64, wf_floor_f64_scalar(a))
WF_LOOP(ceil, float, f32, wf_ceil_f32_scalar(a))
WF_LOOP(ceil, double, f64, wf_ceil_f64_scalar(a))
WF_LOOP(round, float, f32, wf_round_even_f32(a))
WF_LOOP(round, double, f64, wf_round_even_f64(a))

/* ------------------------------------------------------------------------------ leaky relu */
#define WF_LEAKY(T, suffix)                                                                              \
    WF_EXPORT void wf_leaky_relu_##suffix(const T *x, T *y, wf_size n, T alpha) {                        \
        for (wf_size i = 0; i < n; ++i) y[i] = x[i] > 0 ? x[i] : x[i] * alpha;                           \
    }                                                                                                    \
    WF_EXPORT void wf_leaky_relu_grad_##suffix(const T *gradients, const T *features, T *out, wf_size n, \
                                               T alpha) {                                                \
        for (wf_size i = 0; i < n; ++i) out[i] = features[i] > 0 ? gradients[i] : gradients[i] * alpha; \
    }
WF_LEAKY(float, f32)
WF_LEAKY(double, f64)

/* ------------------------------------------------------------------------------ the *Grad ops */
WF_GRAD_LOOP(relu6_grad, float, f32, (s > 0.0f && s < 6.0f) ? g : 0.0f)
WF_GRAD_LOOP(relu6_grad, double, f64, (s > 0.0 && s < 6.0) ? g : 0.0)
WF_GRAD_LOOP(relu6_grad, int32_t, i32, (s > 0 && s < 6) ? g : 0)
WF_GRAD_LOOP(relu6_grad, int64_t, i64, (s > 0 && s < 6) ? g : 0)
WF_GRAD_LOOP(elu_grad, float, f32, s < 0.0f ? g * (s + 1.0f) : g)
WF_GRAD_LOOP(elu_grad, double, f64, s < 0.0 ? g * (s + 1.0) : g)
WF_GRAD_LOOP(selu_grad, float, f32, s < 0.0f ? g * (s + (float)WF_SELU_SCALE_ALPHA) : g * (float)WF_SELU_SCALE)
WF_GRAD_LOOP(selu_grad, double, f64, s < 0.0 ? g * (s + WF_SELU_SCALE_ALPHA) : g * WF_SELU_SCALE)
WF_GRAD_LOOP(softsign_grad, float, f32, g / ((__builtin_fabsf(s) + 1.0f) * (__builtin_fabsf(s) + 1.0f)))
WF_GRAD_LOOP(softsign_grad, double, f64, g / ((__builtin_fabs(s) + 1.0) * (__builtin_fabs(s) + 1.0)))

/* softplus_grad = gradients / (exp(-features) + 1), vectorised for the exp. */
#define WF_SOFTPLUS_GRAD(T, suffix, VT, LANES, LOAD, STORE, EXP)                                         \
    WF_EXPORT void wf_softplus_grad_##suffix(const T *gradients, const T *features, T *out, wf_size n) { \
        wf_size i = 0;                                                                                   \
        for (; i + LANES <= n; i += LANES)                                                               \
            STORE(out + i, LOAD(gradients + i) / (EXP(-LOAD(features + i)) + (T)1));                     \
        if (i < n) {                                                                                     \
            T g[LANES] = {0}, f[LANES] = {0};                                                            \
            for (wf_size j = 0; i + j < n; ++j) g[j] = gradients[i + j], f[j] = features[i + j];         \
            VT v = LOAD(g) / (EXP(-LOAD(f)) + (T)1);                                                     \
            for (wf_size j = 0; i + j < n; ++j) out[i + j] = v[j];                                       \
        }                                                                                                \
    }
WF_SOFTPLUS_GRAD(float, f32, wf_f32v, WF_F32_LANES, wf_load_f32v, wf_store_f32v, wf_exp_f32v)
WF_SOFTPLUS_GRAD(double, f64, wf_f64v, WF_F64_LANES, wf_load_f64v, wf_store_f64v, wf_exp_f64v)

/* ------------------------------------------------------------------------------ bool results */
#define WF_CLASSIFY(name, T, suffix, EXPR)                                         \
    WF_EXPORT void wf_##name##_##suffix(const T *x, uint8_t *y, wf_size n) {       \
        for (wf_size i = 0; i < n; ++i) {                                          \
            T a = x[i];                                                            \
            y[i] = (uint8_t)(EXPR);                                                \
        }                                                                          \
    }
WF_CLASSIFY(is_nan, float, f32, a != a)
WF_CLASSIFY(is_nan, double, f64, a != a)
WF_CLASSIFY(is_inf, float, f32, __builtin_fabsf(a) == WF_INF_F32)
WF_CLASSIFY(is_inf, double, f64, __builtin_fabs(a) == WF_INF_F64)
WF_CLASSIFY(is_finite, float, f32, __builtin_fabsf(a) < WF_INF_F32)
WF_CLASSIFY(is_finite, double, f64, __builtin_fabs(a) < WF_INF_F64)
