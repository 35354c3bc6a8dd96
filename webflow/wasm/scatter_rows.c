/* scatter_rows.c: TensorFlow's ScatterAdd / ScatterSub / ScatterUpdate (and their Resource twins) on a variable's
 * rows, in place: the sparse update an optimizer applies for an embedding's IndexedSlices gradient.
 *
 *   wf_size wf_scatter_rows_<t>_<i>(T *var, const I *indices, const T *updates, wf_size count, wf_size inner,
 *                                   wf_size rows, int mode)
 *     for j in 0..count-1, in order:  var[indices[j], :] (+= | -= | =) updates[j, :]   (mode 0 | 1 | 2)
 *   (t = f32, f64; i = i32, i64; var is [rows, inner], updates [count, inner], both contiguous)
 *
 * Repeated indices apply each of their rows in turn (TensorFlow's kernels loop over the indices the same way),
 * so var - u1 - u2 rounds twice where a summed gradient would round once. Every index is checked before anything
 * is written: on one outside [0, rows) the kernel returns 1 + its position and leaves var as it was (the caller
 * raises InvalidArgumentError with TensorFlow's message); WF_OK (0) otherwise.
 */
#include "webflow_kernels.h"

#define WF_SCATTER_ROWS(T, suffix, I, index_suffix)                                                       \
    WF_EXPORT wf_size wf_scatter_rows_##suffix##_##index_suffix(T *var, const I *indices, const T *updates, \
                                                                wf_size count, wf_size inner,           \
                                                                wf_size rows, int mode) {               \
        for (wf_size j = 0; j < count; ++j)                                                             \
            if (indices[j] < 0 || (wf_size)indices[j] >= rows) return j + 1;                             \
        for (wf_size j = 0; j < count; ++j) {                                                           \
            T *row = var + (wf_size)indices[j] * inner;                                                 \
            const T *update = updates + j * inner;                                                      \
            if (mode == 0)                                                                              \
                for (wf_size k = 0; k < inner; ++k) row[k] += update[k];                                \
            else if (mode == 1)                                                                         \
                for (wf_size k = 0; k < inner; ++k) row[k] -= update[k];                                \
            else                                                                                        \
                for (wf_size k = 0; k < inner; ++k) row[k] = update[k];                                 \
        }                                                                                               \
        return WF_OK;                                                                                   \
    }

WF_SCATTER_ROWS(float, f32, int32_t, i32)
WF_SCATTER_ROWS(float, f32, int64_t, i64)
WF_SCATTER_ROWS(double, f64, int32_t, i32)
WF_SCATTER_ROWS(double, f64, int64_t, i64)
