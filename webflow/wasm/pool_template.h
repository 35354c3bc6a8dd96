/* pool_template.h: the pooling bodies, included by pool.c once per element type (float, double).
 *
 * The includer defines REAL, VEC (with IVEC, the integer vector its comparisons give), LANES, VLOAD,
 * VSTORE, VSPLAT, NEG_INF and NAME(x) (x with the type suffix), and before the first include the
 * type-independent helpers valid_pool, window and GRAD_CHANNELS. The semantics are at the top of pool.c.
 */

/* Lane-wise max that keeps `a` unless `b` is strictly greater (bit select on the comparison mask). */
static inline VEC NAME(max_v)(VEC a, VEC b) {
    IVEC take_b = b > a;
    return (VEC)(((IVEC)b & take_b) | ((IVEC)a & ~take_b));
}

/* MaxPool when the windows tile the image exactly (windows_tile in pool.c): the same maxima in the same
 * order as the general loop below, the window's taps at offsets computed once instead of per vector.
 * Measured 50x28x28x32 -> 14x14, one thread, best of 200 interleaved: 0.269 -> 0.233 ms (50x14x14x64:
 * 0.128 -> 0.119). It reads 5 MB in that time: the pass is bound by memory, not by the loop. */
static void NAME(max_pool_tiled)(const wf_conv2d_shape *s, const REAL *input, REAL *output) {
    const wf_size C = s->in_channels, L = LANES, KH = s->filter_height, KW = s->filter_width;
    const wf_size taps = KH * KW, W = s->in_width;
    wf_size tap_offset[MAX_TILED_TAPS];
    tiled_tap_offsets(s, tap_offset);
    for (wf_size n = 0; n < s->batch; ++n) {
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const REAL *corner = input + ((n * s->in_height + oh * KH) * W + ow * KW) * C;
                REAL *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size c = 0;
                for (; c + L <= C; c += L) {
                    VEC best = VSPLAT(NEG_INF);
                    for (wf_size t = 0; t < taps; ++t) best = NAME(max_v)(best, VLOAD(corner + tap_offset[t] + c));
                    VSTORE(out + c, best);
                }
                for (; c < C; ++c) {
                    REAL best = NEG_INF;
                    for (wf_size t = 0; t < taps; ++t) {
                        REAL v = corner[tap_offset[t] + c];
                        best = v > best ? v : best;
                    }
                    out[c] = best;
                }
            }
        }
    }
}

WF_EXPORT int NAME(wf_max_pool)(const wf_conv2d_shape *s, const REAL *input, REAL *output) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    if (windows_tile(s)) {
        NAME(max_pool_tiled)(s, input, output);
        return WF_OK;
    }
    const wf_size C = s->in_channels, L = LANES;
    for (wf_size n = 0; n < s->batch; ++n) {
        const REAL *image = input + n * s->in_height * s->in_width * C;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                REAL *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1, c = 0;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                for (; c + L <= C; c += L) {
                    VEC best = VSPLAT(NEG_INF);
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            best = NAME(max_v)(best, VLOAD(image + (h * s->in_width + w) * C + c));
                        }
                    }
                    VSTORE(out + c, best);
                }
                for (; c < C; ++c) {
                    REAL best = NEG_INF;
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            REAL v = image[(h * s->in_width + w) * C + c];
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

/* For channels [c0, c0 + width) of output pixel (oh, ow) of image `image`: where[c] = the offset (from
 * the image start) of the window's first maximal cell, or -1 for an empty window. Strictly greater:
 * ties keep the earlier position; the first in-bounds value is always taken (even -inf or NaN), as
 * TensorFlow's kernel. Shared by MaxPoolGrad and MaxPoolGradGrad so they route through the same cells. */
static void NAME(first_max)(const wf_conv2d_shape *s, const REAL *image, wf_size oh, wf_size ow, wf_size c0,
                            wf_size width, wf_size *where) {
    const wf_size C = s->in_channels;
    REAL best[GRAD_CHANNELS];
    wf_size h0, h1, w0, w1;
    window(s, oh, ow, &h0, &h1, &w0, &w1);
    for (wf_size c = 0; c < width; ++c) where[c] = -1;
    for (wf_size h = h0; h < h1; ++h) {
        for (wf_size w = w0; w < w1; ++w) {
            wf_size at = (h * s->in_width + w) * C + c0;
            for (wf_size c = 0; c < width; ++c) {
                if (where[c] < 0 || image[at + c] > best[c]) {
                    best[c] = image[at + c];
                    where[c] = at + c;
                }
            }
        }
    }
}

/* MaxPoolGrad when the windows tile the image exactly (stride = window, no padding: 2x2/2 pooling of even
 * sizes): each input cell lies in one window, so it is written once (its window's gradient or 0) with no
 * zeroing pass, and the first maximum is tracked a vector of channels at a time. Same cell as first_max:
 * the first cell starts, a later one takes over only if strictly greater (NaN never does). 0 + g as the
 * general path's zero-fill then `+=` (a -0.0 gradient lands as +0.0). Measured 50x28x28x32 -> 14x14, one
 * thread: 3.1 -> 1.1 ms against the general path; fused with ReluGrad, 0.97 -> 0.42 once the tap offsets
 * were computed before the loops (noisy shared machine). */
static void NAME(max_pool_grad_tiled)(const wf_conv2d_shape *s, const REAL *input, const REAL *output_grad,
                                      REAL *input_grad, int relu) {
    const wf_size C = s->in_channels, L = LANES, KH = s->filter_height, KW = s->filter_width;
    const wf_size taps = KH * KW, W = s->in_width;
    wf_size tap_offset[MAX_TILED_TAPS];
    tiled_tap_offsets(s, tap_offset);
    for (wf_size n = 0; n < s->batch; ++n) {
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const wf_size pixel = (n * s->out_height + oh) * s->out_width + ow;
                const wf_size corner = ((n * s->in_height + oh * KH) * W + ow * KW) * C;
                const REAL *g = output_grad + pixel * C;
                wf_size c = 0;
                for (; c + L <= C; c += L) {
                    VEC best = VLOAD(input + corner + c);
                    IVEC pick = {0};
                    for (wf_size t = 1; t < taps; ++t) {
                        VEC v = VLOAD(input + corner + tap_offset[t] + c);
                        IVEC greater = v > best;
                        best = (VEC)(((IVEC)v & greater) | ((IVEC)best & ~greater));
                        pick = (greater & ((IVEC){0} + (int)t)) | (pick & ~greater);
                    }
                    IVEC gv = (IVEC)(VLOAD(g + c) + VSPLAT(0));
                    for (wf_size t = 0; t < taps; ++t) {
                        wf_size at = corner + tap_offset[t] + c;
                        IVEC here = pick == ((IVEC){0} + (int)t);
                        if (relu) here &= VLOAD(input + at) > VSPLAT(0);   /* ReluGrad: only where input > 0 */
                        VSTORE(input_grad + at, (VEC)(gv & here));
                    }
                }
                for (; c < C; ++c) {
                    REAL best = input[corner + c];
                    wf_size pick = 0;
                    for (wf_size t = 1; t < taps; ++t) {
                        REAL v = input[corner + tap_offset[t] + c];
                        if (v > best) { best = v; pick = t; }
                    }
                    for (wf_size t = 0; t < taps; ++t) {
                        wf_size at = corner + tap_offset[t] + c;
                        int kept = t == pick && (!relu || input[at] > 0);
                        input_grad[at] = kept ? (REAL)0 + g[c] : (REAL)0;
                    }
                }
            }
        }
    }
}

static int NAME(max_pool_grad)(const wf_conv2d_shape *s, const REAL *input, const REAL *output_grad,
                                REAL *input_grad, int relu) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    if (windows_tile(s)) {
        NAME(max_pool_grad_tiled)(s, input, output_grad, input_grad, relu);
        return WF_OK;
    }
    const wf_size C = s->in_channels, plane = s->in_height * s->in_width * C;
    NAME(wf_zero)(input_grad, s->batch * plane);
    wf_size where[GRAD_CHANNELS];
    for (wf_size n = 0; n < s->batch; ++n) {
        const REAL *image = input + n * plane;
        REAL *grad = input_grad + n * plane;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const REAL *g = output_grad + ((n * s->out_height + oh) * s->out_width + ow) * C;
                for (wf_size c0 = 0; c0 < C; c0 += GRAD_CHANNELS) {
                    wf_size width = WF_MIN(GRAD_CHANNELS, C - c0);
                    NAME(first_max)(s, image, oh, ow, c0, width, where);
                    for (wf_size c = 0; c < width; ++c) {
                        if (where[c] >= 0) grad[where[c]] += g[c0 + c];
                    }
                }
            }
        }
        for (wf_size i = 0; relu && i < plane; ++i) grad[i] = image[i] > 0 ? grad[i] : (REAL)0;
    }
    return WF_OK;
}

WF_EXPORT int NAME(wf_max_pool_grad)(const wf_conv2d_shape *s, const REAL *input, const REAL *output_grad,
                                     REAL *input_grad) {
    return NAME(max_pool_grad)(s, input, output_grad, input_grad, 0);
}

/* MaxPoolGrad then ReluGrad with the pooling's input as the features: input_grad = the MaxPoolGrad where
 * input > 0, else 0, in the same pass (runtime/fusion.py fuses a conv layer's Relu -> MaxPool gradient). */
WF_EXPORT int NAME(wf_max_pool_grad_relu)(const wf_conv2d_shape *s, const REAL *input, const REAL *output_grad,
                                          REAL *input_grad) {
    return NAME(max_pool_grad)(s, input, output_grad, input_grad, 1);
}

/* MaxPoolGradGrad: output[window] = input_grad_grad[the window's first maximal cell] (0 for an empty
 * window); input_grad_grad has the input's shape, output the pooled shape. */
WF_EXPORT int NAME(wf_max_pool_grad_grad)(const wf_conv2d_shape *s, const REAL *input, const REAL *grad,
                                          REAL *output) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, plane = s->in_height * s->in_width * C;
    wf_size where[GRAD_CHANNELS];
    for (wf_size n = 0; n < s->batch; ++n) {
        const REAL *image = input + n * plane, *g = grad + n * plane;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                REAL *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                for (wf_size c0 = 0; c0 < C; c0 += GRAD_CHANNELS) {
                    wf_size width = WF_MIN(GRAD_CHANNELS, C - c0);
                    NAME(first_max)(s, image, oh, ow, c0, width, where);
                    for (wf_size c = 0; c < width; ++c) out[c0 + c] = where[c] >= 0 ? g[where[c]] : (REAL)0;
                }
            }
        }
    }
    return WF_OK;
}

WF_EXPORT int NAME(wf_avg_pool)(const wf_conv2d_shape *s, const REAL *input, REAL *output) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, L = LANES;
    for (wf_size n = 0; n < s->batch; ++n) {
        const REAL *image = input + n * s->in_height * s->in_width * C;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                REAL *out = output + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1, c = 0;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                REAL count = (REAL)WF_MAX((h1 - h0) * (w1 - w0), 1);  /* in-bounds pixels only */
                for (; c + L <= C; c += L) {
                    VEC sum = {0};
                    for (wf_size h = h0; h < h1; ++h) {
                        for (wf_size w = w0; w < w1; ++w) {
                            sum += VLOAD(image + (h * s->in_width + w) * C + c);
                        }
                    }
                    VSTORE(out + c, sum / count);
                }
                for (; c < C; ++c) {
                    REAL sum = 0;
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

WF_EXPORT int NAME(wf_avg_pool_grad)(const wf_conv2d_shape *s, const REAL *output_grad, REAL *input_grad) {
    if (!valid_pool(s)) return WF_BAD_ARGUMENT;
    const wf_size C = s->in_channels, plane = s->in_height * s->in_width * C;
    NAME(wf_zero)(input_grad, s->batch * plane);
    for (wf_size n = 0; n < s->batch; ++n) {
        REAL *grad = input_grad + n * plane;
        for (wf_size oh = 0; oh < s->out_height; ++oh) {
            for (wf_size ow = 0; ow < s->out_width; ++ow) {
                const REAL *g = output_grad + ((n * s->out_height + oh) * s->out_width + ow) * C;
                wf_size h0, h1, w0, w1;
                window(s, oh, ow, &h0, &h1, &w0, &w1);
                REAL scale = (REAL)1 / (REAL)WF_MAX((h1 - h0) * (w1 - w0), 1);
                for (wf_size h = h0; h < h1; ++h) {
                    for (wf_size w = w0; w < w1; ++w) {
                        REAL *pixel = grad + (h * s->in_width + w) * C;
                        for (wf_size c = 0; c < C; ++c) pixel[c] += g[c] * scale;  /* compiler vectorises */
                    }
                }
            }
        }
    }
    return WF_OK;
}
