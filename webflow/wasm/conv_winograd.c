/* conv_winograd.c: Winograd convolution for float32 NHWC data, stride 1, square 3x3 or 5x5 filters.
 *
 * Exports (s describes the geometry, see wf_conv2d_shape in webflow_kernels.h):
 *   wf_size wf_conv2d_winograd_tile(s)                 outputs per tile side (4 for 3x3, 2 for 5x5), 0 = n/a
 *   wf_size wf_conv2d_winograd_filter_floats(s)        floats of the transformed filter (`transformed` below)
 *   wf_size wf_conv2d_winograd_workspace_f32(s)        floats of scratch per thread
 *   int wf_conv2d_winograd_f32(s, input, filter, bias, relu, pool, output, pooled, transformed, work,
 *                              work_len, threads)
 *       output = conv2d(input, filter); with a bias (not NULL) + bias[k], then max(., 0) if relu: TensorFlow's
 *       _FusedConv2D; with a pool geometry (not NULL), also pooled = MaxPool(output) image by image
 *       (wf_max_pool_f32, pool.c), as wf_conv2d_direct_bias_relu_pool_f32 does.
 *   wf_size wf_conv2d_winograd_grad_floats(s)          floats of one slice's summed products (`grads` below)
 *   wf_size wf_conv2d_winograd_filter_workspace_f32(s) floats of scratch per thread for the filter gradient
 *   int wf_conv2d_winograd_filter_grad_f32(s, input, output_grad, pool, pool_input, pooled_grad, sums, partials,
 *                                          grads, slices, filter_grad, work, work_len, threads)
 *       filter_grad = Conv2DBackpropFilter; the batch cut into `slices` fixed slices (grads holds one sum of
 *       products each, added in slice order: the same result whichever thread ran which). With a pool geometry
 *       (output_grad NULL) each image's output gradient is made from the pooling's as in
 *       wf_conv2d_direct_filter_grad_pool_f32 (MaxPoolGrad -> ReluGrad, per-channel sums into partials, then
 *       sums).
 * The input gradient needs no kernel of its own: for stride 1 it is the forward convolution of the output
 * gradient with the filter flipped in space and transposed in channels (backends/c/conv_winograd.py).
 *
 * Why: a direct convolution (conv_direct.c) already runs its multiply-adds near the cores' FMA peak, so
 * the only way to be faster is to do fewer of them. Winograd's minimal filtering algorithm F(m x m, r x r)
 * computes an m x m block of outputs of an r x r filter from an (m + r - 1)^2 block of inputs with
 * (m + r - 1)^2 multiplications instead of m^2 r^2: Y = A^T [(G g G^T) . (B^T d B)] A, where "." is an
 * elementwise product. Summed over input channels, that elementwise product becomes, for each of the
 * (m + r - 1)^2 positions of a tile, an ordinary matrix product [tiles x C_in] x [C_in x C_out]: the bulk of
 * the work stays a dense GEMM (register_tiles.h's rows tile, the same tile as the direct convolution), and
 * the transforms are a few additions per value. Both filters here use 6 x 6 tiles (F(2x2, 5x5): 36
 * multiplications per 4 outputs instead of 100; F(4x4, 3x3): 36 per 16 instead of 144) built on the same
 * points 0, 1, -1, 2, -2 and infinity, so the input transform B^T is one function for both: with those
 * points the products A^T[i][k] G[k][j] depend only on i + j, which makes B^T the inverse of one matrix
 * whatever m and r are. Small points keep the float32 error close to the direct sum's (the transforms
 * scale by at most 8; larger tiles would need larger points and lose digits).
 * The filter is transformed once per call, on the calling thread; then each thread claims groups of
 * images: pads an image (zeros around, as SAME asks), transforms its tiles' inputs into
 * V[position][tile][channel], runs the 36 products into M[position][tile][out channel], and transforms M
 * back into the output with the bias and relu applied before the store. A tile that sticks out of the
 * output (11 outputs in tiles of 4) reads zeros and stores only its outputs inside.
 * The filter gradient is the same algorithm turned around: its r x r "outputs" are the filter's taps and its
 * "filter" is an m x m tile of the output gradient, so F(r x r, m x m) also has 6 x 6 tiles, reads the very
 * same input tiles (V), and the sum over all tiles of the batch becomes 36 products V^T W accumulated in the
 * transformed domain, transformed back once at the end.
 * Only the tile bookkeeping is new code: the products are register_tiles.h's rows and outer tiles, the
 * transforms plain vector arithmetic, so the same source builds for AVX-512, AVX2 and wasm's 128-bit SIMD.
 */
#include "register_tiles.h"

#define ALPHA 6                      /* tile side of the inputs: m + r - 1 */
#define POSITIONS (ALPHA * ALPHA)
#define TILES_PER_UNIT 48            /* images are grouped until a group has about this many tiles */

int wf_max_pool_f32(const wf_conv2d_shape *s, const float *input, float *output); /* pool.c */
int wf_max_pool_grad_relu_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                              float *input_grad); /* pool.c */

WF_EXPORT wf_size wf_conv2d_winograd_tile(const wf_conv2d_shape *s) {
    if (s->filter_height != s->filter_width || s->stride_height != 1 || s->stride_width != 1 ||
        s->dilation_height != 1 || s->dilation_width != 1)
        return 0;
    return s->filter_height == 5 ? 2 : s->filter_height == 3 ? 4 : 0;
}

static wf_size round_up(wf_size n, wf_size to) { return (n + to - 1) / to * to; }
static wf_size tiles_down(const wf_conv2d_shape *s) {
    return (s->out_height + wf_conv2d_winograd_tile(s) - 1) / wf_conv2d_winograd_tile(s);
}
static wf_size tiles_across(const wf_conv2d_shape *s) {
    return (s->out_width + wf_conv2d_winograd_tile(s) - 1) / wf_conv2d_winograd_tile(s);
}
/* The zero-padded image the tiles read: every input row and column some tile's 6 x 6 inputs reach. */
static wf_size padded_height(const wf_conv2d_shape *s) {
    return tiles_down(s) * wf_conv2d_winograd_tile(s) + s->filter_height - 1;
}
static wf_size padded_width(const wf_conv2d_shape *s) {
    return tiles_across(s) * wf_conv2d_winograd_tile(s) + s->filter_width - 1;
}
static wf_size images_per_unit(const wf_conv2d_shape *s) {
    return WF_MAX(1, TILES_PER_UNIT / (tiles_down(s) * tiles_across(s)));
}
/* V's and M's rows: whole vectors, so a transform reads and writes whole vectors past the last channel. */
static wf_size in_row(const wf_conv2d_shape *s) { return round_up(s->in_channels, LANES); }
static wf_size out_row(const wf_conv2d_shape *s) { return round_up(s->out_channels, LANES); }

WF_EXPORT wf_size wf_conv2d_winograd_filter_floats(const wf_conv2d_shape *s) {
    return POSITIONS * s->in_channels * out_row(s);
}

/* One thread's scratch: the padded image (and a vector of slack read past its last channel), V, M, the bias. */
static wf_size padded_floats(const wf_conv2d_shape *s) {
    return padded_height(s) * padded_width(s) * s->in_channels + LANES;
}
static wf_size unit_tiles(const wf_conv2d_shape *s) { return images_per_unit(s) * tiles_down(s) * tiles_across(s); }
WF_EXPORT wf_size wf_conv2d_winograd_workspace_f32(const wf_conv2d_shape *s) {
    return padded_floats(s) + POSITIONS * unit_tiles(s) * (in_row(s) + out_row(s)) + out_row(s);
}

/* --- the transforms (points 0, 1, -1, 2, -2, infinity) ------------------------------------------------ */
/* out = B^T d for 6 values d. */
ALWAYS_INLINE void input_1d(const vec d[ALPHA], vec out[ALPHA]) {
    out[0] = 4 * d[0] - 5 * d[2] + d[4];
    out[1] = d[3] + d[4] - 4 * (d[1] + d[2]);
    out[2] = d[4] - d[3] + 4 * (d[1] - d[2]);
    out[3] = d[4] - d[2] + 2 * (d[3] - d[1]);
    out[4] = d[4] - d[2] + 2 * (d[1] - d[3]);
    out[5] = 4 * d[1] - 5 * d[3] + d[5];
}

/* v[position * step] = (B^T d B) for LANES channels of one tile: d's rows are `down` floats apart, its
 * columns `right`. */
static void input_tile(const float *d, wf_size down, wf_size right, float *v, wf_size step) {
    vec t[ALPHA][ALPHA], column[ALPHA], out[ALPHA];
    for (int b = 0; b < ALPHA; ++b) {
        for (int a = 0; a < ALPHA; ++a) column[a] = load(d + a * down + b * right);
        input_1d(column, out);
        for (int k = 0; k < ALPHA; ++k) t[k][b] = out[k];
    }
    for (int k = 0; k < ALPHA; ++k) {
        input_1d(t[k], out);
        for (int l = 0; l < ALPHA; ++l) store(v + (k * ALPHA + l) * step, out[l]);
    }
}

/* out = A^T t for n = 2 .. 5 outputs: output i is point p's power i summed over the points (times t's value
 * there), plus t[5] for the last output (the infinity point). */
ALWAYS_INLINE void output_1d(const vec t[ALPHA], vec out[5], wf_size n) {
    vec sum12 = t[1] + t[2], diff12 = t[1] - t[2], sum34 = t[3] + t[4], diff34 = t[3] - t[4];
    for (wf_size i = 0; i < n; ++i) {
        float power = (float)(1 << i);
        vec value = i % 2 ? diff12 + power * diff34 : sum12 + power * sum34;
        if (i == 0) value = t[0] + sum12 + sum34;
        if (i == n - 1) value += t[5];
        out[i] = value;
    }
}

/* The m x m outputs (A^T M A) + bias of `count` (<= LANES) output channels of one tile, relu'd, stored where
 * inside the output: `rows` x `cols` of them, output rows `down` floats apart, pixels `right`. */
static void output_tile(const float *mt, wf_size step, const float *bias, int relu, wf_size m, float *y, wf_size down,
                        wf_size right, wf_size rows, wf_size cols, wf_size count) {
    vec t[4][ALPHA], row[ALPHA], out[5], b = bias ? load(bias) : (vec){0};
    for (int l = 0; l < ALPHA; ++l) {
        for (int k = 0; k < ALPHA; ++k) row[k] = load(mt + (k * ALPHA + l) * step);
        output_1d(row, out, m);
        for (wf_size i = 0; i < m; ++i) t[i][l] = out[i];
    }
    for (wf_size i = 0; i < rows; ++i) {
        output_1d(t[i], out, m);
        for (wf_size j = 0; j < cols; ++j) {
            vec value = bias ? out[j] + b : out[j];   /* no bias: no add (a -0 stays -0, as without the fusion) */
            if (relu) value = (vec)(~(value <= 0) & (ivec)value);   /* NaN stays NaN, as wf_relu_f32 */
            float *at = y + i * down + j * right;
            if (count == LANES) {
                store(at, value);
            } else {
                float lanes[LANES];
                store(lanes, value);
                for (wf_size c = 0; c < count; ++c) at[c] = lanes[c];
            }
        }
    }
}

/* out = G g for r = 3 or 5 taps g: point p's row is p's powers 0 .. r-1 times a scale (1/4 at 0, -1/6 at
 * +-1, 1/24 at +-2; the infinity row is the last tap), the scales that give B^T (input_1d) small integers.
 * The sums over the even and the odd taps serve both signs of a point. */
ALWAYS_INLINE void filter_1d(const vec *g, wf_size r, vec out[ALPHA]) {
    vec even = g[0], odd = g[1], even2 = g[0], odd2 = 2 * g[1];
    for (wf_size j = 2; j < r; ++j) {
        float power = (float)(1 << j);
        if (j % 2) {
            odd += g[j];
            odd2 += power * g[j];
        } else {
            even += g[j];
            even2 += power * g[j];
        }
    }
    out[0] = g[0] * (1.0f / 4);
    out[1] = (even + odd) * (-1.0f / 6);
    out[2] = (even - odd) * (-1.0f / 6);
    out[3] = (even2 + odd2) * (1.0f / 24);
    out[4] = (even2 - odd2) * (1.0f / 24);
    out[5] = g[r - 1];
}

/* transformed[position][c][k] = (G g G^T)[position] for input channel c, all output channels (K .. out_row
 * zeros), LANES output channels at a time. */
static void filter_transform(const wf_conv2d_shape *s, const float *filter, float *transformed, wf_size c) {
    wf_size r = s->filter_height, C = s->in_channels, K = s->out_channels, row = out_row(s);
    for (wf_size k0 = 0; k0 < row; k0 += LANES) {
        vec g[5][5], half[ALPHA][5], column[5], out[ALPHA];
        for (wf_size a = 0; a < r; ++a)
            for (wf_size b = 0; b < r; ++b) {
                const float *taps = filter + ((a * r + b) * C + c) * K + k0;
                if (k0 + LANES <= K) {
                    g[a][b] = load(taps);
                } else {
                    float lanes[LANES] = {0};
                    for (wf_size e = 0; e < K - k0; ++e) lanes[e] = taps[e];
                    g[a][b] = load(lanes);
                }
            }
        for (wf_size b = 0; b < r; ++b) {
            for (wf_size a = 0; a < r; ++a) column[a] = g[a][b];
            filter_1d(column, r, out);
            for (int k = 0; k < ALPHA; ++k) half[k][b] = out[k];
        }
        for (int k = 0; k < ALPHA; ++k) {
            filter_1d(half[k], r, out);
            for (int l = 0; l < ALPHA; ++l) store(transformed + ((k * ALPHA + l) * C + c) * row + k0, out[l]);
        }
    }
}

/* --- the forward convolution, shared out over threads ------------------------------------------------- */
typedef struct {
    const wf_conv2d_shape *s, *pool;
    const float *input, *filter, *bias;
    int relu;
    float *output, *pooled, *transformed, *work;
    wf_size work_len, next;
} winograd_job;

/* image [H, W, C] -> the image part of padded [PH, PW, C] (its zeros are written once per thread). */
static void pad_image(const wf_conv2d_shape *s, const float *image, float *padded) {
    wf_size pw = padded_width(s), C = s->in_channels;
    wf_size rows = WF_MIN(s->in_height, padded_height(s) - s->pad_top);
    wf_size cols = WF_MIN(s->in_width, pw - s->pad_left);
    for (wf_size i = 0; i < rows; ++i)
        wf_copy_f32(padded + ((s->pad_top + i) * pw + s->pad_left) * C, image + i * s->in_width * C, cols * C);
}

/* V[position][first tile + t][c] for the tiles of one padded image. */
static void transform_inputs(const wf_conv2d_shape *s, const float *padded, float *v, wf_size first, wf_size step) {
    wf_size m = wf_conv2d_winograd_tile(s), C = s->in_channels, pw = padded_width(s), cin = in_row(s);
    wf_size tile = first;
    for (wf_size ty = 0; ty < tiles_down(s); ++ty)
        for (wf_size tx = 0; tx < tiles_across(s); ++tx, ++tile)
            for (wf_size c = 0; c < C; c += LANES)
                input_tile(padded + ((ty * m) * pw + tx * m) * C + c, pw * C, C, v + tile * cin + c, step);
}

/* M[position] = V[position] x transformed[position] for `tiles` tiles: rows tiles of register_tiles.h with
 * one "tap" of C channels. A ragged last group moves back (it recomputes some rows with the same result). */
static void products(const wf_conv2d_shape *s, const float *v, const float *u, float *mt, wf_size tiles) {
    wf_size C = s->in_channels, cin = in_row(s), cout = out_row(s), vecs = tile_vecs(cout);
    wf_size rows = tiles >= TILE_ROWS(vecs) ? TILE_ROWS(vecs) : 1;
    rows_walk walk = {1, 1, 0, 0, C, cout, 0, NULL, 0};
    const float *row[TILE_ACCUMULATORS];
    float *out[TILE_ACCUMULATORS];
    for (wf_size position = 0; position < POSITIONS; ++position) {
        const float *vp = v + position * tiles * cin, *up = u + position * C * cout;
        float *mp = mt + position * tiles * cout;
        for (wf_size co = 0; co < cout; co += vecs * LANES) {
            for (wf_size first = 0; first < tiles; first += rows) {
                wf_size start = WF_MIN(first, tiles - rows);
                for (wf_size p = 0; p < rows; ++p) {
                    row[p] = vp + (start + p) * cin;
                    out[p] = mp + (start + p) * cout + co;
                }
                rows_tiles(&walk, row, up + co, out, (int)rows, vecs);
            }
        }
    }
}

/* The outputs of one image from M's tiles [first, ...). */
static void transform_outputs(const wf_conv2d_shape *s, const float *mt, const float *bias, int relu, float *y,
                              wf_size first, wf_size step) {
    wf_size m = wf_conv2d_winograd_tile(s), K = s->out_channels, cout = out_row(s), tile = first;
    for (wf_size ty = 0; ty < tiles_down(s); ++ty)
        for (wf_size tx = 0; tx < tiles_across(s); ++tx, ++tile) {
            wf_size rows = WF_MIN(m, s->out_height - ty * m), cols = WF_MIN(m, s->out_width - tx * m);
            for (wf_size k = 0; k < K; k += LANES)
                output_tile(mt + tile * cout + k, step, bias ? bias + k : NULL, relu, m,
                            y + (ty * m * s->out_width + tx * m) * K + k, s->out_width * K, K, rows, cols,
                            WF_MIN(LANES, K - k));
        }
}

static void forward_thread(void *context, wf_size thread) {
    winograd_job *job = context;
    const wf_conv2d_shape *s = job->s;
    wf_size per_image = tiles_down(s) * tiles_across(s), group = images_per_unit(s), tiles = unit_tiles(s);
    wf_size image = s->in_height * s->in_width * s->in_channels;
    wf_size out_image = s->out_height * s->out_width * s->out_channels;
    wf_size units = (s->batch + group - 1) / group, cout = out_row(s);
    float *padded = job->work + thread * job->work_len, *v = padded + padded_floats(s);
    float *mt = v + POSITIONS * tiles * in_row(s), *bias = mt + POSITIONS * tiles * cout;
    wf_zero_f32(padded, padded_floats(s));
    for (wf_size k = 0; k < cout; ++k) bias[k] = job->bias && k < s->out_channels ? job->bias[k] : 0.0f;
    for (wf_size unit = wf_next_unit(&job->next); unit < units; unit = wf_next_unit(&job->next)) {
        wf_size n0 = unit * group, n1 = WF_MIN(s->batch, n0 + group), count = (n1 - n0) * per_image;
        for (wf_size n = n0; n < n1; ++n) {
            pad_image(s, job->input + n * image, padded);
            transform_inputs(s, padded, v, (n - n0) * per_image, count * in_row(s));
        }
        products(s, v, job->transformed, mt, count);
        for (wf_size n = n0; n < n1; ++n) {
            transform_outputs(s, mt, job->bias ? bias : NULL, job->relu, job->output + n * out_image,
                              (n - n0) * per_image, count * cout);
            if (job->pool) {
                wf_conv2d_shape one = *job->pool;
                one.batch = 1;
                wf_max_pool_f32(&one, job->output + n * out_image,
                                job->pooled + n * one.out_height * one.out_width * one.in_channels);
            }
        }
    }
}

static int valid_winograd_shape(const wf_conv2d_shape *s) {
    return wf_conv2d_winograd_tile(s) > 0 && s->batch >= 0 && s->in_height >= 1 && s->in_width >= 1 &&
           s->in_channels >= 1 && s->out_channels >= 1 && s->pad_top >= 0 && s->pad_left >= 0 &&
           s->out_height >= 1 && s->out_width >= 1 && s->out_height + s->filter_height - 1 - s->pad_top >= 1 &&
           s->out_width + s->filter_width - 1 - s->pad_left >= 1;
}

static int pool_fits(const wf_conv2d_shape *s, const wf_conv2d_shape *pool) {
    return pool->batch == s->batch && pool->in_height == s->out_height && pool->in_width == s->out_width &&
           pool->in_channels == s->out_channels && pool->filter_height >= 1 && pool->filter_width >= 1 &&
           pool->stride_height >= 1 && pool->stride_width >= 1 && pool->pad_top >= 0 && pool->pad_left >= 0 &&
           pool->out_height >= 1 && pool->out_width >= 1;
}

WF_EXPORT int wf_conv2d_winograd_f32(const wf_conv2d_shape *s, const float *input, const float *filter,
                                     const float *bias, int relu, const wf_conv2d_shape *pool, float *output,
                                     float *pooled, float *transformed, float *work, wf_size work_len,
                                     wf_size threads) {
    if (!valid_winograd_shape(s) || threads < 1 || (pool && !pool_fits(s, pool))) return WF_BAD_ARGUMENT;
    if (work_len < wf_conv2d_winograd_workspace_f32(s)) return WF_WORKSPACE_TOO_SMALL;
    winograd_job job = {s, pool, input, filter, bias, relu, output, pooled, transformed, work, work_len, 0};
    /* The filter transform is a few vector operations per tap: on the calling thread, as handing it to the
     * workers and waiting for them would cost more. */
    for (wf_size c = 0; c < s->in_channels; ++c) filter_transform(s, filter, transformed, c);
    wf_run_parallel(forward_thread, &job, threads);
    return WF_OK;
}

/* --- the filter gradient ------------------------------------------------------------------------------
 * dW = the correlation of the input with the output gradient, whose r x r outputs are the filter's taps:
 * F(r x r, m x m) with the same 6 x 6 input tiles as the forward (so the same V), the output gradient's m x m
 * tiles transformed by G for m taps, and the sum over tiles and images becomes, per position, the product
 * V^T W [C_in x tiles] x [tiles x C_out] accumulated (register_tiles.h's outer tile); one A^T . A at the end. */

/* Rows of the accumulated products per position: the input channels in whole outer tiles. */
static wf_size grad_rows(const wf_conv2d_shape *s) {
    return round_up(s->in_channels, TILE_ROWS(tile_vecs(out_row(s))));
}

WF_EXPORT wf_size wf_conv2d_winograd_grad_floats(const wf_conv2d_shape *s) {
    return POSITIONS * grad_rows(s) * out_row(s);
}

/* One thread's scratch: the padded image, V (and an outer tile's rows of slack), W, the padded output
 * gradient (tiles x m square), the image's output gradient made from a pooling's. */
static wf_size dy_padded_floats(const wf_conv2d_shape *s) {
    wf_size m = wf_conv2d_winograd_tile(s);
    return tiles_down(s) * m * tiles_across(s) * m * s->out_channels + LANES;
}
WF_EXPORT wf_size wf_conv2d_winograd_filter_workspace_f32(const wf_conv2d_shape *s) {
    return padded_floats(s) + POSITIONS * unit_tiles(s) * (in_row(s) + out_row(s)) + TILE_ACCUMULATORS +
           dy_padded_floats(s) + s->out_height * s->out_width * s->out_channels;
}

/* W[position][first tile + t][k] = (G dy G^T) for the m x m tiles of one padded output gradient image. */
static void transform_output_grads(const wf_conv2d_shape *s, const float *dy, float *w, wf_size first, wf_size step) {
    wf_size m = wf_conv2d_winograd_tile(s), K = s->out_channels, cout = out_row(s), dw = tiles_across(s) * m;
    wf_size tile = first;
    for (wf_size ty = 0; ty < tiles_down(s); ++ty)
        for (wf_size tx = 0; tx < tiles_across(s); ++tx, ++tile)
            for (wf_size k = 0; k < K; k += LANES) {
                vec g[5][5], half[ALPHA][5], column[5], out[ALPHA];
                const float *at = dy + (ty * m * dw + tx * m) * K + k;
                for (wf_size a = 0; a < m; ++a)
                    for (wf_size b = 0; b < m; ++b) g[a][b] = load(at + (a * dw + b) * K);
                for (wf_size b = 0; b < m; ++b) {
                    for (wf_size a = 0; a < m; ++a) column[a] = g[a][b];
                    filter_1d(column, m, out);
                    for (int i = 0; i < ALPHA; ++i) half[i][b] = out[i];
                }
                for (int i = 0; i < ALPHA; ++i) {
                    filter_1d(half[i], m, out);
                    for (int l = 0; l < ALPHA; ++l) store(w + (i * ALPHA + l) * step + tile * cout + k, out[l]);
                }
            }
}

/* acc[position] += V[position]^T W[position] over `tiles` tiles. */
static void grad_products(const wf_conv2d_shape *s, const float *v, const float *w, float *acc, wf_size tiles) {
    wf_size cin = in_row(s), cout = out_row(s), vecs = tile_vecs(cout), rows = TILE_ROWS(vecs), C = grad_rows(s);
    outer_walk walk = {1, tiles, 0, cin, 0, cout, cout};
    for (wf_size position = 0; position < POSITIONS; ++position) {
        const float *vp = v + position * tiles * cin, *wp = w + position * tiles * cout;
        float *ap = acc + position * C * cout;
        for (wf_size c = 0; c < C; c += rows)
            for (wf_size co = 0; co < cout; co += vecs * LANES)
                outer_tiles(&walk, vp + c, wp + co, ap + c * cout + co, vecs, 0);
    }
}

typedef struct {
    const wf_conv2d_shape *s, *pool;
    const float *input, *output_grad, *pool_input, *pooled_grad;
    float *partials, *grads, *work;
    wf_size slices, work_len, next;
} filter_job;

/* Image n's output gradient, copied into the padded one (zeros past the output): output_grad's, or made from
 * the pooling's gradient (MaxPoolGrad then ReluGrad, its per-channel sums into partials[n]) as
 * conv_direct.c's image_output_grad does. */
static void image_output_grad(const filter_job *job, float *made, float *dy_padded, wf_size n) {
    const wf_conv2d_shape *s = job->s;
    wf_size pixels = s->out_height * s->out_width, K = s->out_channels;
    wf_size dw = tiles_across(s) * wf_conv2d_winograd_tile(s);
    const float *dy = job->output_grad + n * pixels * K;
    if (job->pool) {
        wf_conv2d_shape one = *job->pool;
        one.batch = 1;
        wf_max_pool_grad_relu_f32(&one, job->pool_input + n * pixels * K,
                                  job->pooled_grad + n * one.out_height * one.out_width * K, made);
        wf_column_sums_f32(made, pixels, K, job->partials + n * K);
        dy = made;
    }
    for (wf_size i = 0; i < s->out_height; ++i)
        wf_copy_f32(dy_padded + i * dw * K, dy + i * s->out_width * K, s->out_width * K);
}

static wf_size slice_start(wf_size images, wf_size slices, wf_size i) {
    wf_size size = images / slices, longer = images % slices;
    return i * size + WF_MIN(i, longer);
}

static void filter_grad_thread(void *context, wf_size thread) {
    filter_job *job = context;
    const wf_conv2d_shape *s = job->s;
    wf_size per_image = tiles_down(s) * tiles_across(s), group = images_per_unit(s), tiles = unit_tiles(s);
    wf_size image = s->in_height * s->in_width * s->in_channels, grad = wf_conv2d_winograd_grad_floats(s);
    float *padded = job->work + thread * job->work_len, *v = padded + padded_floats(s);
    float *w = v + POSITIONS * tiles * in_row(s) + TILE_ACCUMULATORS, *dy_padded = w + POSITIONS * tiles * out_row(s);
    float *made = dy_padded + dy_padded_floats(s);
    wf_zero_f32(padded, padded_floats(s));
    wf_zero_f32(dy_padded, dy_padded_floats(s));
    wf_zero_f32(v + POSITIONS * tiles * in_row(s), TILE_ACCUMULATORS);
    for (wf_size i = wf_next_unit(&job->next); i < job->slices; i = wf_next_unit(&job->next)) {
        float *acc = job->grads + i * grad;
        wf_zero_f32(acc, grad);
        wf_size stop = slice_start(s->batch, job->slices, i + 1);
        for (wf_size n0 = slice_start(s->batch, job->slices, i); n0 < stop; n0 += group) {
            wf_size n1 = WF_MIN(stop, n0 + group), count = (n1 - n0) * per_image;
            for (wf_size n = n0; n < n1; ++n) {
                pad_image(s, job->input + n * image, padded);
                transform_inputs(s, padded, v, (n - n0) * per_image, count * in_row(s));
                image_output_grad(job, made, dy_padded, n);
                transform_output_grads(s, dy_padded, w, (n - n0) * per_image, count * out_row(s));
            }
            grad_products(s, v, w, acc, count);
        }
    }
}

/* filter_grad[a][b][c][k] = (A^T acc A)[a][b] of the summed slices' products, for r x r taps. */
static void transform_filter_grad(const wf_conv2d_shape *s, const float *acc, float *filter_grad) {
    wf_size r = s->filter_height, C = s->in_channels, K = s->out_channels, cout = out_row(s), rows = grad_rows(s);
    wf_size step = rows * cout;
    for (wf_size c = 0; c < C; ++c)
        for (wf_size k = 0; k < K; k += LANES) {
            vec t[5][ALPHA], row[ALPHA], out[5];
            for (int l = 0; l < ALPHA; ++l) {
                for (int i = 0; i < ALPHA; ++i) row[i] = load(acc + (i * ALPHA + l) * step + c * cout + k);
                output_1d(row, out, r);
                for (wf_size a = 0; a < r; ++a) t[a][l] = out[a];
            }
            for (wf_size a = 0; a < r; ++a) {
                output_1d(t[a], out, r);
                for (wf_size b = 0; b < r; ++b) {
                    float lanes[LANES], *at = filter_grad + ((a * r + b) * C + c) * K + k;
                    store(lanes, out[b]);
                    for (wf_size e = 0; e < WF_MIN(LANES, K - k); ++e) at[e] = lanes[e];
                }
            }
        }
}

WF_EXPORT int wf_conv2d_winograd_filter_grad_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                                                 const wf_conv2d_shape *pool, const float *pool_input,
                                                 const float *pooled_grad, float *sums, float *partials,
                                                 float *grads, wf_size slices, float *filter_grad, float *work,
                                                 wf_size work_len, wf_size threads) {
    if (!valid_winograd_shape(s) || threads < 1 || slices < 1 || (pool && !pool_fits(s, pool)) ||
        (!pool && !output_grad))
        return WF_BAD_ARGUMENT;
    if (work_len < wf_conv2d_winograd_filter_workspace_f32(s)) return WF_WORKSPACE_TOO_SMALL;
    filter_job job = {s, pool, input, output_grad, pool_input, pooled_grad, partials, grads, work, slices, work_len, 0};
    wf_run_parallel(filter_grad_thread, &job, threads);
    wf_size grad = wf_conv2d_winograd_grad_floats(s);
    for (wf_size i = 1; i < slices; ++i)  /* in slice order: the same sum whichever thread ran which slice */
        for (wf_size e = 0; e < grad; ++e) grads[e] += grads[i * grad + e];
    transform_filter_grad(s, grads, filter_grad);
    if (pool) wf_column_sums_f32(partials, s->batch, s->out_channels, sums);
    return WF_OK;
}
