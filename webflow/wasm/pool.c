/* pool.c: max and average pooling over NHWC images, forward and backward, as TensorFlow (float32).
 *
 * Exports (s: wf_conv2d_shape with filter_* = window, in_channels = channels, dilations 1):
 *   int wf_max_pool_f32(s, input, output)                     MaxPool
 *   int wf_max_pool_grad_f32(s, input, output_grad, input_grad) MaxPoolGrad
 *   int wf_avg_pool_f32(s, input, output)                     AvgPool
 *   int wf_avg_pool_grad_f32(s, output_grad, input_grad)      AvgPoolGrad
 * TensorFlow's semantics: a SAME window only covers in-bounds pixels (max pads with -inf, so padding
 * never wins; avg divides by the number of in-bounds pixels, not the window size). MaxPoolGrad sends
 * each output's gradient to ONE input: the first maximum in window scan order (row by row, then column),
 * as TensorFlow's CPU kernel does; it recomputes that position from the input.
 * Channels are innermost (NHWC), so every loop runs along contiguous channels: vectors for max/avg.
 */
#include "webflow_kernels.h"

typedef int32_t wf_i32v __attribute__((vector_size(WF_VECTOR_BYTES)));

static int valid_pool(const wf_conv2d_shape *s) {
    return s->batch >= 0 && s->in_height >= 0 && s->in_width >= 0 && s->in_channels >= 0 &&
           s->filter_height >= 1 && s->filter_width >= 1 && s->stride_height >= 1 && s->stride_width >= 1 &&
           s->pad_top >= 0 && s->pad_left >= 0 && s->out_height >= 0 && s->out_width >= 0;
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

/* Lane-wise max that keeps `a` unless `b` is strictly greater (bit select on the comparison mask). */
static inline wf_f32v max_f32v(wf_f32v a, wf_f32v b) {
    wf_i32v take_b = b > a;
    return (wf_f32v)(((wf_i32v)b & take_b) | ((wf_i32v)a & ~take_b));
}

WF_EXPORT int wf_max_pool_f32(const wf_conv2d_shape *s, const float *input, float *output) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, L = WF_F32_LANES;
    for (wf_size n = 0; n < s->batch; ++n) {
        const float *image = input + n * s->in_height * s->in_width * C;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                float *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1, c = 0;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                for (; c + L <= C; c += L) {
                    wf_f32v best = wf_splat_f32v(-WF_INF_F32);
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            best = max_f32v(best, wf_load_f32v(image + (h * s->in_width + w) * C + c));
                        }
                    }
                    wf_store_f32v(out + c, best);
                }
                for (; c < C; ++c) {
                    float best = -WF_INF_F32;
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            float v = image[(h * s->in_width + w) * C + c];
                            best = v > best ? v : best;
                        }
                    }
                    out[c] = best;
                }
            }
        }
    }
    return WF_OK;
}

#define GRAD_CHANNELS 64 /* channels whose running max / argmax are tracked at once (on the stack) */

WF_EXPORT int wf_max_pool_grad_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                                   float *input_grad) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, plane = s->in_height * s->in_width * C;
    wf_zero_f32(input_grad, s->batch * plane);
    float best[GRAD_CHANNELS];
    wf_size where[GRAD_CHANNELS];
    for (wf_size n = 0; n < s->batch; ++n) {
        const float *image = input + n * plane;
        float *grad = input_grad + n * plane;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const float *g = output_grad + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                for (wf_size c0 = 0; c0 < C; c0 += GRAD_CHANNELS) {
                    wf_size width = WF_MIN(GRAD_CHANNELS, C - c0);
                    for (wf_size c = 0; c < width; ++c) where[c] = -1;
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            wf_size at = (h * s->in_width + w) * C + c0;
                            for (wf_size c = 0; c < width; ++c) {
                                /* strictly greater: ties keep the earlier position; the first in-bounds
                                 * value is always taken (even -inf or NaN), as TensorFlow's kernel */
                                if (where[c] < 0 || image[at + c] > best[c]) {
                                    best[c] = image[at + c];
                                    where[c] = at + c;
                                }
                            }
                        }
                    }
                    for (wf_size c = 0; c < width; ++c) {
                        if (where[c] >= 0) grad[where[c]] += g[c0 + c];
                    }
                }
            }
        }
    }
    return WF_OK;
}

WF_EXPORT int wf_avg_pool_f32(const wf_conv2d_shape *s, const float *input, float *output) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, L = WF_F32_LANES;
    for (wf_size n = 0; n < s->batch; ++n) {
        const float *image = input + n * s->in_height * s->in_width * C;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                float *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1, c = 0;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                float count = (float)WF_MAX((h1 - h0) * (w1 - w0), 1);  /* in-bounds pixels only */
                for (; c + L <= C; c += L) {
                    wf_f32v sum = {0};
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            sum += wf_load_f32v(image + (h * s->in_width + w) * C + c);
                        }
                    }
                    wf_store_f32v(out + c, sum / count);
                }
                for (; c < C; ++c) {
                    float sum = 0.0f;
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) sum += image[(h * s->in_width + w) * C + c];
                    }
                    out[c] = sum / count;
                }
            }
        }
    }
    return WF_OK;
}

WF_EXPORT int wf_avg_pool_grad_f32(const wf_conv2d_shape *s, const float *output_grad, float *input_grad) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, plane = s->in_height * s->in_width * C;
    wf_zero_f32(input_grad, s->batch * plane);
    for (wf_size n = 0; n < s->batch; ++n) {
        float *grad = input_grad + n * plane;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const float *g = output_grad + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                float scale = 1.0f / (float)WF_MAX((h1 - h0) * (w1 - w0), 1);
                for (wf_size h = h0; h < h1; ++h) {
                    for (wf_size w = w0; w < w1; ++w) {
                        float *pixel = grad + (h * s->in_width + w) * C;
                        for (wf_size c = 0; c < C; ++c) pixel[c] += g[c] * scale;  /* compiler vectorises */
                    }
                }
            }
        }
    }
    return WF_OK;
}
