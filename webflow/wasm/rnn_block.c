/* rnn_block.c: one step of an LSTM or GRU cell as one call (TensorFlow's LSTMBlockCell / GRUBlockCell and the
 * elementwise parts of their gradients), float32, [batch, ...] row-major arrays.
 *
 *   wf_lstm_block_cell_f32   gates = [x, h_prev] w (the packed GEMM, or the thin one when `gemm_work` is given),
 *                            then per row, gate order [i, ci, f, o]:
 *                            i = sig(i + b + cs_prev wci), f = sig(f + b + forget_bias + cs_prev wcf), ci = tanh(ci + b),
 *                            cs = clip(ci i + cs_prev f), o = sig(o + b + cs wco), co = tanh(cs), h = co o
 *   wf_lstm_block_cell_grad_f32   do = o(1-o) dh co, dcs = (1-co^2) dh o + cs_grad (+ do wco), dci = (1-ci^2) dcs i,
 *                            df = f(1-f) dcs cs_prev, di = i(1-i) dcs ci; cs_prev_grad = dcs f (+ di wci + df wcf);
 *                            peephole grads: column sums of di cs_prev, df cs_prev, do cs
 *   wf_gru_block_cell_f32    [r, u] = sig([x, h_prev] w_ru + b_ru), c = tanh([x, h_prev r] w_c + b_c),
 *                            h = u h_prev + (1 - u) c
 *   wf_gru_block_cell_grad_f32    TensorFlow's GRUBlockCellGrad: d_x, d_h_prev, d_c_bar, d_r_bar_u_bar
 * Workspaces come from the caller (no allocation): `xh` [batch, depth + cell], `gates` [batch, 4 cell] (LSTM) or
 * [batch, depth + cell] (GRU gradient: two of them). The sigmoid and tanh are vector_math.h's (<= 2.3 ulp).
 */
#include "webflow_kernels.h"
#include "vector_math.h"

void wf_gemm_f32(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, float alpha, const float *a,
                 wf_size lda, const float *b, wf_size ldb, float beta, float *c, wf_size ldc);
void wf_gemm_few_rows_f32(wf_size m, wf_size n, wf_size k, const float *a, const float *b, float *c, float *work,
                          wf_size threads);

/* f(x) lane by lane over n floats: vectors, then the tail through a padded buffer. */
#define WF_MAP(name, VECTOR_FUNCTION)                                                                    \
    static void name(float *x, wf_size n) {                                                              \
        wf_size k = 0;                                                                                   \
        for (; k + WF_F32_LANES <= n; k += WF_F32_LANES) wf_store_f32v(x + k, VECTOR_FUNCTION(wf_load_f32v(x + k))); \
        if (k < n) {                                                                                     \
            float buffer[WF_F32_LANES] = {0};                                                            \
            for (wf_size j = 0; k + j < n; ++j) buffer[j] = x[k + j];                                    \
            wf_f32v y = VECTOR_FUNCTION(wf_load_f32v(buffer));                                           \
            for (wf_size j = 0; k + j < n; ++j) x[k + j] = y[j];                                         \
        }                                                                                                \
    }
WF_MAP(wf_sigmoid_in_place, wf_sigmoid_f32v)
WF_MAP(wf_tanh_in_place, wf_tanh_f32v)

/* rows of [a | b] side by side into out [rows, a_cols + b_cols]; b scaled by `scale` when given (h_prev r). */
static void wf_join_rows(wf_size rows, wf_size a_cols, wf_size b_cols, const float *a, const float *b,
                         const float *scale, float *out) {
    for (wf_size r = 0; r < rows; ++r) {
        float *row = out + r * (a_cols + b_cols);
        for (wf_size j = 0; j < a_cols; ++j) row[j] = a[r * a_cols + j];
        for (wf_size j = 0; j < b_cols; ++j) row[a_cols + j] = b[r * b_cols + j] * (scale ? scale[r * b_cols + j] : 1.0f);
    }
}

static void wf_product(wf_size m, wf_size n, wf_size k, const float *a, const float *b, float *c, float *gemm_work,
                       wf_size threads) {
    if (gemm_work) wf_gemm_few_rows_f32(m, n, k, a, b, c, gemm_work, threads);
    else wf_gemm_f32(0, 0, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
}

WF_EXPORT void wf_lstm_block_cell_f32(wf_size batch, wf_size depth, wf_size cell, const float *x,
                                      const float *cs_prev, const float *h_prev, const float *w, const float *wci,
                                      const float *wcf, const float *wco, const float *b, float forget_bias,
                                      float cell_clip, int use_peephole, float *xh, float *gates, float *gemm_work,
                                      wf_size threads, float *i, float *cs, float *f, float *o, float *ci,
                                      float *co, float *h) {
    wf_join_rows(batch, depth, cell, x, h_prev, 0, xh);
    wf_product(batch, 4 * cell, depth + cell, xh, w, gates, gemm_work, threads);
    for (wf_size r = 0; r < batch; ++r) {
        const float *g = gates + r * 4 * cell, *c_prev = cs_prev + r * cell;
        float *i_r = i + r * cell, *ci_r = ci + r * cell, *f_r = f + r * cell, *o_r = o + r * cell;
        float *cs_r = cs + r * cell, *co_r = co + r * cell, *h_r = h + r * cell;
        for (wf_size k = 0; k < cell; ++k) {
            i_r[k] = g[k] + b[k] + (use_peephole ? c_prev[k] * wci[k] : 0.0f);
            ci_r[k] = g[cell + k] + b[cell + k];
            f_r[k] = g[2 * cell + k] + b[2 * cell + k] + forget_bias + (use_peephole ? c_prev[k] * wcf[k] : 0.0f);
        }
        wf_sigmoid_in_place(i_r, cell);
        wf_tanh_in_place(ci_r, cell);
        wf_sigmoid_in_place(f_r, cell);
        for (wf_size k = 0; k < cell; ++k) {
            float value = ci_r[k] * i_r[k] + c_prev[k] * f_r[k];
            if (cell_clip > 0.0f) value = value > cell_clip ? cell_clip : (value < -cell_clip ? -cell_clip : value);
            cs_r[k] = value;
            co_r[k] = value;
            o_r[k] = g[3 * cell + k] + b[3 * cell + k] + (use_peephole ? value * wco[k] : 0.0f);
        }
        wf_sigmoid_in_place(o_r, cell);
        wf_tanh_in_place(co_r, cell);
        for (wf_size k = 0; k < cell; ++k) h_r[k] = co_r[k] * o_r[k];
    }
}

WF_EXPORT void wf_lstm_block_cell_grad_f32(wf_size batch, wf_size cell, const float *cs_prev, const float *wci,
                                           const float *wcf, const float *wco, const float *i, const float *cs,
                                           const float *f, const float *o, const float *ci, const float *co,
                                           const float *cs_grad, const float *h_grad, int use_peephole,
                                           float *cs_prev_grad, float *dicfo, float *wci_grad, float *wcf_grad,
                                           float *wco_grad) {
    wf_zero_f32(wci_grad, cell);
    wf_zero_f32(wcf_grad, cell);
    wf_zero_f32(wco_grad, cell);
    for (wf_size r = 0; r < batch; ++r) {
        wf_size at = r * cell;
        float *d = dicfo + r * 4 * cell;
        for (wf_size k = 0; k < cell; ++k) {
            float dh = h_grad[at + k], o_k = o[at + k], co_k = co[at + k], i_k = i[at + k], f_k = f[at + k];
            float ci_k = ci[at + k], c_prev = cs_prev[at + k];
            float do_k = o_k * (1.0f - o_k) * dh * co_k;
            float dcs = (1.0f - co_k * co_k) * dh * o_k + cs_grad[at + k] + (use_peephole ? do_k * wco[k] : 0.0f);
            float dci = (1.0f - ci_k * ci_k) * dcs * i_k;
            float df = f_k * (1.0f - f_k) * dcs * c_prev;
            float di = i_k * (1.0f - i_k) * dcs * ci_k;
            d[k] = di;
            d[cell + k] = dci;
            d[2 * cell + k] = df;
            d[3 * cell + k] = do_k;
            cs_prev_grad[at + k] = dcs * f_k + (use_peephole ? di * wci[k] + df * wcf[k] : 0.0f);
            if (use_peephole) {
                wci_grad[k] += di * c_prev;
                wcf_grad[k] += df * c_prev;
                wco_grad[k] += do_k * cs[at + k];
            }
        }
    }
}

WF_EXPORT void wf_gru_block_cell_f32(wf_size batch, wf_size depth, wf_size cell, const float *x, const float *h_prev,
                                     const float *w_ru, const float *w_c, const float *b_ru, const float *b_c,
                                     float *xh, float *ru, float *r, float *u, float *c, float *h) {
    wf_join_rows(batch, depth, cell, x, h_prev, 0, xh);
    wf_gemm_f32(0, 0, batch, 2 * cell, depth + cell, 1.0f, xh, depth + cell, w_ru, 2 * cell, 0.0f, ru, 2 * cell);
    for (wf_size row = 0; row < batch; ++row) {
        float *g = ru + row * 2 * cell;
        for (wf_size k = 0; k < 2 * cell; ++k) g[k] += b_ru[k];
        wf_sigmoid_in_place(g, 2 * cell);
        for (wf_size k = 0; k < cell; ++k) {
            r[row * cell + k] = g[k];
            u[row * cell + k] = g[cell + k];
        }
    }
    wf_join_rows(batch, depth, cell, x, h_prev, r, xh);
    wf_gemm_f32(0, 0, batch, cell, depth + cell, 1.0f, xh, depth + cell, w_c, cell, 0.0f, c, cell);
    for (wf_size row = 0; row < batch; ++row) {
        float *c_r = c + row * cell;
        for (wf_size k = 0; k < cell; ++k) c_r[k] += b_c[k];
        wf_tanh_in_place(c_r, cell);
        for (wf_size k = 0; k < cell; ++k) {
            wf_size at = row * cell + k;
            h[at] = u[at] * h_prev[at] + (1.0f - u[at]) * c[at];
        }
    }
}

WF_EXPORT void wf_gru_block_cell_grad_f32(wf_size batch, wf_size depth, wf_size cell, const float *h_prev,
                                          const float *w_ru, const float *w_c, const float *r, const float *u,
                                          const float *c, const float *d_h, float *first, float *second, float *d_x,
                                          float *d_h_prev, float *d_c_bar, float *d_r_bar_u_bar) {
    wf_size width = depth + cell;
    for (wf_size row = 0; row < batch; ++row) {
        for (wf_size k = 0; k < cell; ++k) {
            wf_size at = row * cell + k;
            d_c_bar[at] = d_h[at] * (1.0f - u[at]) * (1.0f - c[at] * c[at]);
            d_r_bar_u_bar[row * 2 * cell + cell + k] = d_h[at] * (h_prev[at] - c[at]) * u[at] * (1.0f - u[at]);
        }
    }
    wf_gemm_f32(0, 1, batch, width, cell, 1.0f, d_c_bar, cell, w_c, cell, 0.0f, first, width);  /* d_c_bar w_c^T */
    for (wf_size row = 0; row < batch; ++row) {
        for (wf_size k = 0; k < cell; ++k) {
            wf_size at = row * cell + k;
            d_r_bar_u_bar[row * 2 * cell + k] = first[row * width + depth + k] * h_prev[at] * r[at] * (1.0f - r[at]);
        }
    }
    wf_gemm_f32(0, 1, batch, width, 2 * cell, 1.0f, d_r_bar_u_bar, 2 * cell, w_ru, 2 * cell, 0.0f, second, width);
    for (wf_size row = 0; row < batch; ++row) {
        const float *a = first + row * width, *s = second + row * width;
        for (wf_size j = 0; j < depth; ++j) d_x[row * depth + j] = a[j] + s[j];
        for (wf_size k = 0; k < cell; ++k) {
            wf_size at = row * cell + k;
            d_h_prev[at] = a[depth + k] * r[at] + d_h[at] * u[at] + s[depth + k];
        }
    }
}
