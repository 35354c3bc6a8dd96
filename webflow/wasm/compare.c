/* compare.c: comparisons (a bool result) and select, with NumPy/TensorFlow broadcasting.
 *
 *   int wf_<cmp>_<t>(const T *x, const T *y, uint8_t *out, int ndim, const wf_size *shape,
 *                    const wf_size *x_strides, const wf_size *y_strides)
 *       out[i] = x[i] <cmp> y[i] as 0/1; cmp: equal not_equal greater greater_equal less less_equal;
 *       t: f32 f64 i32 i64 u8 (u8 is also bool). NaN compares unequal to everything (as in C and TF).
 *   int wf_select_<w>(const uint8_t *cond, const T *t, const T *e, T *out, int ndim, const wf_size *shape,
 *                     const wf_size *cond_strides, const wf_size *t_strides, const wf_size *e_strides)
 *       out[i] = cond[i] ? t[i] : e[i]; w is the element width in bits (8, 16, 32, 64): values are copied
 *       as bits, so one kernel serves every dtype of that width.
 * `out` is contiguous with `shape`; strides are in elements (0 on a broadcast dimension). Return WF_OK, or
 * WF_BAD_ARGUMENT for more than WF_MAX_DIMS dimensions.
 */
#include "webflow_kernels.h"
#include "strided.h"

#define WF_COMPARE(name, T, suffix, OP)                                                                \
    WF_EXPORT int wf_##name##_##suffix(const T *x, const T *y, uint8_t *out, int ndim, const wf_size *shape, \
                                       const wf_size *x_strides, const wf_size *y_strides) {           \
        wf_size out_strides[WF_MAX_DIMS];                                                              \
        if (ndim < 0 || ndim > WF_MAX_DIMS) return WF_BAD_ARGUMENT;                                    \
        wf_contiguous_strides(ndim, shape, out_strides);                                               \
        const wf_size *strides[3] = {x_strides, y_strides, out_strides};                               \
        wf_walk walk;                                                                                  \
        if (wf_walk_init(&walk, ndim, shape, 3, strides) != WF_OK) return WF_BAD_ARGUMENT;             \
        wf_size rows = wf_walk_rows(&walk), n = wf_walk_row_length(&walk);                             \
        int last = walk.ndim - 1;                                                                      \
        wf_size sx = walk.stride[0][last], sy = walk.stride[1][last];                                  \
        for (wf_size r = 0; r < rows; ++r) {                                                           \
            const T *a = x + walk.offset[0], *b = y + walk.offset[1];                                  \
            uint8_t *o = out + walk.offset[2];                                                         \
            for (wf_size i = 0; i < n; ++i) o[i] = (uint8_t)(a[i * sx] OP b[i * sy]);                  \
            wf_walk_next_row(&walk);                                                                   \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }

#define WF_COMPARE_ALL(T, suffix)                      \
    WF_COMPARE(equal, T, suffix, ==)                   \
    WF_COMPARE(not_equal, T, suffix, !=)               \
    WF_COMPARE(greater, T, suffix, >)                  \
    WF_COMPARE(greater_equal, T, suffix, >=)           \
    WF_COMPARE(less, T, suffix, <)                     \
    WF_COMPARE(less_equal, T, suffix, <=)

WF_COMPARE_ALL(float, f32)
WF_COMPARE_ALL(double, f64)
WF_COMPARE_ALL(int32_t, i32)
WF_COMPARE_ALL(int64_t, i64)
WF_COMPARE_ALL(uint8_t, u8)

/* cond ? then : else as bit masks, with no branch: dropout's mask is a coin flip per element, and a
 * branch on it mispredicts half the time (128x1024 elements: 690 -> 60 us, measured). The unit-stride
 * row (an else that is a broadcast scalar included) is the case the compiler vectorizes. */
#define WF_PICK(T, condition, then, otherwise) \
    ((T)(((then) & ((T)0 - (T)((condition) != 0))) | ((otherwise) & ~((T)0 - (T)((condition) != 0)))))

#define WF_SELECT(T, width)                                                                            \
    WF_EXPORT int wf_select_##width(const uint8_t *cond, const T *t, const T *e, T *out, int ndim,     \
                                    const wf_size *shape, const wf_size *cond_strides,                 \
                                    const wf_size *t_strides, const wf_size *e_strides) {              \
        wf_size out_strides[WF_MAX_DIMS];                                                              \
        if (ndim < 0 || ndim > WF_MAX_DIMS) return WF_BAD_ARGUMENT;                                    \
        wf_contiguous_strides(ndim, shape, out_strides);                                               \
        const wf_size *strides[4] = {cond_strides, t_strides, e_strides, out_strides};                 \
        wf_walk walk;                                                                                  \
        if (wf_walk_init(&walk, ndim, shape, 4, strides) != WF_OK) return WF_BAD_ARGUMENT;             \
        wf_size rows = wf_walk_rows(&walk), n = wf_walk_row_length(&walk);                             \
        int last = walk.ndim - 1;                                                                      \
        wf_size sc = walk.stride[0][last], st = walk.stride[1][last], se = walk.stride[2][last];       \
        for (wf_size r = 0; r < rows; ++r) {                                                           \
            const uint8_t *c = cond + walk.offset[0];                                                  \
            const T *a = t + walk.offset[1], *b = e + walk.offset[2];                                  \
            T *o = out + walk.offset[3];                                                               \
            if (sc == 1 && st == 1 && se <= 1) {                                                       \
                for (wf_size i = 0; i < n; ++i) o[i] = WF_PICK(T, c[i], a[i], b[i * se]);              \
            } else {                                                                                   \
                for (wf_size i = 0; i < n; ++i) o[i] = WF_PICK(T, c[i * sc], a[i * st], b[i * se]);    \
            }                                                                                          \
            wf_walk_next_row(&walk);                                                                   \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }

WF_SELECT(uint8_t, 8)
WF_SELECT(uint16_t, 16)
WF_SELECT(uint32_t, 32)
WF_SELECT(uint64_t, 64)
