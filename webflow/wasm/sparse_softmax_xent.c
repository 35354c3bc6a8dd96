/* sparse_softmax_xent.c: float32 SparseSoftmaxCrossEntropyWithLogits of large logits, rows shared out over threads.
 *
 * Exports (logits and backprop contiguous [rows, classes], labels [rows]; runs on `threads` threads, parallel.c):
 *   wf_size wf_sparse_softmax_xent_rows_f32_i32(logits, labels, loss, backprop, rows, classes, threads)
 *   wf_size wf_sparse_softmax_xent_rows_f32_i64(...)                            (labels int64)
 *       per row, s = logits - max:  loss = log(sum exp(s)) - s[label];  backprop = exp(s) / sum - one_hot(label)
 *       returns 0, or 1 + the row of the first label outside [0, classes) (then nothing is written: the caller
 *       raises TensorFlow's InvalidArgumentError naming it)
 *
 * Why: a language model's loss over a 10k-word vocabulary ([400, 10000] logits per step of the PTB-small LM)
 * took ~4 ms in NumPy (max, subtract, exp, sum, divide: five passes over 16 MB, on one thread), and softmax.c's
 * kernel is scalar in its maximum and 8 lanes wide in its exp. Here each row is read from memory once: a vector
 * maximum, then exp and its sum in one pass that writes the row of backprop, then one multiply by the sum's
 * reciprocal while that row is still in L1/L2 (as softmax_rows.c does; TensorFlow's kernel divides, which gives
 * the same value within an ulp). The exp is vector_math.h's one definition (WF_DEFINE_EXP_F32: its reduction and
 * polynomial, whose error its tests bound; vscalefps for the 2^n in the avx512 build) on register_tiles.h's
 * 64-byte vectors in the avx512 build; softmax_row.h prefetches the next row while this one's exp runs.
 * A NaN in a row makes its loss and backprop NaN (the maximum skips it, its exp is NaN, and so the sum), as
 * NumPy's kernel does. Each row is one thread's work, in order: the result does not depend on the threads.
 */
#include "register_tiles.h" /* vec: 64-byte vectors in the avx512 build (16 lanes), else the build's width */
#include "vector_math.h"
#include "softmax_row.h" /* row_max, shifted_exp: the passes over a row both softmax kernels make */

#define UNIT_ELEMENTS 16384 /* about this many elements of whole rows per unit of work (64 KB, in L2) */

typedef struct {
    const float *x;
    const void *labels;
    int wide_labels; /* int64 labels (else int32) */
    float *loss, *backprop;
    wf_size rows, classes, rows_per_unit, next;
} xent_job;

/* int64, so that a huge int64 label cannot wrap into range on wasm32 (where wf_size has 32 bits) */
static inline int64_t label_at(const xent_job *job, wf_size r) {
    return job->wide_labels ? ((const int64_t *)job->labels)[r] : ((const int32_t *)job->labels)[r];
}

static void xent_row(const xent_job *job, wf_size r) {
    wf_size n = job->classes, label = (wf_size)label_at(job, r);  /* checked: in [0, classes) */
    const float *x = job->x + r * n;
    float *y = job->backprop + r * n;
    float shift = row_max(x, n);
    float sum = shifted_exp(x, y, n, shift);
    job->loss[r] = wf_scalar_log_f32(sum) - (x[label] - shift);
    float scale = 1.0f / sum;
    wf_size i = 0;
    for (; i + LANES <= n; i += LANES) store(y + i, load(y + i) * scale);
    for (; i < n; ++i) y[i] *= scale;
    y[label] -= 1.0f;
}

static void xent_thread(void *context, wf_size thread) {
    xent_job *job = context;
    (void)thread;
    wf_size units = (job->rows + job->rows_per_unit - 1) / job->rows_per_unit;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_size last = WF_MIN(job->rows, (u + 1) * job->rows_per_unit);
        for (wf_size r = u * job->rows_per_unit; r < last; ++r) xent_row(job, r);
    }
}

static wf_size sparse_xent_rows(const float *logits, const void *labels, int wide_labels, float *loss,
                                float *backprop, wf_size rows, wf_size classes, wf_size threads) {
    if (rows <= 0 || classes <= 0) return 0;
    xent_job job = {logits, labels, wide_labels, loss, backprop, rows, classes, WF_MAX(1, UNIT_ELEMENTS / classes), 0};
    for (wf_size r = 0; r < rows; ++r) {
        int64_t label = label_at(&job, r);
        if (label < 0 || label >= (int64_t)classes) return r + 1;
    }
    wf_run_parallel(xent_thread, &job, WF_MIN(threads, (rows + job.rows_per_unit - 1) / job.rows_per_unit));
    return 0;
}

WF_EXPORT wf_size wf_sparse_softmax_xent_rows_f32_i32(const float *logits, const int32_t *labels, float *loss,
                                                      float *backprop, wf_size rows, wf_size classes,
                                                      wf_size threads) {
    return sparse_xent_rows(logits, labels, 0, loss, backprop, rows, classes, threads);
}

WF_EXPORT wf_size wf_sparse_softmax_xent_rows_f32_i64(const float *logits, const int64_t *labels, float *loss,
                                                      float *backprop, wf_size rows, wf_size classes,
                                                      wf_size threads) {
    return sparse_xent_rows(logits, labels, 1, loss, backprop, rows, classes, threads);
}
