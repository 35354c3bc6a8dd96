/* conv.c: 2-D convolution over NHWC images with HWIO filters, as TensorFlow's Conv2D (float32).
 *
 * Exports (s describes the geometry, see wf_conv2d_shape in webflow_kernels.h):
 *   void   wf_im2col_f32(s, input, col)                      col[M, K] from input[N, H, W, C]
 *   void   wf_col2im_f32(s, col, input_grad)                 input_grad = sum of col entries per pixel
 *   wf_size wf_conv2d_workspace_f32(s)                       floats of scratch the three below want
 *   int    wf_conv2d_f32(s, input, filter, output, work, work_len)
 *   int    wf_conv2d_backprop_input_f32(s, filter, output_grad, input_grad, work, work_len)
 *   int    wf_conv2d_backprop_filter_f32(s, input, output_grad, filter_grad, work, work_len)
 *   int    wf_conv2d_direct_c1_f32(s, input, filter, output)  in_channels == 1, no im2col
 * with M = N * OH * OW output pixels and K = KH * KW * C taps per pixel. Row m of `col` lists, tap by
 * tap (kh, kw, c), the input values output pixel m sees (zeros in the padding), so with the filter
 * viewed as a K x OC matrix the convolution is one GEMM, and so are both gradients, as in TensorFlow:
 *   output       = col . filter                   (M x K)  (K x OC)
 *   col_grad     = output_grad . filter^T         then col2im scatters it back onto input pixels
 *   filter_grad  = col^T . output_grad            (K x M)  (M x OC)
 * `col` would be M x K floats, often far larger than the image, so the GEMMs run over chunks of rows
 * that fit the caller's workspace (wf_conv2d_workspace_f32 floats; at least K). 1x1 stride-1 unpadded
 * filters need no im2col at all (the image already is `col`), and 1-channel inputs use a direct loop,
 * where building `col` would cost more than the arithmetic (PLATFORM.md).
 */
#include "webflow_kernels.h"

void wf_gemm_f32(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, float alpha, const float *a,
                 wf_size lda, const float *b, wf_size ldb, float beta, float *c, wf_size ldc);

#define S_M(s) ((s)->batch * (s)->out_height * (s)->out_width)
#define S_K(s) ((s)->filter_height * (s)->filter_width * (s)->in_channels)

static int valid_shape(const wf_conv2d_shape *s) {
    return s->batch >= 0 && s->in_height >= 0 && s->in_width >= 0 && s->in_channels >= 0 &&
           s->filter_height >= 0 && s->filter_width >= 0 && s->out_channels >= 0 && s->stride_height >= 1 &&
           s->stride_width >= 1 && s->dilation_height >= 1 && s->dilation_width >= 1 && s->pad_top >= 0 &&
           s->pad_left >= 0 && s->out_height >= 0 && s->out_width >= 0;
}

/* The image already is `col`: 1x1 window, stride 1, no padding. */
static int is_pointwise(const wf_conv2d_shape *s) {
    return s->filter_height == 1 && s->filter_width == 1 && s->stride_height == 1 && s->stride_width == 1 &&
           s->pad_top == 0 && s->pad_left == 0 && s->out_height == s->in_height && s->out_width == s->in_width;
}

/* Rows [row0, row0 + rows) of col, or (scatter) their sum back onto the image. One function walks the
 * taps for both directions so they cannot disagree about which pixel a tap reads. */
static void walk_rows(const wf_conv2d_shape *s, wf_size row0, wf_size rows, float *image, float *col,
                      int scatter) {
    wf_size C = s->in_channels, K = S_K(s);
    for (wf_size r = 0; r < rows; ++r) {
        wf_size m = row0 + r, ow = m % s->out_width, oh = (m / s->out_width) % s->out_height;
        wf_size n = m / (s->out_width * s->out_height);
        float *pixels = image + n * s->in_height * s->in_width * C;
        float *taps = col + r * K;
        for (wf_size kh = 0; kh < s->filter_height; ++kh) {
            wf_size ih = oh * s->stride_height - s->pad_top + kh * s->dilation_height;
            for (wf_size kw = 0; kw < s->filter_width; ++kw, taps += C) {
                wf_size iw = ow * s->stride_width - s->pad_left + kw * s->dilation_width;
                int inside = ih >= 0 && ih < s->in_height && iw >= 0 && iw < s->in_width;
                float *pixel = pixels + (ih * s->in_width + iw) * C;
                if (scatter) {
                    if (inside) for (wf_size c = 0; c < C; ++c) pixel[c] += taps[c];
                } else if (inside) {
                    wf_copy_f32(taps, pixel, C);
                } else {
                    wf_zero_f32(taps, C);
                }
            }
        }
    }
}

WF_EXPORT void wf_im2col_f32(const wf_conv2d_shape *s, const float *input, float *col) {
    walk_rows(s, 0, S_M(s), (float *)input, col, 0);  /* gather only reads the image */
}

WF_EXPORT void wf_col2im_f32(const wf_conv2d_shape *s, const float *col, float *input_grad) {
    wf_zero_f32(input_grad, s->batch * s->in_height * s->in_width * s->in_channels);
    walk_rows(s, 0, S_M(s), input_grad, (float *)col, 1);  /* scatter only reads col */
}

/* Rows per chunk: enough for the GEMM to run at speed (>= 128), bounded to about 1 MB of scratch. */
WF_EXPORT wf_size wf_conv2d_workspace_f32(const wf_conv2d_shape *s) {
    wf_size K = S_K(s), M = S_M(s);
    if (K == 0 || M == 0) return 1;
    wf_size rows = WF_MIN(M, WF_MAX(128, (wf_size)262144 / K));
    return rows * K;
}

/* Rows of col per chunk for a given workspace, or 0 if it cannot hold one row. */
static wf_size chunk_rows(const wf_conv2d_shape *s, wf_size work_len) {
    wf_size K = S_K(s);
    return K == 0 ? S_M(s) : work_len / K;
}

WF_EXPORT int wf_conv2d_direct_c1_f32(const wf_conv2d_shape *s, const float *input, const float *filter,
                                      float *output);

WF_EXPORT int wf_conv2d_f32(const wf_conv2d_shape *s, const float *input, const float *filter, float *output,
                            float *work, wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (s->in_channels == 1) return wf_conv2d_direct_c1_f32(s, input, filter, output);
    if (is_pointwise(s)) {
        wf_gemm_f32(0, 0, M, OC, K, 1.0f, input, K, filter, OC, 0.0f, output, OC);
        return WF_OK;
    }
    wf_size chunk = chunk_rows(s, work_len);
    if (M > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        walk_rows(s, row0, rows, (float *)input, work, 0);
        wf_gemm_f32(0, 0, rows, OC, K, 1.0f, work, K, filter, OC, 0.0f, output + row0 * OC, OC);
    }
    return WF_OK;
}

WF_EXPORT int wf_conv2d_backprop_input_f32(const wf_conv2d_shape *s, const float *filter,
                                           const float *output_grad, float *input_grad, float *work,
                                           wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (is_pointwise(s)) {  /* input_grad = output_grad . filter^T, filter viewed as C x OC */
        wf_gemm_f32(0, 1, M, K, OC, 1.0f, output_grad, OC, filter, OC, 0.0f, input_grad, K);
        return WF_OK;
    }
    wf_zero_f32(input_grad, s->batch * s->in_height * s->in_width * s->in_channels);
    wf_size chunk = chunk_rows(s, work_len);
    if (M > 0 && K > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    if (K == 0) return WF_OK;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        wf_gemm_f32(0, 1, rows, K, OC, 1.0f, output_grad + row0 * OC, OC, filter, OC, 0.0f, work, K);
        walk_rows(s, row0, rows, input_grad, work, 1);
    }
    return WF_OK;
}

WF_EXPORT int wf_conv2d_backprop_filter_f32(const wf_conv2d_shape *s, const float *input,
                                            const float *output_grad, float *filter_grad, float *work,
                                            wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (is_pointwise(s)) {  /* filter_grad = input^T . output_grad, input viewed as M x C */
        wf_gemm_f32(1, 0, K, OC, M, 1.0f, input, K, output_grad, OC, 0.0f, filter_grad, OC);
        return WF_OK;
    }
    if (M == 0) {
        wf_zero_f32(filter_grad, K * OC);
        return WF_OK;
    }
    wf_size chunk = chunk_rows(s, work_len);
    if (K > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    if (K == 0) return WF_OK;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        walk_rows(s, row0, rows, (float *)input, work, 0);
        wf_gemm_f32(1, 0, K, OC, rows, 1.0f, work, K, output_grad + row0 * OC, OC, row0 == 0 ? 0.0f : 1.0f,
                    filter_grad, OC);
    }
    return WF_OK;
}

/* One input channel: each output pixel is a weighted sum of its KH x KW window, for every output
 * channel at once. Output channels are contiguous in both the filter row of a tap and the output
 * pixel, so 4 vectors of output channels accumulate in registers while the taps stream past. */
WF_EXPORT int wf_conv2d_direct_c1_f32(const wf_conv2d_shape *s, const float *input, const float *filter,
                                      float *output) {
    if (!valid_shape(s) || s->in_channels != 1) return WF_BAD_ARGUMENT;
    const wf_size L = WF_F32_LANES, OC = s->out_channels;
    for (wf_size m = 0; m < S_M(s); ++m) {
        wf_size ow = m % s->out_width, oh = (m / s->out_width) % s->out_height;
        const float *image = input + m / (s->out_width * s->out_height) * s->in_height * s->in_width;
        float *out = output + m * OC;
        wf_size oc = 0;
        for (; oc + 4 * L <= OC; oc += 4 * L) {
            wf_f32v acc0 = {0}, acc1 = {0}, acc2 = {0}, acc3 = {0};
            for (wf_size kh = 0; kh < s->filter_height; ++kh) {
                wf_size ih = oh * s->stride_height - s->pad_top + kh * s->dilation_height;
                if (ih < 0 || ih >= s->in_height) continue;
                for (wf_size kw = 0; kw < s->filter_width; ++kw) {
                    wf_size iw = ow * s->stride_width - s->pad_left + kw * s->dilation_width;
                    if (iw < 0 || iw >= s->in_width) continue;
                    wf_f32v x = wf_splat_f32v(image[ih * s->in_width + iw]);
                    const float *f = filter + (kh * s->filter_width + kw) * OC + oc;
                    acc0 += x * wf_load_f32v(f);
                    acc1 += x * wf_load_f32v(f + L);
                    acc2 += x * wf_load_f32v(f + 2 * L);
                    acc3 += x * wf_load_f32v(f + 3 * L);
                }
            }
            wf_store_f32v(out + oc, acc0);
            wf_store_f32v(out + oc + L, acc1);
            wf_store_f32v(out + oc + 2 * L, acc2);
            wf_store_f32v(out + oc + 3 * L, acc3);
        }
        for (; oc < OC; ++oc) {  /* fewer than 4 vectors of channels left */
            float acc = 0.0f;
            for (wf_size kh = 0; kh < s->filter_height; ++kh) {
                wf_size ih = oh * s->stride_height - s->pad_top + kh * s->dilation_height;
                if (ih < 0 || ih >= s->in_height) continue;
                for (wf_size kw = 0; kw < s->filter_width; ++kw) {
                    wf_size iw = ow * s->stride_width - s->pad_left + kw * s->dilation_width;
                    if (iw < 0 || iw >= s->in_width) continue;
                    acc += image[ih * s->in_width + iw] * filter[(kh * s->filter_width + kw) * OC + oc];
                }
            }
            out[oc] = acc;
        }
    }
    return WF_OK;
}
