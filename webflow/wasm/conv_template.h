/* conv_template.h: the convolution bodies, included by conv.c once per element type (float, double).
 *
 * The includer defines:
 *   REAL          element type             VEC, LANES      vector type and its lane count
 *   VLOAD/VSTORE  unaligned vector access  VSPLAT          scalar -> every lane
 *   NAME(x)       x with the type suffix (wf_conv2d -> wf_conv2d_f32)
 * and, before the first include, the type-independent helpers S_M, S_K, valid_shape, is_pointwise,
 * chunk_rows. The algorithm is described at the top of conv.c.
 */

/* Rows [row0, row0 + rows) of col, or (scatter) their sum back onto the image. One function walks the
 * taps for both directions so they cannot disagree about which pixel a tap reads. */
static void NAME(walk_rows)(const wf_conv2d_shape *s, wf_size row0, wf_size rows, REAL *image, REAL *col,
                            int scatter) {
    wf_size C = s->in_channels, K = S_K(s);
    for (wf_size r = 0; r < rows; ++r) {
        wf_size m = row0 + r, ow = m % s->out_width, oh = (m / s->out_width) % s->out_height;
        wf_size n = m / (s->out_width * s->out_height);
        REAL *pixels = image + n * s->in_height * s->in_width * C;
        REAL *taps = col + r * K;
        for (wf_size kh = 0; kh < s->filter_height; ++kh) {
            wf_size ih = oh * s->stride_height - s->pad_top + kh * s->dilation_height;
            for (wf_size kw = 0; kw < s->filter_width; ++kw, taps += C) {
                wf_size iw = ow * s->stride_width - s->pad_left + kw * s->dilation_width;
                int inside = ih >= 0 && ih < s->in_height && iw >= 0 && iw < s->in_width;
                REAL *pixel = pixels + (ih * s->in_width + iw) * C;
                if (scatter) {
                    if (inside) for (wf_size c = 0; c < C; ++c) pixel[c] += taps[c];
                } else if (inside) {
                    NAME(wf_copy)(taps, pixel, C);
                } else {
                    NAME(wf_zero)(taps, C);
                }
            }
        }
    }
}

WF_EXPORT void NAME(wf_im2col)(const wf_conv2d_shape *s, const REAL *input, REAL *col) {
    NAME(walk_rows)(s, 0, S_M(s), (REAL *)input, col, 0);  /* gather only reads the image */
}

WF_EXPORT void NAME(wf_col2im)(const wf_conv2d_shape *s, const REAL *col, REAL *input_grad) {
    NAME(wf_zero)(input_grad, s->batch * s->in_height * s->in_width * s->in_channels);
    NAME(walk_rows)(s, 0, S_M(s), input_grad, (REAL *)col, 1);  /* scatter only reads col */
}

/* Rows per chunk: enough for the GEMM to run at speed (>= 128), bounded to about 256k elements of scratch. */
WF_EXPORT wf_size NAME(wf_conv2d_workspace)(const wf_conv2d_shape *s) {
    wf_size K = S_K(s), M = S_M(s);
    if (K == 0 || M == 0) return 1;
    wf_size rows = WF_MIN(M, WF_MAX(128, (wf_size)262144 / K));
    return rows * K;
}

WF_EXPORT int NAME(wf_conv2d_direct_c1)(const wf_conv2d_shape *s, const REAL *input, const REAL *filter,
                                        REAL *output);

WF_EXPORT int NAME(wf_conv2d)(const wf_conv2d_shape *s, const REAL *input, const REAL *filter, REAL *output,
                              REAL *work, wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (s->in_channels == 1) return NAME(wf_conv2d_direct_c1)(s, input, filter, output);
    if (is_pointwise(s)) {
        NAME(wf_gemm)(0, 0, M, OC, K, (REAL)1, input, K, filter, OC, (REAL)0, output, OC);
        return WF_OK;
    }
    wf_size chunk = chunk_rows(s, work_len);
    if (M > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        NAME(walk_rows)(s, row0, rows, (REAL *)input, work, 0);
        NAME(wf_gemm)(0, 0, rows, OC, K, (REAL)1, work, K, filter, OC, (REAL)0, output + row0 * OC, OC);
    }
    return WF_OK;
}

WF_EXPORT int NAME(wf_conv2d_backprop_input)(const wf_conv2d_shape *s, const REAL *filter,
                                             const REAL *output_grad, REAL *input_grad, REAL *work,
                                             wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (is_pointwise(s)) {  /* input_grad = output_grad . filter^T, filter viewed as C x OC */
        NAME(wf_gemm)(0, 1, M, K, OC, (REAL)1, output_grad, OC, filter, OC, (REAL)0, input_grad, K);
        return WF_OK;
    }
    NAME(wf_zero)(input_grad, s->batch * s->in_height * s->in_width * s->in_channels);
    wf_size chunk = chunk_rows(s, work_len);
    if (M > 0 && K > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    if (K == 0) return WF_OK;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        NAME(wf_gemm)(0, 1, rows, K, OC, (REAL)1, output_grad + row0 * OC, OC, filter, OC, (REAL)0, work, K);
        NAME(walk_rows)(s, row0, rows, input_grad, work, 1);
    }
    return WF_OK;
}

WF_EXPORT int NAME(wf_conv2d_backprop_filter)(const wf_conv2d_shape *s, const REAL *input,
                                              const REAL *output_grad, REAL *filter_grad, REAL *work,
                                              wf_size work_len) {
    if (!valid_shape(s)) return WF_BAD_ARGUMENT;
    wf_size M = S_M(s), K = S_K(s), OC = s->out_channels;
    if (is_pointwise(s)) {  /* filter_grad = input^T . output_grad, input viewed as M x C */
        NAME(wf_gemm)(1, 0, K, OC, M, (REAL)1, input, K, output_grad, OC, (REAL)0, filter_grad, OC);
        return WF_OK;
    }
    if (M == 0) {
        NAME(wf_zero)(filter_grad, K * OC);
        return WF_OK;
    }
    wf_size chunk = chunk_rows(s, work_len);
    if (K > 0 && chunk < 1) return WF_WORKSPACE_TOO_SMALL;
    if (K == 0) return WF_OK;
    for (wf_size row0 = 0; row0 < M; row0 += chunk) {
        wf_size rows = WF_MIN(chunk, M - row0);
        NAME(walk_rows)(s, row0, rows, (REAL *)input, work, 0);
        NAME(wf_gemm)(1, 0, K, OC, rows, (REAL)1, work, K, output_grad + row0 * OC, OC,
                      row0 == 0 ? (REAL)0 : (REAL)1, filter_grad, OC);
    }
    return WF_OK;
}

/* One input channel: each output pixel is a weighted sum of its KH x KW window, for every output
 * channel at once. Output channels are contiguous in both the filter row of a tap and the output
 * pixel, so 4 vectors of output channels accumulate in registers while the taps stream past. */
WF_EXPORT int NAME(wf_conv2d_direct_c1)(const wf_conv2d_shape *s, const REAL *input, const REAL *filter,
                                        REAL *output) {
    if (!valid_shape(s) || s->in_channels != 1) return WF_BAD_ARGUMENT;
    const wf_size L = LANES, OC = s->out_channels;
    for (wf_size m = 0; m < S_M(s); ++m) {
        wf_size ow = m % s->out_width, oh = (m / s->out_width) % s->out_height;
        const REAL *image = input + m / (s->out_width * s->out_height) * s->in_height * s->in_width;
        REAL *out = output + m * OC;
        wf_size oc = 0;
        for (; oc + 4 * L <= OC; oc += 4 * L) {
            VEC acc0 = {0}, acc1 = {0}, acc2 = {0}, acc3 = {0};
            for (wf_size kh = 0; kh < s->filter_height; ++kh) {
                wf_size ih = oh * s->stride_height - s->pad_top + kh * s->dilation_height;
                if (ih < 0 || ih >= s->in_height) continue;
                for (wf_size kw = 0; kw < s->filter_width; ++kw) {
                    wf_size iw = ow * s->stride_width - s->pad_left + kw * s->dilation_width;
                    if (iw < 0 || iw >= s->in_width) continue;
                    VEC x = VSPLAT(image[ih * s->in_width + iw]);
                    const REAL *f = filter + (kh * s->filter_width + kw) * OC + oc;
                    acc0 += x * VLOAD(f);
                    acc1 += x * VLOAD(f + L);
                    acc2 += x * VLOAD(f + 2 * L);
                    acc3 += x * VLOAD(f + 3 * L);
                }
            }
            VSTORE(out + oc, acc0);
            VSTORE(out + oc + L, acc1);
            VSTORE(out + oc + 2 * L, acc2);
            VSTORE(out + oc + 3 * L, acc3);
        }
        for (; oc < OC; ++oc) {  /* fewer than 4 vectors of channels left */
            REAL acc = 0;
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
