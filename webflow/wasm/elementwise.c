/* elementwise.c: unary math on contiguous arrays, and binary ops with NumPy/TensorFlow broadcasting.
 *
 * Naming: wf_<op>_<dtype> with dtype f32, f64, i32, i64 (the op part is the registry's c_kernel name).
 *
 *   unary   void wf_exp_f32(const float *x, float *y, wf_size n)                 y[i] = exp(x[i])
 *   binary  int  wf_add_f32(const float *x, const float *y, float *out,
 *                           int ndim, const wf_size *shape,                      (output shape)
 *                           const wf_size *x_strides, const wf_size *y_strides)  (in elements; 0 = broadcast)
 *           out is contiguous with `shape`; returns WF_OK, or WF_BAD_ARGUMENT if ndim > WF_MAX_DIMS.
 *   relu grad  void wf_relu_grad_f32(const float *gradients, const float *features, float *out, wf_size n)
 *
 * Simple ops are plain loops the compiler vectorises (SSE/AVX natively, simd128 in wasm; sqrt becomes
 * sqrtps / f32x4.sqrt because we build with -fno-math-errno). exp/log/tanh/sigmoid use vector_math.h
 * on whole vectors; the last partial vector is padded in a small buffer so every element gets the same
 * formula. `out` may alias an input (each element is read before it is written).
 */
#include "webflow_kernels.h"
#include "strided.h"
#include "vector_math.h"

/* ------------------------------------------------------------------------------- unary, plain loops */
#define WF_UNARY_LOOP(name, T, suffix, EXPR)                                  \
    WF_EXPORT void wf_##name##_##suffix(const T *x, T *y, wf_size n) {        \
        for (wf_size i = 0; i < n; ++i) {                                     \
            T a = x[i];                                                       \
            y[i] = (EXPR);                                                    \
        }                                                                     \
    }

/* Integer neg/abs/square wrap around on overflow as TensorFlow's do: compute in unsigned arithmetic. */
WF_UNARY_LOOP(neg, int32_t, i32, (int32_t)(0u - (uint32_t)a))
WF_UNARY_LOOP(abs, int32_t, i32, a < 0 ? (int32_t)(0u - (uint32_t)a) : a)
WF_UNARY_LOOP(square, int32_t, i32, (int32_t)((uint32_t)a * (uint32_t)a))
WF_UNARY_LOOP(relu, int32_t, i32, a > 0 ? a : 0)
WF_UNARY_LOOP(neg, int64_t, i64, (int64_t)(0ull - (uint64_t)a))
WF_UNARY_LOOP(abs, int64_t, i64, a < 0 ? (int64_t)(0ull - (uint64_t)a) : a)
WF_UNARY_LOOP(square, int64_t, i64, (int64_t)((uint64_t)a * (uint64_t)a))
WF_UNARY_LOOP(relu, int64_t, i64, a > 0 ? a : 0)

/* Floats: abs clears the sign bit (so abs(-0.0) = 0.0 and abs(NaN) stays NaN); relu keeps NaN. */
WF_UNARY_LOOP(neg, float, f32, -a)
WF_UNARY_LOOP(abs, float, f32, __builtin_fabsf(a))
WF_UNARY_LOOP(square, float, f32, a * a)
WF_UNARY_LOOP(sqrt, float, f32, __builtin_sqrtf(a))
WF_UNARY_LOOP(rsqrt, float, f32, 1.0f / __builtin_sqrtf(a))
WF_UNARY_LOOP(reciprocal, float, f32, 1.0f / a)
WF_UNARY_LOOP(relu, float, f32, a > 0.0f ? a : (a != a ? a : 0.0f))
WF_UNARY_LOOP(neg, double, f64, -a)
WF_UNARY_LOOP(abs, double, f64, __builtin_fabs(a))
WF_UNARY_LOOP(square, double, f64, a * a)
WF_UNARY_LOOP(sqrt, double, f64, __builtin_sqrt(a))
WF_UNARY_LOOP(rsqrt, double, f64, 1.0 / __builtin_sqrt(a))
WF_UNARY_LOOP(reciprocal, double, f64, 1.0 / a)
WF_UNARY_LOOP(relu, double, f64, a > 0.0 ? a : (a != a ? a : 0.0))

/* ---------------------------------------------------------------------- unary, explicit vector math */
#define WF_UNARY_VECTOR(name, T, suffix, VT, LANES, LOAD, STORE, VFUNC)                  \
    WF_EXPORT void wf_##name##_##suffix(const T *x, T *y, wf_size n) {                   \
        wf_size i = 0;                                                                   \
        for (; i + LANES <= n; i += LANES) STORE(y + i, VFUNC(LOAD(x + i)));             \
        if (i < n) {                                                                     \
            T buffer[LANES] = {0};                                                       \
            for (wf_size j = 0; i + j < n; ++j) buffer[j] = x[i + j];                    \
            VT v = VFUNC(LOAD(buffer));                                                  \
            for (wf_size j = 0; i + j < n; ++j) y[i + j] = v[j];                         \
        }                                                                                \
    }
#define WF_UNARY_F32V(name, VFUNC) \
    WF_UNARY_VECTOR(name, float, f32, wf_f32v, WF_F32_LANES, wf_load_f32v, wf_store_f32v, VFUNC)
#define WF_UNARY_F64V(name, VFUNC) \
    WF_UNARY_VECTOR(name, double, f64, wf_f64v, WF_F64_LANES, wf_load_f64v, wf_store_f64v, VFUNC)

/* tanh for float64: Taylor series to x^29 below 0.4 (terms fall by 0.06 each), else (1 - e) / (1 + e). */
static inline wf_f64v wf_tanh_f64v(wf_f64v x) {
    static const double taylor[15] = {
        1.0, -0.3333333333333333, 0.13333333333333333, -0.05396825396825397, 0.021869488536155203,
        -0.008863235529902197, 0.003592128036572481, -0.0014558343870513183, 0.000590027440945586,
        -0.00023912911424355248, 9.691537956929451e-05, -3.927832388331683e-05, 1.5918905069328964e-05,
        -6.451689215655431e-06, 2.6147711512907546e-06};
    wf_f64v ax = wf_abs_f64v(x), z = x * x, p = wf_splat_f64v(taylor[14]);
    for (int k = 13; k >= 1; --k) p = p * z + taylor[k];
    wf_f64v small = x + x * z * p;
    wf_f64v e = wf_exp_f64v(-2.0 * ax);
    wf_f64v large = (1.0 - e) / (1.0 + e);
    large = (wf_f64v)((wf_i64v)large | ((wf_i64v)x & INT64_MIN));
    return wf_select_f64v(ax < 0.4, small, large);
}
static inline wf_f64v wf_sigmoid_f64v(wf_f64v x) {
    wf_f64v e = wf_exp_f64v(-wf_abs_f64v(x));
    return wf_select_f64v(x >= 0.0, wf_splat_f64v(1.0), e) / (1.0 + e);
}

WF_UNARY_F32V(exp, wf_exp_f32v)
WF_UNARY_F32V(log, wf_log_f32v)
WF_UNARY_F32V(tanh, wf_tanh_f32v)
WF_UNARY_F32V(sigmoid, wf_sigmoid_f32v)
WF_UNARY_F64V(exp, wf_exp_f64v)
WF_UNARY_F64V(log, wf_log_f64v)
WF_UNARY_F64V(tanh, wf_tanh_f64v)
WF_UNARY_F64V(sigmoid, wf_sigmoid_f64v)

/* ReluGrad: backprops = gradients where features > 0, else 0 (same shapes, contiguous). */
#define WF_RELU_GRAD(T, suffix)                                                                      \
    WF_EXPORT void wf_relu_grad_##suffix(const T *gradients, const T *features, T *out, wf_size n) { \
        for (wf_size i = 0; i < n; ++i) out[i] = features[i] > 0 ? gradients[i] : (T)0;             \
    }
WF_RELU_GRAD(float, f32)
WF_RELU_GRAD(double, f64)
WF_RELU_GRAD(int32_t, i32)
WF_RELU_GRAD(int64_t, i64)

/* ------------------------------------------------------------------------ binary, with broadcasting */
/* One row of the walk: the four stride cases get their own loop so the common ones vectorise. */
#define WF_BINARY(name, T, suffix, EXPR)                                                               \
    static inline T wf_op_##name##_##suffix(T a, T b) { return (EXPR); }                               \
    static void wf_row_##name##_##suffix(const T *x, wf_size sx, const T *y, wf_size sy, T *out,       \
                                         wf_size n) {                                                  \
        if (sx == 1 && sy == 1) {                                                                      \
            for (wf_size i = 0; i < n; ++i) out[i] = wf_op_##name##_##suffix(x[i], y[i]);              \
        } else if (sx == 0 && sy == 1) {                                                               \
            T a = x[0];                                                                                \
            for (wf_size i = 0; i < n; ++i) out[i] = wf_op_##name##_##suffix(a, y[i]);                 \
        } else if (sx == 1 && sy == 0) {                                                               \
            T b = y[0];                                                                                \
            for (wf_size i = 0; i < n; ++i) out[i] = wf_op_##name##_##suffix(x[i], b);                 \
        } else {                                                                                       \
            for (wf_size i = 0; i < n; ++i) out[i] = wf_op_##name##_##suffix(x[i * sx], y[i * sy]);    \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT int wf_##name##_##suffix(const T *x, const T *y, T *out, int ndim, const wf_size *shape, \
                                       const wf_size *x_strides, const wf_size *y_strides) {           \
        wf_size out_strides[WF_MAX_DIMS];                                                              \
        if (ndim < 0 || ndim > WF_MAX_DIMS) return WF_BAD_ARGUMENT;                                    \
        wf_contiguous_strides(ndim, shape, out_strides);                                               \
        const wf_size *strides[3] = {x_strides, y_strides, out_strides};                               \
        wf_walk walk;                                                                                  \
        if (wf_walk_init(&walk, ndim, shape, 3, strides) != WF_OK) return WF_BAD_ARGUMENT;             \
        wf_size rows = wf_walk_rows(&walk), n = wf_walk_row_length(&walk);                             \
        int last = walk.ndim - 1;                                                                      \
        for (wf_size r = 0; r < rows; ++r) {                                                           \
            wf_row_##name##_##suffix(x + walk.offset[0], walk.stride[0][last], y + walk.offset[1],     \
                                     walk.stride[1][last], out + walk.offset[2], n);                   \
            wf_walk_next_row(&walk);                                                                   \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }

/* Integer add/sub/mul wrap around (two's complement) as TensorFlow's do: done in unsigned arithmetic. */
#define WF_BINARY_INT(T, U, suffix)                                              \
    WF_BINARY(add, T, suffix, (T)((U)a + (U)b))                                  \
    WF_BINARY(sub, T, suffix, (T)((U)a - (U)b))                                  \
    WF_BINARY(mul, T, suffix, (T)((U)a * (U)b))                                  \
    WF_BINARY(maximum, T, suffix, a > b ? a : b)                                 \
    WF_BINARY(minimum, T, suffix, a < b ? a : b)                                 \
    WF_BINARY(squared_difference, T, suffix, (T)(((U)a - (U)b) * ((U)a - (U)b)))

WF_BINARY_INT(int32_t, uint32_t, i32)
WF_BINARY_INT(int64_t, uint64_t, i64)

WF_BINARY(add, float, f32, a + b)
WF_BINARY(sub, float, f32, a - b)
WF_BINARY(mul, float, f32, a * b)
WF_BINARY(div, float, f32, a / b)
WF_BINARY(maximum, float, f32, wf_max_f32(a, b))
WF_BINARY(minimum, float, f32, wf_min_f32(a, b))
WF_BINARY(squared_difference, float, f32, (a - b) * (a - b))
WF_BINARY(add, double, f64, a + b)
WF_BINARY(sub, double, f64, a - b)
WF_BINARY(mul, double, f64, a * b)
WF_BINARY(div, double, f64, a / b)
WF_BINARY(maximum, double, f64, wf_max_f64(a, b))
WF_BINARY(minimum, double, f64, wf_min_f64(a, b))
WF_BINARY(squared_difference, double, f64, (a - b) * (a - b))
