/* softmax_rows.c: float32 Softmax and LogSoftmax along the last axis of a large tensor, rows shared out over threads.
 *
 * Exports (x and y contiguous [rows, classes]; run on `threads` threads, wf_run_parallel in parallel.c):
 *   void wf_softmax_rows_f32(x, y, rows, classes, threads)       y = exp(x - max) * (1 / sum exp(x - max)), per row
 *   void wf_log_softmax_rows_f32(x, y, rows, classes, threads)   y = (x - max) - log(sum exp(x - max)), per row
 *        (the exps go into y first, as scratch; then y is overwritten while the row is still in L1)
 *
 * Why a second softmax kernel: softmax.c's runs one row after another on one thread, with a scalar maximum
 * (NaN-aware, which the compiler cannot vectorize), and NumPy makes four passes over memory with a temporary;
 * TensorFlow shares the rows out over its threads. Here each row is read while it sits in L1: a vector maximum
 * over 4 accumulators, then exp and its sum in one pass, then one multiply by the sum's reciprocal (as
 * TensorFlow's kernel does: a division per element would cost as much as the exp).
 * A NaN in a row makes the row NaN, as NumPy's kernel does: the maximum skips it, but its exp is NaN, and so
 * the sum. Threads claim units of whole rows from a counter (wf_next_unit); every row is one thread's work,
 * in order, so the result does not depend on the threads.
 */
#include "register_tiles.h" /* vec: 64-byte vectors in the avx512 build (16 lanes), else the build's width */
#include "vector_math.h"
#include "softmax_row.h" /* row_max, shifted_exp: the passes over a row both softmax kernels make */

#define UNIT_ELEMENTS 16384 /* about this many elements of whole rows per unit of work (64 KB, in L2) */

typedef struct {
    const float *x;
    float *y;
    wf_size rows, classes, rows_per_unit, next;
    int log_softmax; /* LogSoftmax (else Softmax) */
} softmax_job;

static void softmax_row(const float *x, float *y, wf_size n) {
    float scale = 1.0f / shifted_exp(x, y, n, row_max(x, n));
    wf_size i = 0;
    for (; i + LANES <= n; i += LANES) store(y + i, load(y + i) * scale);
    for (; i < n; ++i) y[i] *= scale;
}

/* NumPy's order of operations (nn_ops.log_softmax_kernel): (x - max) first, then minus the log of the sum. */
static void log_softmax_row(const float *x, float *y, wf_size n) {
    float shift = row_max(x, n);
    float log_sum = wf_scalar_log_f32(shifted_exp(x, y, n, shift));
    wf_size i = 0;
    for (; i + LANES <= n; i += LANES) store(y + i, (load(x + i) - shift) - log_sum);
    for (; i < n; ++i) y[i] = (x[i] - shift) - log_sum;
}

static void softmax_rows_thread(void *context, wf_size thread) {
    softmax_job *job = context;
    (void)thread;
    wf_size n = job->classes, units = (job->rows + job->rows_per_unit - 1) / job->rows_per_unit;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_size last = WF_MIN(job->rows, (u + 1) * job->rows_per_unit);
        for (wf_size r = u * job->rows_per_unit; r < last; ++r) {
            if (job->log_softmax) log_softmax_row(job->x + r * n, job->y + r * n, n);
            else softmax_row(job->x + r * n, job->y + r * n, n);
        }
    }
}

static void rows_kernel(const float *x, float *y, wf_size rows, wf_size classes, wf_size threads, int log_softmax) {
    if (rows <= 0 || classes <= 0) return;
    wf_size per_unit = WF_MAX(1, UNIT_ELEMENTS / classes);
    softmax_job job = {x, y, rows, classes, per_unit, 0, log_softmax};
    wf_run_parallel(softmax_rows_thread, &job, WF_MIN(threads, (rows + per_unit - 1) / per_unit));
}

WF_EXPORT void wf_softmax_rows_f32(const float *x, float *y, wf_size rows, wf_size classes, wf_size threads) {
    rows_kernel(x, y, rows, classes, threads, 0);
}

WF_EXPORT void wf_log_softmax_rows_f32(const float *x, float *y, wf_size rows, wf_size classes, wf_size threads) {
    rows_kernel(x, y, rows, classes, threads, 1);
}
