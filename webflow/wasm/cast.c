/* cast.c: the Cast op between float32, float64, int32, int64, uint8 and bool, with TensorFlow's results.
 *
 *   int wf_cast(const void *src, int src_type, void *dst, int dst_type, wf_size n)
 *
 * Types are TensorFlow's DataType numbers (DT_FLOAT 1, DT_DOUBLE 2, DT_INT32 3, DT_UINT8 4,
 * DT_INT64 9, DT_BOOL 10: `dtype.as_datatype_enum`). Returns WF_OK, or WF_BAD_ARGUMENT for a type
 * this kernel does not handle. The rules, checked against TensorFlow 2 on x86-64:
 *   float -> int32/int64  truncate toward zero; NaN and values outside the range give the minimum
 *                         integer (what x86's cvttss2si returns, and so what TF computes). Done with
 *                         explicit range tests, because in WebAssembly an out-of-range float-to-int
 *                         conversion traps (the module would crash) instead of returning a value;
 *   float -> uint8        through int32, keeping the low 8 bits (300.0 -> 44, -1.0 -> 255, NaN -> 0);
 *   int -> narrower int   keep the low bits (two's complement wrap-around);
 *   int/float -> float    round to nearest (int64 -> float32 rounds once, directly);
 *   anything -> bool      x != 0 (NaN is true); bool -> number: 0 or 1.
 */
#include "webflow_kernels.h"
#include "strided.h"

enum { WF_DT_FLOAT = 1, WF_DT_DOUBLE = 2, WF_DT_INT32 = 3, WF_DT_UINT8 = 4, WF_DT_INT64 = 9, WF_DT_BOOL = 10 };

typedef uint8_t wf_bool;

/* Float to integer, never trapping (the range tests are false for NaN). */
static inline int32_t wf_float_to_i32(double x) {
    return (x > -2147483649.0 && x < 2147483648.0) ? (int32_t)x : INT32_MIN;
}
static inline int64_t wf_float_to_i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

/* One conversion per (source kind, destination type). */
#define WF_TO_FLOAT(x) ((float)(x))
#define WF_TO_DOUBLE(x) ((double)(x))
#define WF_INT_TO_I32(x) ((int32_t)(uint32_t)(x))
#define WF_INT_TO_I64(x) ((int64_t)(x))
#define WF_INT_TO_U8(x) ((uint8_t)(x))
#define WF_FLOAT_TO_I32(x) wf_float_to_i32((double)(x))
#define WF_FLOAT_TO_I64(x) wf_float_to_i64((double)(x))
#define WF_FLOAT_TO_U8(x) ((uint8_t)(uint32_t)wf_float_to_i32((double)(x)))
#define WF_TO_BOOL(x) ((wf_bool)((x) != 0))

#define WF_CONVERT(S, D, CONVERT)                                                \
    do {                                                                         \
        const S *from = (const S *)src;                                          \
        D *to = (D *)dst;                                                        \
        for (wf_size i = 0; i < n; ++i) to[i] = CONVERT(from[i]);                \
    } while (0)

/* All destinations for one source type S; FLOAT_SOURCE picks the float->int rules. */
#define WF_CAST_FROM(S, TO_I32, TO_I64, TO_U8)                                   \
    switch (dst_type) {                                                          \
        case WF_DT_FLOAT: WF_CONVERT(S, float, WF_TO_FLOAT); return WF_OK;        \
        case WF_DT_DOUBLE: WF_CONVERT(S, double, WF_TO_DOUBLE); return WF_OK;     \
        case WF_DT_INT32: WF_CONVERT(S, int32_t, TO_I32); return WF_OK;           \
        case WF_DT_INT64: WF_CONVERT(S, int64_t, TO_I64); return WF_OK;           \
        case WF_DT_UINT8: WF_CONVERT(S, uint8_t, TO_U8); return WF_OK;            \
        case WF_DT_BOOL: WF_CONVERT(S, wf_bool, WF_TO_BOOL); return WF_OK;        \
        default: return WF_BAD_ARGUMENT;                                         \
    }

WF_EXPORT int wf_cast(const void *src, int src_type, void *dst, int dst_type, wf_size n) {
    switch (src_type) {
        case WF_DT_FLOAT: WF_CAST_FROM(float, WF_FLOAT_TO_I32, WF_FLOAT_TO_I64, WF_FLOAT_TO_U8)
        case WF_DT_DOUBLE: WF_CAST_FROM(double, WF_FLOAT_TO_I32, WF_FLOAT_TO_I64, WF_FLOAT_TO_U8)
        case WF_DT_INT32: WF_CAST_FROM(int32_t, WF_INT_TO_I32, WF_INT_TO_I64, WF_INT_TO_U8)
        case WF_DT_INT64: WF_CAST_FROM(int64_t, WF_INT_TO_I32, WF_INT_TO_I64, WF_INT_TO_U8)
        case WF_DT_UINT8: WF_CAST_FROM(uint8_t, WF_INT_TO_I32, WF_INT_TO_I64, WF_INT_TO_U8)
        case WF_DT_BOOL: WF_CAST_FROM(wf_bool, WF_INT_TO_I32, WF_INT_TO_I64, WF_INT_TO_U8)
        default: return WF_BAD_ARGUMENT;
    }
}

/* Copy a strided view of `element_size`-byte elements (1, 2, 4 or 8) into a contiguous buffer, so a
 * transposed or sliced NumPy view can be handed to the contiguous kernels. Strides are in elements.
 * Returns WF_OK, or WF_BAD_ARGUMENT (unsupported element size, or more than WF_MAX_DIMS dimensions). */
#define WF_GATHER_STRIDED(T)                                                                     \
    do {                                                                                         \
        const T *from = (const T *)src;                                                          \
        T *to = (T *)dst;                                                                        \
        for (wf_size r = 0; r < rows; ++r) {                                                     \
            const T *row = from + walk.offset[0];                                                \
            T *target = to + walk.offset[1];                                                     \
            for (wf_size i = 0; i < n; ++i) target[i] = row[i * step];                           \
            wf_walk_next_row(&walk);                                                             \
        }                                                                                        \
    } while (0)

WF_EXPORT int wf_copy_strided(const void *src, void *dst, int element_size, int ndim, const wf_size *shape,
                              const wf_size *strides) {
    wf_size dst_strides[WF_MAX_DIMS];
    if (ndim < 0 || ndim > WF_MAX_DIMS) return WF_BAD_ARGUMENT;
    wf_contiguous_strides(ndim, shape, dst_strides);
    const wf_size *all[2] = {strides, dst_strides};
    wf_walk walk;
    if (wf_walk_init(&walk, ndim, shape, 2, all) != WF_OK) return WF_BAD_ARGUMENT;
    wf_size rows = wf_walk_rows(&walk), n = wf_walk_row_length(&walk), step = walk.stride[0][walk.ndim - 1];
    switch (element_size) {
        case 1: WF_GATHER_STRIDED(uint8_t); return WF_OK;
        case 2: WF_GATHER_STRIDED(uint16_t); return WF_OK;
        case 4: WF_GATHER_STRIDED(uint32_t); return WF_OK;
        case 8: WF_GATHER_STRIDED(uint64_t); return WF_OK;
        default: return WF_BAD_ARGUMENT;
    }
}
