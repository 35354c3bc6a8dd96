/* softmax.c: Softmax, LogSoftmax (and their gradients) along the last axis, and the two cross-entropy
 * ops, which return the loss and its gradient ("backprop") in one pass, as TensorFlow's kernels do.
 *
 * Arrays are [rows, classes], contiguous. Every row is first shifted by its maximum, so exp never
 * overflows (softmax([1000, 0]) = [1, 0], not NaN), then:
 *   softmax      y = exp(x - max) / sum exp(x - max)
 *   log_softmax  y = (x - max) - log(sum exp(x - max))
 *   softmax_xent loss = sum_c labels_c (log(sum) - shifted_c); backprop = exp(shifted) / sum - labels
 *   sparse_xent  loss = log(sum) - shifted_label;              backprop = exp(shifted) / sum - one_hot
 *   softmax_grad dx = (g - sum(g * y)) * y;   log_softmax_grad dx = g - sum(g) * exp(y)
 * `labels_row_stride` lets one labels row serve every row (0) or each row have its own (classes).
 * The sparse kernels return WF_OK, or 1 + the row of the first label outside [0, classes): the caller
 * raises TensorFlow's InvalidArgumentError naming that label. Nothing is written out of bounds.
 */
#include "webflow_kernels.h"
#include "vector_math.h"

/* exp(x[i] - shift) into out[i] for a row; returns the row sum. Vector body, padded tail. */
#define WF_SOFTMAX_FAMILY(T, suffix, VT, LANES, LOAD, STORE, SPLAT, EXPV, LOGV, MAXF)                   \
    static T wf_shifted_exp_##suffix(const T *x, T *out, wf_size n, T shift) {                          \
        VT total = SPLAT(0);                                                                             \
        wf_size i = 0;                                                                                   \
        for (; i + LANES <= n; i += LANES) {                                                             \
            VT e = EXPV(LOAD(x + i) - shift);                                                            \
            STORE(out + i, e);                                                                           \
            total += e;                                                                                  \
        }                                                                                                \
        T sum = 0;                                                                                       \
        for (int lane = 0; lane < LANES; ++lane) sum += total[lane];                                     \
        if (i < n) {                                                                                     \
            T buffer[LANES];                                                                             \
            for (int j = 0; j < LANES; ++j) buffer[j] = i + j < n ? x[i + j] - shift : (T)-WF_INF_F32;   \
            VT e = EXPV(LOAD(buffer));                                                                   \
            for (wf_size j = 0; i + j < n; ++j) {                                                        \
                out[i + j] = e[j];                                                                       \
                sum += e[j];                                                                             \
            }                                                                                            \
        }                                                                                                \
        return sum;                                                                                      \
    }                                                                                                    \
    static T wf_row_max_##suffix(const T *x, wf_size n) {                                                \
        T best = (T)-WF_INF_F32;                                                                         \
        for (wf_size i = 0; i < n; ++i) best = MAXF(best, x[i]);                                         \
        return best;                                                                                     \
    }                                                                                                    \
    static T wf_log_##suffix(T x) { return LOGV(SPLAT(x))[0]; }                                          \
    WF_EXPORT void wf_softmax_##suffix(const T *logits, T *out, wf_size rows, wf_size classes) {         \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *x = logits + r * classes;                                                           \
            T *y = out + r * classes;                                                                    \
            T sum = wf_shifted_exp_##suffix(x, y, classes, wf_row_max_##suffix(x, classes));             \
            for (wf_size i = 0; i < classes; ++i) y[i] = y[i] / sum;                                     \
        }                                                                                                \
    }                                                                                                    \
    WF_EXPORT void wf_log_softmax_##suffix(const T *logits, T *out, wf_size rows, wf_size classes) {     \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *x = logits + r * classes;                                                           \
            T *y = out + r * classes;                                                                    \
            T shift = wf_row_max_##suffix(x, classes);                                                   \
            T log_sum = wf_log_##suffix(wf_shifted_exp_##suffix(x, y, classes, shift));                  \
            for (wf_size i = 0; i < classes; ++i) y[i] = (x[i] - shift) - log_sum;                       \
        }                                                                                                \
    }                                                                                                    \
    WF_EXPORT void wf_softmax_grad_##suffix(const T *grad, const T *softmax, T *out, wf_size rows,       \
                                            wf_size classes) {                                           \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *g = grad + r * classes, *y = softmax + r * classes;                                 \
            T dot = 0;                                                                                   \
            for (wf_size i = 0; i < classes; ++i) dot += g[i] * y[i];                                    \
            for (wf_size i = 0; i < classes; ++i) out[r * classes + i] = (g[i] - dot) * y[i];            \
        }                                                                                                \
    }                                                                                                    \
    WF_EXPORT void wf_log_softmax_grad_##suffix(const T *grad, const T *log_softmax, T *out,             \
                                                wf_size rows, wf_size classes) {                         \
        T *scratch = out; /* exp(y) goes into out first, then becomes the gradient in place */           \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *g = grad + r * classes, *y = log_softmax + r * classes;                             \
            T total = 0;                                                                                 \
            for (wf_size i = 0; i < classes; ++i) total += g[i];                                         \
            wf_shifted_exp_##suffix(y, scratch + r * classes, classes, 0);                               \
            for (wf_size i = 0; i < classes; ++i)                                                        \
                out[r * classes + i] = g[i] - total * scratch[r * classes + i];                          \
        }                                                                                                \
    }                                                                                                    \
    WF_EXPORT void wf_softmax_xent_##suffix(const T *logits, const T *labels, wf_size labels_row_stride, \
                                            T *loss, T *backprop, wf_size rows, wf_size classes) {       \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *x = logits + r * classes, *p = labels + r * labels_row_stride;                      \
            T *b = backprop + r * classes;                                                               \
            T shift = wf_row_max_##suffix(x, classes);                                                   \
            T sum = wf_shifted_exp_##suffix(x, b, classes, shift);                                       \
            T log_sum = wf_log_##suffix(sum), total = 0;                                                 \
            for (wf_size i = 0; i < classes; ++i) {                                                      \
                total += p[i] * (log_sum - (x[i] - shift));                                              \
                b[i] = b[i] / sum - p[i];                                                                \
            }                                                                                            \
            loss[r] = total;                                                                             \
        }                                                                                                \
    }

WF_SOFTMAX_FAMILY(float, f32, wf_f32v, WF_F32_LANES, wf_load_f32v, wf_store_f32v, wf_splat_f32v,
                  wf_exp_f32v, wf_log_f32v, wf_max_f32)
WF_SOFTMAX_FAMILY(double, f64, wf_f64v, WF_F64_LANES, wf_load_f64v, wf_store_f64v, wf_splat_f64v,
                  wf_exp_f64v, wf_log_f64v, wf_max_f64)

/* Sparse cross-entropy: labels are class indices (int32 or int64). Labels are checked first, so a bad
 * batch leaves loss/backprop untouched. */
#define WF_SPARSE_XENT(T, suffix, L, label_suffix)                                                       \
    WF_EXPORT wf_size wf_sparse_xent_##suffix##_##label_suffix(const T *logits, const L *labels, T *loss, \
                                                               T *backprop, wf_size rows,                \
                                                               wf_size classes) {                        \
        for (wf_size r = 0; r < rows; ++r)                                                               \
            if (labels[r] < 0 || labels[r] >= (L)classes) return r + 1;                                  \
        for (wf_size r = 0; r < rows; ++r) {                                                             \
            const T *x = logits + r * classes;                                                           \
            T *b = backprop + r * classes;                                                               \
            T shift = wf_row_max_##suffix(x, classes);                                                   \
            T sum = wf_shifted_exp_##suffix(x, b, classes, shift);                                       \
            T log_sum = wf_log_##suffix(sum);                                                            \
            for (wf_size i = 0; i < classes; ++i) b[i] = b[i] / sum;                                     \
            b[labels[r]] -= (T)1;                                                                        \
            loss[r] = log_sum - (x[labels[r]] - shift);                                                  \
        }                                                                                                \
        return WF_OK;                                                                                    \
    }
WF_SPARSE_XENT(float, f32, int32_t, i32)
WF_SPARSE_XENT(float, f32, int64_t, i64)
WF_SPARSE_XENT(double, f64, int32_t, i32)
WF_SPARSE_XENT(double, f64, int64_t, i64)
