/* gather.c: GatherV2 along one axis, and scatter-add (UnsortedSegmentSum, embedding gradients).
 *
 * The caller views params as [outer, axis_size, inner] (outer = product of the dims before the axis,
 * inner = product of those after it, batch dims folded into outer) and indices as a flat list:
 *
 *   wf_size wf_gather_i32(const void *params, const int32_t *indices, void *out, wf_size outer,
 *                         wf_size axis_size, wf_size inner_bytes, wf_size count)
 *     out[o, j, :] = params[o, indices[j], :]     (out is [outer, count, inner]; any dtype: we copy bytes)
 *
 *   wf_size wf_scatter_add_f32_i32(const float *updates, const int32_t *indices, float *out,
 *                                  wf_size count, wf_size inner, wf_size num_segments)
 *     out[indices[j], :] += updates[j, :]         (out is [num_segments, inner]; the caller zero-fills it)
 *     Negative indices are skipped, as TensorFlow's UnsortedSegmentSum drops them.
 *
 * Indices are all checked before anything is written: on a bad one (gather: outside [0, axis_size);
 * scatter: >= num_segments) the kernel returns 1 + its position in `indices` and leaves `out` as it
 * was; the caller raises InvalidArgumentError ("indices[3] = 7 is not in [0, 5)"). Never a crash.
 * Returns WF_OK (0) otherwise.
 */
#include "webflow_kernels.h"

#define WF_GATHER(I, suffix)                                                                          \
    WF_EXPORT wf_size wf_gather_##suffix(const void *params, const I *indices, void *out, wf_size outer, \
                                         wf_size axis_size, wf_size inner_bytes, wf_size count) {     \
        for (wf_size j = 0; j < count; ++j)                                                           \
            if (indices[j] < 0 || indices[j] >= (I)axis_size) return j + 1;                           \
        const char *source = (const char *)params;                                                    \
        char *target = (char *)out;                                                                   \
        for (wf_size o = 0; o < outer; ++o) {                                                         \
            const char *block = source + o * axis_size * inner_bytes;                                 \
            for (wf_size j = 0; j < count; ++j) {                                                     \
                __builtin_memcpy(target, block + (wf_size)indices[j] * inner_bytes, inner_bytes);     \
                target += inner_bytes;                                                                \
            }                                                                                         \
        }                                                                                             \
        return WF_OK;                                                                                 \
    }
WF_GATHER(int32_t, i32)
WF_GATHER(int64_t, i64)

#define WF_SCATTER_ADD(T, suffix, I, index_suffix, ADD)                                                \
    WF_EXPORT wf_size wf_scatter_add_##suffix##_##index_suffix(const T *updates, const I *indices,     \
                                                               T *out, wf_size count, wf_size inner,   \
                                                               wf_size num_segments) {                 \
        for (wf_size j = 0; j < count; ++j)                                                            \
            if (indices[j] >= (I)num_segments) return j + 1;                                           \
        for (wf_size j = 0; j < count; ++j) {                                                          \
            if (indices[j] < 0) continue;                                                              \
            T *row = out + (wf_size)indices[j] * inner;                                                \
            const T *update = updates + j * inner;                                                     \
            for (wf_size i = 0; i < inner; ++i) row[i] = ADD(row[i], update[i]);                       \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }
#define WF_PLAIN_ADD(a, b) ((a) + (b))
#define WF_WRAP_ADD_I32(a, b) ((int32_t)((uint32_t)(a) + (uint32_t)(b)))
#define WF_WRAP_ADD_I64(a, b) ((int64_t)((uint64_t)(a) + (uint64_t)(b)))
WF_SCATTER_ADD(float, f32, int32_t, i32, WF_PLAIN_ADD)
WF_SCATTER_ADD(float, f32, int64_t, i64, WF_PLAIN_ADD)
WF_SCATTER_ADD(double, f64, int32_t, i32, WF_PLAIN_ADD)
WF_SCATTER_ADD(double, f64, int64_t, i64, WF_PLAIN_ADD)
WF_SCATTER_ADD(int32_t, i32, int32_t, i32, WF_WRAP_ADD_I32)
WF_SCATTER_ADD(int32_t, i32, int64_t, i64, WF_WRAP_ADD_I32)
WF_SCATTER_ADD(int64_t, i64, int32_t, i32, WF_WRAP_ADD_I64)
WF_SCATTER_ADD(int64_t, i64, int64_t, i64, WF_WRAP_ADD_I64)
