/* softmax_row.h: the passes over one row of float32 logits that softmax_rows.c (Softmax) and
 * sparse_softmax_xent.c (SparseSoftmaxCrossEntropyWithLogits) share: a vector maximum over 4 accumulators, then
 * exp(x - max) and its sum in one pass. Included after register_tiles.h (vec, ivec, LANES, load, store) and
 * vector_math.h (the exp's constants).
 */
#ifndef WF_SOFTMAX_ROW_H
#define WF_SOFTMAX_ROW_H

ALWAYS_INLINE vec splat_vec(float x) {
    vec v;
    for (int lane = 0; lane < LANES; ++lane) v[lane] = x;
    return v;
}
ALWAYS_INLINE vec select_vec(ivec mask, vec a, vec b) { return (vec)((mask & (ivec)a) | (~mask & (ivec)b)); }

/* exp(x) for x <= 0, -inf or NaN (a row minus its maximum): vector_math.h's wf_exp_f32v (the same reduction,
 * polynomial and two-step scaling, whose error its tests bound) on this file's wider vectors, without the
 * overflow clamp that x <= 0 never needs. */
ALWAYS_INLINE vec exp_nonpositive(vec x) {
    vec xc = select_vec(x < -104.0f, splat_vec(-104.0f), x);
    vec t = xc * 1.44269504088896341f + WF_ROUND_MAGIC_F;
    ivec n = (ivec)t - 0x4B400000;
    vec nf = t - WF_ROUND_MAGIC_F;
    vec r = (xc - nf * WF_LN2_HI_F) - nf * WF_LN2_LO_F;
    vec p = splat_vec(1.3814610429108143e-3f);
    p = p * r + 8.368710055947304e-3f;
    p = p * r + 4.166838899254799e-2f;
    p = p * r + 1.666652113199234e-1f;
    p = p * r + 4.999999403953552e-1f;
    p = 1.0f + (r + (r * r) * p);
    ivec n1 = n >> 1, n2 = n - (n >> 1);
    vec result = p * (vec)((n1 + 127) << 23) * (vec)((n2 + 127) << 23);
    result = select_vec(x < -104.0f, splat_vec(0.0f), result);
    return select_vec(x != x, x, result);
}

static float row_max(const float *x, wf_size n) {
    vec best[4];
    for (int v = 0; v < 4; ++v) best[v] = splat_vec(-WF_INF_F32);
    wf_size i = 0;
    for (; i + 4 * LANES <= n; i += 4 * LANES)
        for (int v = 0; v < 4; ++v) {
            vec value = load(x + i + v * LANES);
            best[v] = select_vec(value > best[v], value, best[v]);
        }
    float largest = -WF_INF_F32;
    for (int v = 0; v < 4; ++v)
        for (int lane = 0; lane < LANES; ++lane) largest = best[v][lane] > largest ? best[v][lane] : largest;
    for (; i < n; ++i) largest = x[i] > largest ? x[i] : largest;
    return largest;
}

/* y = exp(x - shift); returns the sum of y. The tail goes through a vector padded with -inf (exp: 0). */
static float shifted_exp(const float *x, float *y, wf_size n, float shift) {
    vec total[2] = {splat_vec(0), splat_vec(0)};
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

#endif
