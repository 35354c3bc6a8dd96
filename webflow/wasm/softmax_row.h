/* softmax_row.h: the passes over one row of float32 logits that softmax_rows.c (Softmax) and
 * sparse_softmax_xent.c (SparseSoftmaxCrossEntropyWithLogits) share: a vector maximum over 4 accumulators, then
 * exp(x - max) and its sum in one pass. Included after register_tiles.h (vec, ivec, LANES, load, store) and
 * vector_math.h (exp, and the larger-of-two step it is built from).
 *
 * Per element of a 1024 x 1024 Softmax on one thread (Zen 5, AVX-512: benchmarks/FIGURES.md, "One-thread
 * Softmax"): the exp is most of the work, so it uses vscalefps and vmaxps (vector_math.h) instead of compares,
 * blends and exponent arithmetic; and the row after this one is prefetched while this row's exp runs, since
 * the maximum pass that reads it next would otherwise wait for memory.
 */
#ifndef WF_SOFTMAX_ROW_H
#define WF_SOFTMAX_ROW_H

/* exp on this file's vectors (64 bytes in the avx512 build): vector_math.h's one definition, for x <= 0, -inf
 * or NaN (a row minus its maximum). */
WF_DEFINE_EXP_F32(exp_nonpositive, vec, ivec, 1)

ALWAYS_INLINE vec splat_vec(float x) {
    vec v;
    for (int lane = 0; lane < LANES; ++lane) v[lane] = x;
    return v;
}

/* The largest of x[0 .. n), skipping NaN (a NaN value never replaces the running maximum: x86's maxps). */
static float row_max(const float *x, wf_size n) {
    vec best[4];
    for (int v = 0; v < 4; ++v) best[v] = splat_vec(-WF_INF_F32);
    wf_size i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES)
        for (int v = 0; v < 4; ++v) best[v] = wf_larger_f32(load(x + i + v * LANES), best[v]);
    float largest = -WF_INF_F32;
    for (int v = 0; v < 4; ++v)
        for (int lane = 0; lane < LANES; ++lane) largest = best[v][lane] > largest ? best[v][lane] : largest;
    for (; i < n; ++i) largest = x[i] > largest ? x[i] : largest;
    return largest;
}

/* y = exp(x - shift); returns the sum of y. The tail goes through a vector padded with -inf (exp: 0).
 * Meanwhile the next row (x + n .. x + 2n, if the caller has one) is prefetched into L2, one line per vector:
 * a hint only (it never faults, and compiles to nothing in wasm). */
static float shifted_exp(const float *x, float *y, wf_size n, float shift) {
    vec total[2] = {splat_vec(0), splat_vec(0)};
    wf_size i = 0;
    for (; i + 2 * LANES <= n; i += 2 * LANES)
        for (int v = 0; v < 2; ++v) {
            __builtin_prefetch(x + n + i + v * LANES, 0, 2);
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

#endif
