/* activation_grads.c: TensorFlow's TanhGrad and SigmoidGrad, the gradients of tanh and sigmoid from their output.
 *
 *   void wf_tanh_grad_<t>(const T *y, const T *dy, T *z, wf_size n)      z = dy * (1 - y * y)
 *   void wf_sigmoid_grad_<t>(const T *y, const T *dy, T *z, wf_size n)   z = dy * (y * (1 - y)),
 *                                                                         the last n % (32 / sizeof(T)): (dy * y) * (1 - y)
 *   (t = f32, f64; arrays contiguous, n elements)
 *
 * The operation orders are those of Eigen's 32-byte packets and of its scalar loop over the tail past the last
 * whole packet, which TensorFlow's kernels run (scalar_tanh_gradient_op, scalar_sigmoid_gradient_op), and those
 * of the NumPy kernels in ops/unary_math_ops.py: the bits agree.
 * Contraction into FMA is switched off here: 1 - y * y fused would round once instead of twice.
 * Plain loops: the compiler vectorises them (no libm, no exp: the forward op already did the hard part).
 */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include "webflow_kernels.h"

#define WF_EIGEN_PACKET_BYTES 32

#define WF_ACTIVATION_GRAD(name, T, suffix, EXPR, TAIL_EXPR)                                   \
    WF_EXPORT void wf_##name##_##suffix(const T *y, const T *dy, T *z, wf_size n) {            \
        wf_size packets = n - n % (WF_EIGEN_PACKET_BYTES / (wf_size)sizeof(T));                \
        for (wf_size i = 0; i < packets; ++i) {                                                \
            T out = y[i], grad = dy[i];                                                        \
            z[i] = (EXPR);                                                                     \
        }                                                                                      \
        for (wf_size i = packets; i < n; ++i) {                                                \
            T out = y[i], grad = dy[i];                                                        \
            z[i] = (TAIL_EXPR);                                                                \
        }                                                                                      \
    }

WF_ACTIVATION_GRAD(tanh_grad, float, f32, grad * (1.0f - out * out), grad * (1.0f - out * out))
WF_ACTIVATION_GRAD(tanh_grad, double, f64, grad * (1.0 - out * out), grad * (1.0 - out * out))
WF_ACTIVATION_GRAD(sigmoid_grad, float, f32, grad * (out * (1.0f - out)), grad * out * (1.0f - out))
WF_ACTIVATION_GRAD(sigmoid_grad, double, f64, grad * (out * (1.0 - out)), grad * out * (1.0 - out))
