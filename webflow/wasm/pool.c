/* pool.c: max and average pooling over NHWC images, forward and backward, as TensorFlow (float32, float64).
 *
 * Exports (s: wf_conv2d_shape with filter_* = window, in_channels = channels, dilations 1), each as
 * _f32 and _f64:
 *   int wf_max_pool_f32(s, input, output)                         MaxPool
 *   int wf_max_pool_grad_f32(s, input, output_grad, input_grad)   MaxPoolGrad
 *   int wf_max_pool_grad_relu_f32(s, input, output_grad, input_grad)  MaxPoolGrad, then ReluGrad(features=input)
 *   int wf_max_pool_grad_grad_f32(s, input, grad, output)         MaxPoolGradGrad (grad: input's shape)
 *   int wf_avg_pool_f32(s, input, output)                         AvgPool
 *   int wf_avg_pool_grad_f32(s, output_grad, input_grad)          AvgPoolGrad
 * and, float32 only, the same MaxPool passes shared out over `threads` threads (wf_run_parallel):
 *   int wf_max_pool_parallel_f32(s, input, output, threads)
 *   int wf_max_pool_grad_parallel_f32(s, input, output_grad, input_grad, relu, sums, partials, threads)
 *       relu: the _relu pass; sums (or NULL): sums[c] = input_grad summed over all but the channel axis, each
 *       image summed as it is written into partials [batch, channels], then those in order: what
 *       wf_sum_blocks_f32 (reduce.c) gives for that Sum, bit for bit (a conv layer's bias gradient, fused)
 * TensorFlow's semantics: a SAME window only covers in-bounds pixels (max starts at the lowest finite value
 * and takes only greater values: a NaN never wins, a window of NaN or -inf gives that lowest value; avg divides by the number of in-bounds pixels, not the window size). MaxPoolGrad sends
 * each output's gradient to ONE input: the first maximum in window scan order (row by row, then column),
 * as TensorFlow's CPU kernel does; it recomputes that position from the input. MaxPoolGradGrad reads
 * the second-order gradient back from that same cell.
 * Channels are innermost (NHWC), so every loop runs along contiguous channels: vectors for max/avg.
 * The bodies are written once, in pool_template.h, and instantiated here for float and double.
 */
#include "webflow_kernels.h"

typedef int32_t wf_i32v __attribute__((vector_size(WF_VECTOR_BYTES)));
typedef int64_t wf_i64v __attribute__((vector_size(WF_VECTOR_BYTES)));

#define GRAD_CHANNELS 64 /* channels whose running max / argmax are tracked at once (on the stack) */
#define MAX_TILED_TAPS 64 /* windows up to 8x8 take the tiled MaxPool(Grad) (their tap offsets on the stack) */

static int valid_pool(const wf_conv2d_shape *s) {
    return s->batch >= 0 && s->in_height >= 0 && s->in_width >= 0 && s->in_channels >= 0 &&
           s->filter_height >= 1 && s->filter_width >= 1 && s->stride_height >= 1 && s->stride_width >= 1 &&
           s->pad_top >= 0 && s->pad_left >= 0 && s->out_height >= 0 && s->out_width >= 0;
}

/* The windows tile the image exactly (stride = window, no padding: 2x2/2 pooling of even sizes), and have at
 * most MAX_TILED_TAPS taps: each input cell lies in one window, and every window lies in the image. */
static int windows_tile(const wf_conv2d_shape *s) {
    return s->stride_height == s->filter_height && s->stride_width == s->filter_width && s->pad_top == 0 &&
           s->pad_left == 0 && s->filter_height * s->filter_width <= MAX_TILED_TAPS &&
           s->out_height * s->filter_height == s->in_height && s->out_width * s->filter_width == s->in_width;
}

/* offset[t] = tap t's cell from its window's corner, for the tiled passes: computed once, as dividing t by
 * the window width for every vector took longer than the rest of the MaxPoolGrad pass. */
static void tiled_tap_offsets(const wf_conv2d_shape *s, wf_size *offset) {
    for (wf_size t = 0; t < s->filter_height * s->filter_width; ++t)
        offset[t] = ((t / s->filter_width) * s->in_width + t % s->filter_width) * s->in_channels;
}

/* The in-bounds part of output pixel (oh, ow)'s window: rows [*h0, *h1), columns [*w0, *w1). */
static void window(const wf_conv2d_shape *s, wf_size oh, wf_size ow, wf_size *h0, wf_size *h1, wf_size *w0,
                   wf_size *w1) {
    wf_size top = oh * s->stride_height - s->pad_top, left = ow * s->stride_width - s->pad_left;
    *h0 = WF_MAX(top, 0);
    *h1 = WF_MIN(top + s->filter_height, s->in_height);
    *w0 = WF_MAX(left, 0);
    *w1 = WF_MIN(left + s->filter_width, s->in_width);
}

#define REAL float
#define VEC wf_f32v
#define IVEC wf_i32v
#define LANES WF_F32_LANES
#define VLOAD wf_load_f32v
#define VSTORE wf_store_f32v
#define VSPLAT wf_splat_f32v
#define NEG_INF (-__FLT_MAX__) /* TensorFlow's max starts at the lowest finite value: NaN / -inf windows give it */
#define NAME(x) x##_f32
#include "pool_template.h"
#undef REAL
#undef VEC
#undef IVEC
#undef LANES
#undef VLOAD
#undef VSTORE
#undef VSPLAT
#undef NEG_INF
#undef NAME

#define REAL double
#define VEC wf_f64v
#define IVEC wf_i64v
#define LANES WF_F64_LANES
#define VLOAD wf_load_f64v
#define VSTORE wf_store_f64v
#define VSPLAT wf_splat_f64v
#define NEG_INF (-__DBL_MAX__)
#define NAME(x) x##_f64
#include "pool_template.h"

/* --- MaxPool and MaxPoolGrad on several threads ------------------------------------------------------------
 * Images are independent: the threads claim IMAGES_PER_UNIT at a time and run the one-thread pass on them.
 * Why here and not in Python's pool: its worker starts 40-70 us late, a fifth of conv1's MaxPool. */
#define IMAGES_PER_UNIT 4

typedef struct {
    const wf_conv2d_shape *s;
    const float *input, *output_grad;
    float *output, *partials;
    int relu, gradient;
    wf_size next;
} pool_images_job;

static void pool_images_thread(void *context, wf_size thread) {
    pool_images_job *job = context;
    const wf_conv2d_shape *s = job->s;
    wf_size image = s->in_height * s->in_width * s->in_channels, pooled = s->out_height * s->out_width * s->in_channels;
    wf_size units = (s->batch + IMAGES_PER_UNIT - 1) / IMAGES_PER_UNIT;
    (void)thread;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_conv2d_shape part = *s;
        wf_size first = u * IMAGES_PER_UNIT;
        part.batch = WF_MIN(IMAGES_PER_UNIT, s->batch - first);
        if (job->gradient) {
            max_pool_grad_f32(&part, job->input + first * image, job->output_grad + first * pooled,
                              job->output + first * image, job->relu);
            for (wf_size n = first; job->partials && n < first + part.batch; ++n)
                wf_column_sums_f32(job->output + n * image, s->in_height * s->in_width, s->in_channels,
                                   job->partials + n * s->in_channels);
        } else
            wf_max_pool_f32(&part, job->input + first * image, job->output + first * pooled);
    }
}

WF_EXPORT int wf_max_pool_parallel_f32(const wf_conv2d_shape *s, const float *input, float *output, wf_size threads) {
    if (!valid_pool(s) || threads < 1) return WF_BAD_ARGUMENT;
    pool_images_job job = {s, input, NULL, output, NULL, 0, 0, 0};
    wf_run_parallel(pool_images_thread, &job, threads);
    return WF_OK;
}

WF_EXPORT int wf_max_pool_grad_parallel_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                                            float *input_grad, int relu, float *sums, float *partials,
                                            wf_size threads) {
    if (!valid_pool(s) || threads < 1 || (sums && !partials)) return WF_BAD_ARGUMENT;
    pool_images_job job = {s, input, output_grad, input_grad, sums ? partials : NULL, relu != 0, 1, 0};
    wf_run_parallel(pool_images_thread, &job, threads);
    if (sums) wf_column_sums_f32(partials, s->batch, s->in_channels, sums);
    return WF_OK;
}
