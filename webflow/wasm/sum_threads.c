/* sum_threads.c: the sum of a whole contiguous float array, on the library's threads (parallel.c).
 *
 *   int wf_sum_all_f32(const float *x, wf_size n, float *partials, float *out, wf_size threads)
 *   int wf_sum_all_f64(const double *x, wf_size n, double *partials, double *out, wf_size threads)
 *       *out = the sum of x[0 .. n-1]. x is cut into chunks of WF_SUM_CHUNK elements; partials (at least
 *       wf_sum_chunks(n) = ceil(n / WF_SUM_CHUNK) of them, scratch) gets each chunk's sum, and *out those
 *       sums added in chunk order. A chunk is summed in ACCUMULATORS vectors (element i into lane i mod their
 *       total lanes), whose lanes are then added in a fixed order.
 *
 * Why: tf.reduce_sum / reduce_mean of a whole large tensor ran NumPy's one-thread loop, slower than TensorFlow,
 * which shares the pass over its threads. The grouping depends only on n, never on which thread summed
 * which chunk, so the result is the same on any number of threads (and in wasm, where the caller sums every
 * chunk). Rounding: each lane adds n / (chunks * lanes) values, then chunk sums are added; about the error
 * of NumPy's pairwise sum for these sizes, not bit for bit the same.
 */
#include "webflow_kernels.h"

#define WF_SUM_CHUNK 16384 /* 64 KB of float32: the unit of work a thread claims */
#define ACCUMULATORS 4     /* independent vector sums: the adds' latency hidden, as NumPy's unrolled loop */
#define UNITS_CHUNKS 4     /* chunks per claim: fewer atomic claims on big arrays */

#define WF_SUM_ALL(T, suffix, VT, LANES, LOAD)                                                                \
    static T sum_chunk_##suffix(const T *x, wf_size n) {                                                    \
        VT total[ACCUMULATORS];                                                                             \
        for (int a = 0; a < ACCUMULATORS; ++a) total[a] = (VT){0};                                          \
        wf_size i = 0;                                                                                      \
        for (; i + ACCUMULATORS * LANES <= n; i += ACCUMULATORS * LANES)                                    \
            for (int a = 0; a < ACCUMULATORS; ++a) total[a] += LOAD(x + i + a * LANES);                     \
        T lanes[ACCUMULATORS * LANES];                                                                      \
        for (int a = 0; a < ACCUMULATORS; ++a)                                                              \
            for (int l = 0; l < LANES; ++l) lanes[a * LANES + l] = total[a][l];                             \
        for (wf_size j = 0; i + j < n; ++j) lanes[j] += x[i + j]; /* the tail: j < ACCUMULATORS * LANES */  \
        T sum = 0;                                                                                          \
        for (int k = 0; k < ACCUMULATORS * LANES; ++k) sum += lanes[k];                                     \
        return sum;                                                                                         \
    }                                                                                                       \
    typedef struct {                                                                                        \
        const T *x;                                                                                         \
        T *partials;                                                                                        \
        wf_size n, chunks, next;                                                                            \
    } sum_job_##suffix;                                                                                     \
    static void sum_thread_##suffix(void *context, wf_size thread) {                                        \
        sum_job_##suffix *job = context;                                                                    \
        wf_size units = (job->chunks + UNITS_CHUNKS - 1) / UNITS_CHUNKS;                                    \
        (void)thread;                                                                                       \
        for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next))                 \
            for (wf_size c = u * UNITS_CHUNKS; c < WF_MIN((u + 1) * UNITS_CHUNKS, job->chunks); ++c) {      \
                wf_size start = c * WF_SUM_CHUNK;                                                           \
                job->partials[c] = sum_chunk_##suffix(job->x + start, WF_MIN(WF_SUM_CHUNK, job->n - start)); \
            }                                                                                               \
    }                                                                                                       \
    WF_EXPORT int wf_sum_all_##suffix(const T *x, wf_size n, T *partials, T *out, wf_size threads) {        \
        if (n < 0 || threads < 1) return WF_BAD_ARGUMENT;                                                   \
        sum_job_##suffix job = {x, partials, n, (n + WF_SUM_CHUNK - 1) / WF_SUM_CHUNK, 0};                  \
        wf_run_parallel(sum_thread_##suffix, &job, job.chunks > UNITS_CHUNKS ? threads : 1);                \
        T sum = 0;                                                                                          \
        for (wf_size c = 0; c < job.chunks; ++c) sum += partials[c];                                        \
        *out = sum;                                                                                         \
        return WF_OK;                                                                                       \
    }

WF_SUM_ALL(float, f32, wf_f32v, WF_F32_LANES, wf_load_f32v)
WF_SUM_ALL(double, f64, wf_f64v, WF_F64_LANES, wf_load_f64v)

WF_EXPORT wf_size wf_sum_chunks(wf_size n) { return (n + WF_SUM_CHUNK - 1) / WF_SUM_CHUNK; }
