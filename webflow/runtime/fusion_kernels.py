"""The kernels of the fused steps that runtime/fusion.py puts in a plan: each runs a chain of ops as one call.

Each kernel is made for one chain from its steps (the executor's), and falls back to running the chain's ops
with their own kernels where the fused C kernel does not apply (Unsupported), so a fused step always gives the
separate ops' results, bit for bit:
- `bias_relu_kernel`: Conv2D / MatMul -> bias add (-> Relu), TensorFlow's _FusedConv2D / _FusedMatMul;
- `bias_relu_pool_kernel`: the same for a Conv2D with its Relu, also returning that output's MaxPool (webflow's
  own: each image is pooled just after the convolution wrote it, while it is still in cache);
- `pool_grad_relu_kernel` (and the `_sum` / `_sums` variants): MaxPoolGrad -> ReluGrad (+ the bias gradient's
  per-channel sums);
- `pool_filter_grad_kernel`: the same with the sums, and the Conv2DBackpropFilter reading that gradient, which
  is made image by image inside the filter gradient and never stored (webflow's own).
`presummed_kernel` is a bias gradient's Sum handed the fused pooling gradient's per-channel sums (an unknown
batch's gradient, whose axes are known only at run time). `run_part` runs one op of a chain with its own
kernel, its errors naming that op.

May import: backends/, framework/, runtime/kernel_errors.py.
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c.adapters import Unsupported, flat_ints
from webflow.backends.c.conv import conv2d_backprop_filter_max_pool, conv2d_bias_relu, conv2d_bias_relu_max_pool
from webflow.backends.c.gemm import matmul_bias
from webflow.backends.c.pool import max_pool_grad
from webflow.framework.errors import OpError
from webflow.runtime.kernel_errors import KERNEL_ERRORS, kernel_error, with_op


# --- Conv2D / MatMul -> BiasAdd or AddV2 of a channel vector (-> Relu) (-> MaxPool) ------------------------
def bias_relu_kernel(producer: Any, bias_add: Any, relu: Any, bias_index: int) -> Any:
    def run(*args: Any) -> Any:
        inputs, bias = args[:-1], args[-1]
        if producer.op.type == "Conv2D" and producer.backend == selection.C_BACKEND:
            try:
                return conv2d_bias_relu(*inputs, bias, relu=relu is not None, **producer.attrs)
            except Unsupported:
                pass  # the direct convolution does not apply: the producer's own kernel, then the epilogue
        if producer.op.type == "MatMul" and producer.backend == selection.C_BACKEND and HAVE_NUMPY:
            try:  # gemm_strips.c adds the bias as it stores the sums
                value = matmul_bias(*inputs, bias, **producer.attrs)
                return np.maximum(value, np.zeros((), value.dtype), out=value) if relu is not None else value
            except Unsupported:
                pass
        value = run_part(producer, inputs)
        if _owned_float_array(value, inputs) and bias.shape == value.shape[-1:]:
            np.add(value, bias, out=value)
            return np.maximum(value, np.zeros((), value.dtype), out=value) if relu is not None else value
        pair = [value, value]
        pair[bias_index] = bias
        value = run_part(bias_add, pair)
        return value if relu is None else run_part(relu, [value])

    run.__name__ = f"fused_{producer.op.type.lower()}"
    return run


def _owned_float_array(value: Any, inputs: tuple) -> bool:
    """Whether the bias and Relu may be applied in place: a fresh NumPy float array the producer made."""
    return HAVE_NUMPY and type(value) is np.ndarray and value.flags.writeable and value.dtype.kind == "f" \
        and not any(type(array) is np.ndarray and np.may_share_memory(value, array) for array in inputs)


def bias_relu_pool_kernel(bias_relu: Any, max_pool: Any) -> Any:
    """A _FusedConv2D step's kernel (`bias_relu`, with its Relu) that also returns the MaxPool of its output: one
    direct-convolution call pooling each image while it is in cache (wf_conv2d_direct_bias_relu_pool_f32), else
    the fused convolution, then the MaxPool's own kernel."""
    producer = bias_relu.parts[0]

    def run(*args: Any) -> tuple:
        inputs, bias = args[:-1], args[-1]
        if producer.backend == selection.C_BACKEND and max_pool.backend == selection.C_BACKEND:
            try:
                return conv2d_bias_relu_max_pool(*inputs, bias, relu=True, pool_attrs=max_pool.attrs,
                                                 **producer.attrs)
            except Unsupported:
                pass
        value = bias_relu.kernel(*args)
        return value, run_part(max_pool, [value])

    run.__name__ = "fused_conv2d_max_pool"
    return run


# --- MaxPoolGrad -> ReluGrad(features = the pooling's input) (+ its Sum over all but the channels) ----------
def pool_grad_relu_kernel(pool_grad: Any, relu_grad: Any) -> Any:
    def run(*args: Any) -> Any:
        if pool_grad.backend == selection.C_BACKEND:
            try:
                return max_pool_grad(*args, relu=True, **pool_grad.attrs)
            except Unsupported:
                pass
        return run_part(relu_grad, [run_part(pool_grad, args), args[0]])

    run.__name__ = "fused_max_pool_grad"
    return run


def pool_grad_relu_sum_kernel(pool_grad: Any, relu_grad: Any, bias_sum: Any) -> Any:
    def run(*args: Any) -> tuple:
        if pool_grad.backend == selection.C_BACKEND and bias_sum.backend == selection.C_BACKEND:  # (may change)
            try:
                gradient, sums = max_pool_grad(*args, relu=True, sums=True, **pool_grad.attrs)
                return gradient, as_sum_output(sums, bias_sum)
            except Unsupported:
                pass
        gradient = run_part(relu_grad, [run_part(pool_grad, args), args[0]])
        axes = bias_sum.op.inputs[1].op._attrs["value"]
        return gradient, run_part(bias_sum, [gradient, axes])

    run.__name__ = "fused_max_pool_grad_sum"
    return run


def pool_grad_relu_sums_kernel(pool_grad: Any, relu_grad: Any) -> Any:
    """(the gradient, its per-channel sums or None where the C kernel does not apply) for the Sums whose axes are
    known only at run time (presummed_kernel)."""
    def run(*args: Any) -> tuple:
        if pool_grad.backend == selection.C_BACKEND:
            try:
                return max_pool_grad(*args, relu=True, sums=True, **pool_grad.attrs)
            except Unsupported:
                pass
        return run_part(relu_grad, [run_part(pool_grad, args), args[0]]), None

    run.__name__ = "fused_max_pool_grad_sums"
    return run


def pool_filter_grad_kernel(pool_grad: Any, relu_grad: Any, bias_sum: Any, filter_grad: Any) -> Any:
    """(the bias Sum, the Conv2DBackpropFilter) of a conv layer whose output gradient MaxPoolGrad -> ReluGrad
    only they read: conv2d_backprop_filter_max_pool makes that gradient image by image inside the filter
    gradient; else the _FusedMaxPoolGrad kernel, then the filter gradient's own."""
    with_sums = pool_grad_relu_sum_kernel(pool_grad, relu_grad, bias_sum)

    def run(orig_input: Any, orig_output: Any, grad: Any, input: Any, filter_sizes: Any) -> tuple:  # noqa: A002
        if pool_grad.backend == selection.C_BACKEND and filter_grad.backend == selection.C_BACKEND:
            try:
                weights, sums = conv2d_backprop_filter_max_pool(orig_input, grad, input, filter_sizes,
                                                                pool_attrs=pool_grad.attrs, **filter_grad.attrs)
                return as_sum_output(sums, bias_sum), weights
            except Unsupported:
                pass
        gradient, sums = with_sums(orig_input, orig_output, grad)
        return sums, run_part(filter_grad, [input, filter_sizes, gradient])

    run.__name__ = "fused_conv2d_backprop_filter_max_pool"
    return run


def as_sum_output(sums: Any, bias_sum: Any) -> Any:
    """Per-channel sums in the shape of the Sum's output: [C], or [1, ..., 1, C] for keep_dims=True (as the
    gradients of AddV2 & co. sum, TensorFlow's _ReduceGradientArgs; a Reshape to the bias's shape follows)."""
    if not bias_sum.op._attrs.get("keep_dims"):
        return sums
    return sums.reshape((1,) * (bias_sum.op.inputs[0].shape.rank - 1) + (-1,))


def presummed_kernel(bias_sum: Any) -> Any:
    """The fused step's sums when this run's axes are every axis but the last (then the separate Sum would run
    reduce.sum_blocks, whose bits they have: _bias_gradient_sum), else the Sum's own kernel. Whether the axes
    are those is decided once per distinct (axes, rank): an unknown batch's BroadcastGradientArgs gives the same
    axes at every step."""
    leading_only: dict[tuple, bool] = {}

    def run(gradient: Any, axes: Any, sums: Any) -> Any:
        if sums is not None and bias_sum.backend == selection.C_BACKEND:
            key = (tuple(flat_ints(axes)), gradient.ndim)
            fits = leading_only.get(key)
            if fits is None:
                rank = gradient.ndim
                fits = leading_only[key] = {a + rank if -rank <= a < 0 else a for a in key[0]} == set(range(rank - 1)) \
                    and len(key[0]) == rank - 1
            if fits:
                return as_sum_output(sums, bias_sum)
        return run_part(bias_sum, [gradient, axes])

    run.__name__ = "presummed_sum"
    return run


def run_part(step: Any, args: Any) -> Any:
    """One op of the chain with its own kernel; its errors name that op, as an unfused run's would."""
    try:
        return step.kernel(*args, **step.attrs)
    except OpError as error:
        raise with_op(error, step.op) from None
    except KERNEL_ERRORS as error:
        raise kernel_error(step.op, list(args), error) from None
