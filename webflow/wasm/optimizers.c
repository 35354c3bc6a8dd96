/* optimizers.c: fused optimizer updates, TensorFlow's ApplyGradientDescent / ApplyMomentum / ApplyAdam
 * (and ApplyAdagrad / ApplyRMSProp / ApplyCenteredRMSProp / ApplyAdadelta), with the exact formulas and operation order of TF's kernels
 * (training_ops.cc) and of webflow/ops/training_ops.py, so float results agree bit for bit:
 *
 *   gradient descent  var <- var - alpha * delta
 *   momentum          accum <- accum * momentum + grad
 *                     var <- var - lr * accum                       (use_nesterov = 0)
 *                     var <- var - (grad * lr + accum * momentum * lr)  (use_nesterov = 1)
 *   adam              lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
 *                     m <- m + (grad - m) * (1 - beta1);  v <- v + (grad^2 - v) * (1 - beta2)
 *                     var <- var - (m * lr_t) / (epsilon + sqrt(v))  (nesterov: grad*(1-beta1) + beta1*m for m)
 *   adagrad           accum <- accum + grad^2;  var <- var - lr * grad / sqrt(accum)
 *   rmsprop           ms <- ms + (grad^2 - ms) * (1 - rho); mom <- mom * momentum + lr * grad / sqrt(ms + epsilon);
 *                     var <- var - mom
 *   centered rmsprop  mg <- mg + (grad - mg) * (1 - rho); ms as rmsprop;
 *                     mom <- mom * momentum + lr * grad / sqrt(ms - mg * mg + epsilon); var <- var - mom
 *   adadelta          accum <- accum * rho + grad * grad * (1 - rho);
 *                     update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;
 *                     accum_update <- accum_update * rho + update * update * (1 - rho); var <- var - update * lr
 *
 * Arguments follow the op's inputs (state arrays, scalars, grad), then attrs, then the new state
 * arrays (`*_out`, which may be the same buffers as the inputs: each element is read before written),
 * then the element count. Contraction into FMA is switched off in this file: a fused a*b+c rounds
 * once instead of twice and would drift from the reference in the last bit.
 */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "webflow_kernels.h"

#define WF_OPT_BLOCK 512 /* elements per block of the vectorised updates (3 stack buffers of this size) */

#define WF_OPTIMIZERS(T, suffix, SQRT)                                                                 \
    WF_EXPORT void wf_apply_gradientdescent_##suffix(const T *var, T alpha, const T *delta, T *var_out, \
                                                     wf_size n) {                                      \
        for (wf_size i = 0; i < n; ++i) var_out[i] = var[i] - alpha * delta[i];                        \
    }                                                                                                  \
    WF_EXPORT void wf_apply_momentum_##suffix(const T *var, const T *accum, T lr, const T *grad,       \
                                              T momentum, int use_nesterov, T *var_out, T *accum_out,  \
                                              wf_size n) {                                             \
        for (wf_size i = 0; i < n; ++i) {                                                              \
            T g = grad[i], a = accum[i] * momentum + g;                                                \
            var_out[i] = use_nesterov ? var[i] - (g * lr + a * momentum * lr) : var[i] - lr * a;      \
            accum_out[i] = a;                                                                          \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT void wf_apply_adam_##suffix(const T *var, const T *m, const T *v, T beta1_power,         \
                                          T beta2_power, T lr, T beta1, T beta2, T epsilon,            \
                                          const T *grad, int use_nesterov, T *var_out, T *m_out,       \
                                          T *v_out, wf_size n) {                                       \
        T lr_t = lr * SQRT((T)1 - beta2_power) / ((T)1 - beta1_power);                                 \
        T one_minus_beta1 = (T)1 - beta1, one_minus_beta2 = (T)1 - beta2;                              \
        /* Blocks through stack buffers: the outputs may be the inputs, and with 7 pointers that might \
         * alias the compiler gave up vectorising (scalar sqrt/div: 7.4 ms for 3.2M floats); the      \
         * buffers cannot alias, so the first loop vectorises (sqrtps/divps, the same rounding). */    \
        T new_m[WF_OPT_BLOCK], new_v[WF_OPT_BLOCK], new_var[WF_OPT_BLOCK];                             \
        for (wf_size i0 = 0; i0 < n; i0 += WF_OPT_BLOCK) {                                             \
            wf_size len = WF_MIN(WF_OPT_BLOCK, n - i0);                                                \
            const T *g = grad + i0, *m0 = m + i0, *v0 = v + i0, *var0 = var + i0;                      \
            for (wf_size i = 0; i < len; ++i) {                                                        \
                T gi = g[i];                                                                           \
                T nm = m0[i] + (gi - m0[i]) * one_minus_beta1;                                         \
                T nv = v0[i] + (gi * gi - v0[i]) * one_minus_beta2;                                    \
                T step = use_nesterov ? gi * one_minus_beta1 + beta1 * nm : nm;                        \
                new_var[i] = var0[i] - (step * lr_t) / (epsilon + SQRT(nv));                           \
                new_m[i] = nm;                                                                         \
                new_v[i] = nv;                                                                         \
            }                                                                                          \
            for (wf_size i = 0; i < len; ++i) {                                                        \
                var_out[i0 + i] = new_var[i];                                                          \
                m_out[i0 + i] = new_m[i];                                                              \
                v_out[i0 + i] = new_v[i];                                                              \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT void wf_apply_adagrad_##suffix(const T *var, const T *accum, T lr, const T *grad,        \
                                             int update_slots, T *var_out, T *accum_out, wf_size n) {  \
        for (wf_size i = 0; i < n; ++i) {                                                              \
            T g = grad[i], a = update_slots ? accum[i] + g * g : accum[i];                             \
            var_out[i] = var[i] - lr * g / SQRT(a);                                                    \
            accum_out[i] = a;                                                                          \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT void wf_apply_rmsprop_##suffix(const T *var, const T *ms, const T *mom, T lr, T rho,     \
                                             T momentum, T epsilon, const T *grad, T *var_out,         \
                                             T *ms_out, T *mom_out, wf_size n) {                       \
        T one_minus_rho = (T)1 - rho;                                                                  \
        for (wf_size i = 0; i < n; ++i) {                                                              \
            T g = grad[i];                                                                             \
            T new_ms = ms[i] + (g * g - ms[i]) * one_minus_rho;                                        \
            T new_mom = mom[i] * momentum + lr * g / SQRT(new_ms + epsilon);                           \
            var_out[i] = var[i] - new_mom;                                                             \
            ms_out[i] = new_ms;                                                                        \
            mom_out[i] = new_mom;                                                                      \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT void wf_apply_centeredrmsprop_##suffix(const T *var, const T *mg, const T *ms,           \
                                                     const T *mom, T lr, T rho, T momentum, T epsilon, \
                                                     const T *grad, T *var_out, T *mg_out, T *ms_out,  \
                                                     T *mom_out, wf_size n) {                          \
        T one_minus_rho = (T)1 - rho;                                                                  \
        for (wf_size i = 0; i < n; ++i) {                                                              \
            T g = grad[i];                                                                             \
            T new_mg = mg[i] + (g - mg[i]) * one_minus_rho;                                            \
            T new_ms = ms[i] + (g * g - ms[i]) * one_minus_rho;                                        \
            T new_mom = mom[i] * momentum + lr * g / SQRT(new_ms - new_mg * new_mg + epsilon);         \
            var_out[i] = var[i] - new_mom;                                                             \
            mg_out[i] = new_mg;                                                                        \
            ms_out[i] = new_ms;                                                                        \
            mom_out[i] = new_mom;                                                                      \
        }                                                                                              \
    }                                                                                                  \
    WF_EXPORT void wf_apply_adadelta_##suffix(const T *var, const T *accum, const T *accum_update,     \
                                              T lr, T rho, T epsilon, const T *grad, T *var_out,       \
                                              T *accum_out, T *accum_update_out, wf_size n) {          \
        T one_minus_rho = (T)1 - rho;                                                                  \
        for (wf_size i = 0; i < n; ++i) {                                                              \
            T g = grad[i];                                                                             \
            T new_accum = accum[i] * rho + g * g * one_minus_rho;                                      \
            T update = SQRT(accum_update[i] + epsilon) / SQRT(new_accum + epsilon) * g;                \
            T new_update = accum_update[i] * rho + update * update * one_minus_rho;                    \
            var_out[i] = var[i] - update * lr;                                                         \
            accum_out[i] = new_accum;                                                                  \
            accum_update_out[i] = new_update;                                                          \
        }                                                                                              \
    }

WF_OPTIMIZERS(float, f32, __builtin_sqrtf)
WF_OPTIMIZERS(double, f64, __builtin_sqrt)
