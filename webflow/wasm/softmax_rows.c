/* softmax_rows.c: float32 Softmax along the last axis of a large tensor, its rows shared out over threads.
 *
 * Export (x and y contiguous [rows, classes]; runs on `threads` threads, wf_run_parallel in parallel.c):
 *   void wf_softmax_rows_f32(x, y, rows, classes, threads)   y = exp(x - max) * (1 / sum exp(x - max)), per row
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

#define UNIT_ELEMENTS 16384 /* about this many elements of whole rows per unit of work (64 KB, in L2) */

typedef struct {
    const float *x;
    float *y;
    wf_size rows, classes, rows_per_unit, next;
} softmax_job;

ALWAYS_INLINE vec splat(float x) {
    vec v;
    for (int lane = 0; lane < LANES; ++lane) v[lane] = x;
    return v;
}
ALWAYS_INLINE vec select(ivec mask, vec a, vec b) { return (vec)((mask & (ivec)a) | (~mask & (ivec)b)); }

/* exp(x) for x <= 0, -inf or NaN (a row minus its maximum): vector_math.h's wf_exp_f32v (the same reduction,
 * polynomial and two-step scaling, whose error its tests bound) on this file's wider vectors, without the
 * overflow clamp that x <= 0 never needs. */
ALWAYS_INLINE vec exp_nonpositive(vec x) {
    vec xc = select(x < -104.0f, splat(-104.0f), x);
    vec t = xc * 1.44269504088896341f + WF_ROUND_MAGIC_F;
    ivec n = (ivec)t - 0x4B400000;
    vec nf = t - WF_ROUND_MAGIC_F;
    vec r = (xc - nf * WF_LN2_HI_F) - nf * WF_LN2_LO_F;
    vec p = splat(1.3814610429108143e-3f);
    p = p * r + 8.368710055947304e-3f;
    p = p * r + 4.166838899254799e-2f;
    p = p * r + 1.666652113199234e-1f;
    p = p * r + 4.999999403953552e-1f;
    p = 1.0f + (r + (r * r) * p);
    ivec n1 = n >> 1, n2 = n - (n >> 1);
    vec result = p * (vec)((n1 + 127) << 23) * (vec)((n2 + 127) << 23);
    result = select(x < -104.0f, splat(0.0f), result);
    return select(x != x, x, result);
}

static float row_max(const float *x, wf_size n) {
    vec best[4];
    for (int v = 0; v < 4; ++v) best[v] = splat(-WF_INF_F32);
    wf_size i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES)
        for (int v = 0; v < 4; ++v) {
            vec value = load(x + i + v * LANES);
            best[v] = select(value > best[v], value, best[v]);
        }
    float largest = -WF_INF_F32;
    for (int v = 0; v < 4; ++v)
        for (int lane = 0; lane < LANES; ++lane) largest = best[v][lane] > largest ? best[v][lane] : largest;
    for (; i < n; ++i) largest = x[i] > largest ? x[i] : largest;
    return largest;
}

/* y = exp(x - shift); returns the sum of y. The tail goes through a vector padded with -inf (exp: 0). */
static float shifted_exp(const float *x, float *y, wf_size n, float shift) {
    vec total[2] = {splat(0), splat(0)};
    wf_size i = 0;
    for (; i + 2 * LANES <= n; i += 2 * LANES)
        for (int v = 0; v < 2; ++v) {
            vec e = exp_nonpositive(load(x + i + v * LANES) - shift);
            store(y + i + v * LANES, e);
            total[v] += e;
        }
    for (; i < n; i += LANES) {
        float padded[LANES];
        for (int lane = 0; lane < LANES; ++lane) padded[lane] = i + lane < n ? x[i + lane] - shift : -WF_INF_F32;
        vec e = exp_nonpositive(load(padded));
        total[0] += e;
        for (wf_size lane = 0; lane < LANES && i + lane < n; ++lane) y[i + lane] = e[lane];
    }
    vec both = total[0] + total[1];
    float sum = 0;
    for (int lane = 0; lane < LANES; ++lane) sum += both[lane];
    return sum;
}

static void softmax_rows_thread(void *context, wf_size thread) {
    softmax_job *job = context;
    (void)thread;
    wf_size n = job->classes, units = (job->rows + job->rows_per_unit - 1) / job->rows_per_unit;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_size last = WF_MIN(job->rows, (u + 1) * job->rows_per_unit);
        for (wf_size r = u * job->rows_per_unit; r < last; ++r) {
            const float *x = job->x + r * n;
            float *y = job->y + r * n;
            float scale = 1.0f / shifted_exp(x, y, n, row_max(x, n));
            wf_size i = 0;
            for (; i + LANES <= n; i += LANES) store(y + i, load(y + i) * scale);
            for (; i < n; ++i) y[i] *= scale;
        }
    }
}

WF_EXPORT void wf_softmax_rows_f32(const float *x, float *y, wf_size rows, wf_size classes, wf_size threads) {
    if (rows <= 0 || classes <= 0) return;
    wf_size per_unit = WF_MAX(1, UNIT_ELEMENTS / classes);
    softmax_job job = {x, y, rows, classes, per_unit, 0};
    wf_run_parallel(softmax_rows_thread, &job, WF_MIN(threads, (rows + per_unit - 1) / per_unit));
}
