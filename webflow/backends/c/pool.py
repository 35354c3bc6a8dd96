"""C signatures of the pooling kernels (webflow/wasm/pool.c).

All take a pointer to a `Conv2DShape` (webflow/backends/c_conv.py; window in filter_height/width,
channels in in_channels, build it with `conv2d_shape(input_shape, ksize, channels, strides, padding=...)`)
and return 0 (WF_OK) or -1 (bad argument):
    wf_max_pool_f32(shape, input, output)                       MaxPool
    wf_max_pool_grad_f32(shape, input, output_grad, input_grad) MaxPoolGrad (first max in scan order)
    wf_max_pool_grad_relu_f32(...the same...)                   MaxPoolGrad, then ReluGrad on the input (fusion)
    wf_avg_pool_f32(shape, input, output)                       AvgPool (SAME: mean of in-bounds pixels)
    wf_avg_pool_grad_f32(shape, output_grad, input_grad)        AvgPoolGrad
    wf_max_pool_grad_grad_f32(shape, input, grad, output)       MaxPoolGradGrad (grad shaped as the input)
each also as _f64 (double buffers). And float32 MaxPool passes on the C library's threads (wasm/parallel.c):
    wf_max_pool_parallel_f32(shape, input, output, threads)
    wf_max_pool_grad_parallel_f32(shape, input, output_grad, input_grad, relu, sums, partials, threads)
        sums (or None): also the gradient summed over all but the channel axis, as wf_sum_blocks_f32 sums it
        (partials: batch x channels floats of scratch): a conv layer's bias gradient, fused (runtime/fusion.py)
"""

from __future__ import annotations

from webflow.backends.c.library import INT, PTR, SIZE, declare

for _suffix in ("f32", "f64"):  # the same kernels in float and double (pool_template.h)
    declare(f"wf_max_pool_{_suffix}", [PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_relu_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_grad_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_avg_pool_{_suffix}", [PTR, PTR, PTR], INT)
    declare(f"wf_avg_pool_grad_{_suffix}", [PTR, PTR, PTR], INT)
declare("wf_max_pool_parallel_f32", [PTR, PTR, PTR, SIZE], INT)
declare("wf_max_pool_grad_parallel_f32", [PTR, PTR, PTR, PTR, INT, PTR, PTR, SIZE], INT)
