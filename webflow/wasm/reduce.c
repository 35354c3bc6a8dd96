/* reduce.c: Sum, Mean, Max, Min, Prod over any set of axes of a strided array.
 *
 *   int wf_reduce_sum_f32(const float *x, float *out, int ndim, const wf_size *shape,
 *                         const wf_size *x_strides, int axis_mask)
 *
 * Bit d of `axis_mask` set = axis d is reduced. `out` is contiguous with the kept axes' shape (what
 * keep_dims=False gives; keep_dims only changes the shape the caller reports, not the data).
 * How: give `out` a stride per input axis, 0 on reduced axes and the contiguous stride of the kept
 * shape elsewhere; then the input and output walk together (strided.h) and every input element
 * is folded into out[its kept coordinates]. After merging dimensions the innermost row is either
 *   - reduced (out stride 0): a horizontal fold of the row into one output value (vectorised), or
 *   - kept (out stride 1): out[i] = fold(out[i], x[i]) along the row (vectorised across outputs).
 * Summation order is row by row (with several accumulators inside a row), so float results can
 * differ from NumPy's pairwise sums in the last bits. Empty reductions give the identity
 * (0, 1, -inf / lowest, +inf / highest), as TensorFlow does. Max/Min propagate NaN.
 * Mean divides the sum by the number of reduced elements (integer division for integers).
 * Returns WF_OK, or WF_BAD_ARGUMENT if ndim > WF_MAX_DIMS.
 */
#include "webflow_kernels.h"
#include "strided.h"
#include "vector_math.h"

#define WF_REDUCE(name, T, suffix, IDENTITY, FOLD, SPLIT)                                                     \
    static inline T wf_fold_##name##_##suffix(T a, T b) { return (FOLD); }                             \
    static T wf_row_fold_##name##_##suffix(const T *x, wf_size stride, wf_size n, T acc) {             \
        if (SPLIT && stride == 1) {                                                                    \
            /* four independent accumulators: the adds overlap instead of waiting on each other */     \
            T a0 = IDENTITY, a1 = IDENTITY, a2 = IDENTITY, a3 = IDENTITY;                              \
            wf_size i = 0;                                                                             \
            for (; i + 4 <= n; i += 4) {                                                               \
                a0 = wf_fold_##name##_##suffix(a0, x[i]);                                              \
                a1 = wf_fold_##name##_##suffix(a1, x[i + 1]);                                          \
                a2 = wf_fold_##name##_##suffix(a2, x[i + 2]);                                          \
                a3 = wf_fold_##name##_##suffix(a3, x[i + 3]);                                          \
            }                                                                                          \
            for (; i < n; ++i) a0 = wf_fold_##name##_##suffix(a0, x[i]);                               \
            return wf_fold_##name##_##suffix(acc, wf_fold_##name##_##suffix(                           \
                wf_fold_##name##_##suffix(a0, a1), wf_fold_##name##_##suffix(a2, a3)));                \
        }                                                                                              \
        for (wf_size i = 0; i < n; ++i) acc = wf_fold_##name##_##suffix(acc, x[i * stride]);           \
        return acc;                                                                                    \
    }                                                                                                  \
    static int wf_reduce_##name##_##suffix##_into(const T *x, T *out, int ndim, const wf_size *shape,  \
                                                  const wf_size *x_strides, int axis_mask,             \
                                                  wf_size *reduced_count) {                            \
        wf_size out_strides[WF_MAX_DIMS], out_size = 1, count = 1;                                     \
        if (ndim < 0 || ndim > WF_MAX_DIMS) return WF_BAD_ARGUMENT;                                    \
        for (int d = ndim - 1; d >= 0; --d) {                                                          \
            if (axis_mask & (1 << d)) {                                                                \
                out_strides[d] = 0;                                                                    \
                count *= shape[d];                                                                     \
            } else {                                                                                   \
                out_strides[d] = out_size;                                                             \
                out_size *= shape[d];                                                                  \
            }                                                                                          \
        }                                                                                              \
        *reduced_count = count;                                                                        \
        for (wf_size i = 0; i < out_size; ++i) out[i] = IDENTITY;                                      \
        const wf_size *strides[2] = {x_strides, out_strides};                                          \
        wf_walk walk;                                                                                  \
        if (wf_walk_init(&walk, ndim, shape, 2, strides) != WF_OK) return WF_BAD_ARGUMENT;             \
        wf_size rows = wf_walk_rows(&walk), n = wf_walk_row_length(&walk);                             \
        int last = walk.ndim - 1;                                                                      \
        wf_size sx = walk.stride[0][last], so = walk.stride[1][last];                                  \
        for (wf_size r = 0; r < rows; ++r) {                                                           \
            const T *row = x + walk.offset[0];                                                         \
            T *target = out + walk.offset[1];                                                          \
            if (so == 0) {                                                                             \
                *target = wf_row_fold_##name##_##suffix(row, sx, n, *target);                          \
            } else if (sx == 1 && so == 1) {                                                           \
                for (wf_size i = 0; i < n; ++i) target[i] = wf_fold_##name##_##suffix(target[i], row[i]); \
            } else {                                                                                   \
                for (wf_size i = 0; i < n; ++i)                                                        \
                    target[i * so] = wf_fold_##name##_##suffix(target[i * so], row[i * sx]);           \
            }                                                                                          \
            wf_walk_next_row(&walk);                                                                   \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }                                                                                                  \
    WF_EXPORT int wf_reduce_##name##_##suffix(const T *x, T *out, int ndim, const wf_size *shape,      \
                                              const wf_size *x_strides, int axis_mask) {               \
        wf_size count;                                                                                 \
        return wf_reduce_##name##_##suffix##_into(x, out, ndim, shape, x_strides, axis_mask, &count);  \
    }

#define WF_MEAN(T, suffix)                                                                             \
    WF_EXPORT int wf_reduce_mean_##suffix(const T *x, T *out, int ndim, const wf_size *shape,          \
                                          const wf_size *x_strides, int axis_mask) {                   \
        wf_size count, out_size = 1;                                                                   \
        int status = wf_reduce_sum_##suffix##_into(x, out, ndim, shape, x_strides, axis_mask, &count); \
        if (status != WF_OK) return status;                                                            \
        for (int d = 0; d < ndim; ++d)                                                                 \
            if (!(axis_mask & (1 << d))) out_size *= shape[d];                                         \
        if (count == 0) {                                                                              \
            for (wf_size i = 0; i < out_size; ++i) out[i] = (T)0 / (T)0; /* 0/0: NaN for floats */    \
        } else {                                                                                       \
            for (wf_size i = 0; i < out_size; ++i) out[i] = out[i] / (T)count;                         \
        }                                                                                              \
        return WF_OK;                                                                                  \
    }

/* Integer sums and products wrap around, as TensorFlow's do (unsigned arithmetic, no overflow UB).
 * They use one accumulator (SPLIT 0): the compiler vectorises that itself (integer adds reassociate
 * freely), and GCC 12 with -mavx2 -O3 miscompiles the four-accumulator form of this wrapping add
 * (sum(0..7) came out 18). Floats keep four accumulators, which the compiler may not invent for them. */
#define WF_REDUCE_INT(T, U, suffix, LOWEST, HIGHEST)                          \
    WF_REDUCE(sum, T, suffix, 0, (T)((U)a + (U)b), 0)                         \
    WF_REDUCE(prod, T, suffix, 1, (T)((U)a * (U)b), 0)                        \
    WF_REDUCE(max, T, suffix, LOWEST, a > b ? a : b, 0)                       \
    WF_REDUCE(min, T, suffix, HIGHEST, a < b ? a : b, 0)

WF_REDUCE(sum, float, f32, 0.0f, a + b, 1)
WF_REDUCE(prod, float, f32, 1.0f, a * b, 1)
WF_REDUCE(max, float, f32, -WF_INF_F32, wf_max_f32(a, b), 1)
WF_REDUCE(min, float, f32, WF_INF_F32, wf_min_f32(a, b), 1)
WF_REDUCE(sum, double, f64, 0.0, a + b, 1)
WF_REDUCE(prod, double, f64, 1.0, a * b, 1)
WF_REDUCE(max, double, f64, -WF_INF_F64, wf_max_f64(a, b), 1)
WF_REDUCE(min, double, f64, WF_INF_F64, wf_min_f64(a, b), 1)
WF_REDUCE_INT(int32_t, uint32_t, i32, INT32_MIN, INT32_MAX)
WF_REDUCE_INT(int64_t, uint64_t, i64, INT64_MIN, INT64_MAX)

WF_MEAN(float, f32)
WF_MEAN(double, f64)

/* Integer mean: TF divides the (wrapping) sum by the count, truncating; an empty mean is 0 here. */
#define WF_MEAN_INT(T, suffix)                                                                         \
    WF_EXPORT int wf_reduce_mean_##suffix(const T *x, T *out, int ndim, const wf_size *shape,          \
                                          const wf_size *x_strides, int axis_mask) {                   \
        wf_size count, out_size = 1;                                                                   \
        int status = wf_reduce_sum_##suffix##_into(x, out, ndim, shape, x_strides, axis_mask, &count); \
        if (status != WF_OK) return status;                                                            \
        for (int d = 0; d < ndim; ++d)                                                                 \
            if (!(axis_mask & (1 << d))) out_size *= shape[d];                                         \
        for (wf_size i = 0; i < out_size; ++i) out[i] = count ? (T)(out[i] / (T)count) : 0;            \
        return WF_OK;                                                                                  \
    }
WF_MEAN_INT(int32_t, i32)
WF_MEAN_INT(int64_t, i64)

/* --- float32 Sum over leading axes in fixed blocks, on several threads (a bias gradient) ---------------------
 *   void wf_column_sums_f32(x, rows, columns, sums)   sums[c] = ((0 + x[0][c]) + x[1][c]) + ... in row order
 *   int wf_sum_blocks_f32(x, out, partials, blocks, block_rows, columns, threads)
 *       x [blocks * block_rows, columns]: partials[b] = the column sums of block b's rows, out = the column sums
 *       of the partials, in block order. A block is one index of the first axis (an image of a conv layer's
 *       gradient), so the order of the additions is fixed whatever thread summed which block, and
 *       _FusedMaxPoolGrad (pool.c), summing each image it just wrote with wf_column_sums_f32, gets the same
 *       bits. With block_rows 1 that is the plain row-by-row sum (0 + x = x), summed on one thread.
 * Why: the bias gradient's Sum read the whole conv gradient once more (batch 50: 5 MB, ~0.45 ms of a 25 ms
 * step for conv1), and its threads came from Python's pool. Each block's partials also keep float32's
 * rounding at about one block's rows rather than the whole batch's. */
void wf_column_sums_f32(const float *x, wf_size rows, wf_size columns, float *sums) {
    const wf_size L = WF_F32_LANES;
    wf_size c = 0;
    for (; c + L <= columns; c += L) {
        wf_f32v total = wf_splat_f32v(0.0f);
        for (wf_size r = 0; r < rows; ++r) total += wf_load_f32v(x + r * columns + c);
        wf_store_f32v(sums + c, total);
    }
    for (; c < columns; ++c) {
        float total = 0.0f;
        for (wf_size r = 0; r < rows; ++r) total += x[r * columns + c];
        sums[c] = total;
    }
}

#define BLOCKS_PER_UNIT 2 /* a thread's claim: 2 images of conv1's gradient at batch 50 are ~4% of the work */

typedef struct {
    const float *x;
    float *partials;
    wf_size blocks, block_rows, columns, next;
} sum_blocks_job;

static void sum_blocks_thread(void *context, wf_size thread) {
    sum_blocks_job *job = context;
    wf_size units = (job->blocks + BLOCKS_PER_UNIT - 1) / BLOCKS_PER_UNIT, block_size = job->block_rows * job->columns;
    (void)thread;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        for (wf_size b = u * BLOCKS_PER_UNIT; b < WF_MIN((u + 1) * BLOCKS_PER_UNIT, job->blocks); ++b)
            wf_column_sums_f32(job->x + b * block_size, job->block_rows, job->columns, job->partials + b * job->columns);
    }
}

WF_EXPORT int wf_sum_blocks_f32(const float *x, float *out, float *partials, wf_size blocks, wf_size block_rows,
                                wf_size columns, wf_size threads) {
    if (blocks < 0 || block_rows < 0 || columns < 0 || threads < 1) return WF_BAD_ARGUMENT;
    if (block_rows == 1) {
        wf_column_sums_f32(x, blocks, columns, out);
        return WF_OK;
    }
    sum_blocks_job job = {x, partials, blocks, block_rows, columns, 0};
    wf_run_parallel(sum_blocks_thread, &job, threads);
    wf_column_sums_f32(partials, blocks, columns, out);
    return WF_OK;
}
