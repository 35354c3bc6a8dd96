/* conv.c: 2-D convolution over NHWC images with HWIO filters, as TensorFlow's Conv2D (float32, float64).
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
 * Every export also exists as _f64 (same arguments, double buffers; the workspace is counted in elements).
 * The bodies are written once, in conv_template.h, and instantiated here for float and double.
 */
#include "webflow_kernels.h"

void wf_gemm_f32(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, float alpha, const float *a,
                 wf_size lda, const float *b, wf_size ldb, float beta, float *c, wf_size ldc);
void wf_gemm_f64(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, double alpha, const double *a,
                 wf_size lda, const double *b, wf_size ldb, double beta, double *c, wf_size ldc);

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

/* Rows of col per chunk for a given workspace, or 0 if it cannot hold one row. */
static wf_size chunk_rows(const wf_conv2d_shape *s, wf_size work_len) {
    wf_size K = S_K(s);
    return K == 0 ? S_M(s) : work_len / K;
}

#define REAL float
#define VEC wf_f32v
#define LANES WF_F32_LANES
#define VLOAD wf_load_f32v
#define VSTORE wf_store_f32v
#define VSPLAT wf_splat_f32v
#define NAME(x) x##_f32
#include "conv_template.h"
#undef REAL
#undef VEC
#undef LANES
#undef VLOAD
#undef VSTORE
#undef VSPLAT
#undef NAME

#define REAL double
#define VEC wf_f64v
#define LANES WF_F64_LANES
#define VLOAD wf_load_f64v
#define VSTORE wf_store_f64v
#define VSPLAT wf_splat_f64v
#define NAME(x) x##_f64
#include "conv_template.h"
