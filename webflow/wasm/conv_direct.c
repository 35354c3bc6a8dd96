/* conv_direct.c: direct 2-D convolution for float32 NHWC data: the windows are read in place, no im2col.
 *
 * Exports (s describes the geometry, see wf_conv2d_shape in webflow_kernels.h):
 *   wf_size wf_conv2d_direct_lanes(void)               out_channels must be a multiple of this
 *   wf_size wf_conv2d_direct_workspace_f32(s)          floats of scratch wf_conv2d_direct_f32 wants
 *   wf_size wf_conv2d_direct_filter_workspace_f32(s)   ... and wf_conv2d_direct_filter_grad_f32
 *   wf_size wf_conv2d_direct_filter_rows(s)            tile rows per window row the filter gradient sums
 *   int wf_conv2d_direct_f32(s, input, filter, output, work, work_len, threads)
 *   int wf_conv2d_direct_bias_relu_f32(s, input, filter, bias, relu, output, work, work_len, threads)
 *       the same, then output[..., k] += bias[k] and (relu != 0) max(output, 0) before the store: TensorFlow's
 *       _FusedConv2D, run for a Conv2D -> BiasAdd/AddV2 -> Relu chain (runtime/fusion.py)
 *   int wf_conv2d_direct_bias_relu_pool_f32(s, input, filter, bias, relu, pool, output, pooled, work, work_len,
 *                                           threads)
 *       the same, and then each image's output max-pooled (wf_max_pool_f32, pool.c; `pool` its geometry) into
 *       `pooled` while it is still in cache: a conv layer and its MaxPool (runtime/fusion.py), bit for bit
 *   int wf_conv2d_direct_filter_grad_f32(s, input, output_grad, filter_grads, slices, work, work_len, threads)
 *       filter_grads[i] = the filter gradient of slice i of the batch (slice_start: sizes differ by at most
 *       one image, longer slices first): fixed slices, so their sum in order is the same whatever thread
 *       ran which.
 *   wf_size wf_conv2d_direct_filter_pool_workspace_f32(s)   ... and the next one
 *   int wf_conv2d_direct_filter_grad_pool_f32(s, input, pool, pool_input, pooled_grad, sums, partials,
 *                                             filter_grads, slices, work, work_len, threads)
 *       the same, with each image's output gradient made just before it is used, in the workspace: the
 *       MaxPoolGrad (geometry `pool`) of pooled_grad then ReluGrad with pool_input (the conv layer's Relu
 *       output) as features (wf_max_pool_grad_relu_f32), summed per channel into partials[image]
 *       (wf_column_sums_f32), and sums = the column sums of partials: a conv layer's whole gradient with its
 *       bias gradient (the bits of wf_max_pool_grad_parallel_f32's sums), the conv's output gradient itself
 *       never written out (runtime/fusion.py, when only these read it).
 * Threads: each call runs on `threads` threads (wf_run_parallel, parallel.c), `work` holding a workspace of
 * work_len floats for each; they claim images or slices from a counter until none is left (wf_next_unit).
 * The gradient of the input needs no kernel of its own: for stride 1 it is this convolution of the
 * output gradient with the filter flipped in space and transposed in channels (backends/c_conv_direct.py).
 *
 * Why: im2col + GEMM (conv.c) first writes the patch matrix, kh*kw times larger than the image, and a
 * GEMM library then copies it once more into its packed panels. For the Deep MNIST CNN's second layer
 * (batch 50, 5x5x32 -> 64) that is 31 MB written and read twice for 1 GFLOP, and OpenBLAS ran it at 60-90
 * GFLOP/s per core. Here each image is copied once into a zero-padded buffer that stays in cache, and the
 * register tiles of register_tiles.h sum over the window in place: forward, a rows tile of a few output
 * pixels times a few vectors of output channels; filter gradient, an outer tile of a window row's taps and
 * channels times output channels, summed over the image's pixels. That is how oneDNN's direct convolutions (TensorFlow's
 * CPU kernels) work. Measured, one core of a Xeon whose FMA loop peaks at 180 GFLOP/s, avx512 build:
 * forward ~150-185 GFLOP/s, filter gradient ~150-155 counting only the sums that reach the image (conv2,
 * batch 50: 5.4-5.5 ms; backends/c_conv_direct.py has the first timings).
 *
 * Edges need no special code: a ragged last pixel tile is moved back to end at the last pixel (it
 * recomputes a few pixels of the previous tile, with the same result), and the filter gradient's last tile
 * of a window row sums a few floats past it into workspace rows that are dropped.
 */
#include "register_tiles.h"

WF_EXPORT wf_size wf_conv2d_direct_lanes(void) { return LANES; }

/* The zero-padded image a window tap reads: every row that some output row's window reaches. */
static wf_size padded_height(const wf_conv2d_shape *s) {
    return (s->out_height - 1) * s->stride_height + (s->filter_height - 1) * s->dilation_height + 1;
}
static wf_size padded_width(const wf_conv2d_shape *s) {
    return (s->out_width - 1) * s->stride_width + (s->filter_width - 1) * s->dilation_width + 1;
}

/* The filter gradient's rows per row of window taps: one per float of a window row's span in the padded
 * image (taps and the channels between them, (kw - 1) * dilation + 1 pixels of C channels), rounded up to
 * whole tiles of filter_tile_rows. */
static wf_size window_row_span(const wf_conv2d_shape *s) {
    return ((s->filter_width - 1) * s->dilation_width + 1) * s->in_channels;
}
/* A span that fits in half a tile is summed in half tiles: conv1 (5 taps x 1 channel) would otherwise pad its
 * 5 rows to 14, and half a tile still keeps 14 accumulators in flight. conv1's filter gradient, batch 50, one
 * thread, median of 200 interleaved: 1.76 -> 1.17 ms and 1.21 -> 0.83. */
static wf_size filter_tile_rows(const wf_conv2d_shape *s) {
    wf_size rows = TILE_ROWS(tile_vecs(s->out_channels));
    return window_row_span(s) <= rows / 2 ? rows / 2 : rows;
}
WF_EXPORT wf_size wf_conv2d_direct_filter_rows(const wf_conv2d_shape *s) {
    wf_size rows = filter_tile_rows(s);
    return (window_row_span(s) + rows - 1) / rows * rows;
}

/* image [H, W, C] -> the image part of padded [PH, PW, C]; rows and columns beyond the padded size (a VALID
 * window that never reaches them) are left out. A row of pixels is one copy. */
static void pad_image(const wf_conv2d_shape *s, const float *image, float *padded) {
    wf_size pw = padded_width(s), C = s->in_channels;
    wf_size rows = WF_MIN(s->in_height, padded_height(s) - s->pad_top), cols = WF_MIN(s->in_width, pw - s->pad_left);
    for (wf_size i = 0; i < rows; ++i)
        wf_copy_f32(padded + ((s->pad_top + i) * pw + s->pad_left) * C, image + i * s->in_width * C, cols * C);
}

/* The padded image's zeros, and `slack` zeros after it: once per call (per thread), before its first
 * pad_image, since every image of a call has the same geometry and the copies never touch them. Zeroing
 * the whole buffer and copying pixel by pixel for every image cost, batch 50, one thread, median of 200
 * interleaved, ms: conv1 forward 0.587 -> 0.549, conv1 filter gradient 0.679 -> 0.639, conv2's input
 * gradient 5.51 -> 5.43. */
static void zero_padded(const wf_conv2d_shape *s, float *padded, wf_size slack) {
    wf_zero_f32(padded, padded_height(s) * padded_width(s) * s->in_channels + slack);
}

static int valid_direct_shape(const wf_conv2d_shape *s) {
    return s->batch >= 0 && s->in_height >= 1 && s->in_width >= 1 && s->in_channels >= 1 && s->filter_height >= 1 &&
           s->filter_width >= 1 && s->out_channels >= LANES && s->out_channels % LANES == 0 && s->stride_height >= 1 &&
           s->stride_width >= 1 && s->dilation_height >= 1 && s->dilation_width >= 1 && s->pad_top >= 0 &&
           s->pad_left >= 0 && s->out_height >= 1 && s->out_width >= 1;
}

/* The rows-tile walk over one padded image: the window's taps, the input channels, filter rows of K.
 * forward_columns narrows it to the tap columns a tile needs. */
static rows_walk window_walk(const wf_conv2d_shape *s) {
    rows_walk g = {s->filter_height, s->filter_width, s->dilation_height * padded_width(s) * s->in_channels,
                   s->dilation_width * s->in_channels, s->in_channels, s->out_channels, 0, NULL, 0};
    return g;
}

/* The window tap rows [*first, *stop) that reach the image (not only its zero padding) from some output
 * row in [top, bottom]. Skipping the others saves the sums over padding: for a 5x5 SAME convolution of a
 * 14 x 14 image, 6 of every 70 tap rows (forward, batch 50, one thread: 6.28 -> 5.77 ms with the claims
 * below). TensorFlow's oneDNN kernels skip padding taps too: its conv2 time is below what the full sums
 * would take at this machine's FMA peak. */
static void image_tap_rows(const wf_conv2d_shape *s, wf_size top, wf_size bottom, wf_size *first, wf_size *stop) {
    wf_size a = 0, b = s->filter_height;
    while (a < b && bottom * s->stride_height + a * s->dilation_height < s->pad_top) ++a;
    while (b > a && top * s->stride_height + (b - 1) * s->dilation_height >= s->pad_top + s->in_height) --b;
    *first = a;
    *stop = b;
}

/* The window tap columns [*first, *stop) that reach the image from output column j. */
static void image_tap_columns(const wf_conv2d_shape *s, wf_size j, wf_size *first, wf_size *stop) {
    wf_size a = 0, b = s->filter_width;
    while (a < b && j * s->stride_width + a * s->dilation_width < s->pad_left) ++a;
    while (b > a && j * s->stride_width + (b - 1) * s->dilation_width >= s->pad_left + s->in_width) --b;
    *first = a;
    *stop = b;
}

/* Returns right: output columns [left, right) all reach the image at tap columns [*first, *stop), and
 * column right (if any) at others. */
static wf_size same_tap_columns(const wf_conv2d_shape *s, wf_size left, wf_size *first, wf_size *stop) {
    wf_size right = left + 1, next_first, next_stop;
    image_tap_columns(s, left, first, stop);
    while (right < s->out_width) {
        image_tap_columns(s, right, &next_first, &next_stop);
        if (next_first != *first || next_stop != *stop) break;
        ++right;
    }
    return right;
}

/* Tiles that take only some tap columns need one loop set-up per tap row for fewer sums: with 1-channel
 * runs of 3 or 4 floats that set-up outweighs the skipped taps (conv1 forward, batch 50, one thread: 0.50
 * -> 0.55 ms), so layers with fewer input channels than this keep whole window rows. */
#define COLUMN_GROUP_MIN_CHANNELS 4

/* Whether forward_image tiles each group of same_tap_columns apart: when the layer has the channels, and
 * every group has at least a tile of pixels (a smaller group would fall back to one-pixel tiles). */
static int tiles_by_tap_columns(const wf_conv2d_shape *s, wf_size tile) {
    if (s->in_channels < COLUMN_GROUP_MIN_CHANNELS) return 0;
    wf_size first, stop;
    for (wf_size left = 0, right; left < s->out_width; left = right) {
        right = same_tap_columns(s, left, &first, &stop);
        if ((right - left) * s->out_height < tile) return 0;
    }
    return 1;
}

/* The output pixels of columns [left, right) of one padded image, for output channels [co, co + vecs *
 * LANES), summing tap columns [b0, b1) of each window row: tiles of `tile` pixels, row by row across the
 * columns. Inlined into its two callers: called, conv1's forward (14-pixel tiles, 5-float sums) lost 10%. */
ALWAYS_INLINE void forward_columns(const wf_conv2d_shape *s, const rows_walk *image_walk, const float *padded,
                                   const float *filter, float *output, wf_size co, wf_size vecs, wf_size tile,
                                   wf_size left, wf_size right, wf_size b0, wf_size b1) {
    rows_walk walk = *image_walk;
    if (walk.bias) walk.bias += co;
    wf_size C = s->in_channels, K = s->out_channels, width = right - left, pixels = s->out_height * width;
    wf_size pw = padded_width(s), tap_filter_row = s->filter_width * C * K;
    if (s->dilation_width == 1) {
        /* A window row's taps and channels are consecutive floats, in the image as in the filter, so the walk
         * takes them as one run of "channels": a 1-channel layer (conv1) then sums 5 floats per loop, not 5
         * loops of 1 (forward, batch 50, one thread: 1.13 -> 0.70 ms). */
        walk.taps_right = 1;
        walk.channels = (b1 - b0) * C;
    } else {
        walk.taps_right = b1 - b0;
    }
    walk.w_row_skip = tap_filter_row - (b1 - b0) * C * K;
    filter += b0 * C * K + co;
    const float *columns_start = padded + b0 * s->dilation_width * C;
    wf_size window_next_row = (s->stride_height * pw - width * s->stride_width) * C;
    const float *window[TILE_ACCUMULATORS];
    float *out[TILE_ACCUMULATORS];
    for (wf_size first = 0; first < pixels; first += tile) {
        wf_size start = WF_MIN(first, pixels - tile);  /* a ragged last tile moves back */
        wf_size a, stop, i = start / width, j = start % width;
        image_tap_rows(s, i, (start + tile - 1) / width, &a, &stop);
        walk.taps_down = stop - a;  /* 0 (all padding): the sum is 0, the store still runs */
        const float *window_at = columns_start + (i * s->stride_height * pw + (left + j) * s->stride_width) * C +
                                 a * walk.tap_down;
        float *out_at = output + (i * s->out_width + left + j) * K + co;
        /* stepping the pointers, not dividing per pixel: conv1 (1 channel, 25 taps) spent as long dividing as
         * summing */
        for (wf_size p = 0; p < tile; ++p, ++j) {
            if (j == width) {
                j = 0;
                window_at += window_next_row;
                out_at += (s->out_width - width) * K;
            }
            window[p] = window_at;
            out[p] = out_at;
            window_at += s->stride_width * C;
            out_at += K;
        }
        rows_tiles(&walk, window, filter + a * tap_filter_row, out, (int)tile, vecs);
    }
}

/* All output pixels of one padded image, for output channels [co, co + vecs * LANES). The output columns
 * whose windows reach the image at the same taps are tiled together, so a tile leaves out the tap columns
 * over the zero padding as image_tap_rows leaves out tap rows: for 5x5 SAME on 14 x 14, a row of 7-pixel
 * tiles sums 61 of its 70 (pixel, tap column) pairs, not 70. Conv2 at batch 50, one thread, best of 200
 * interleaved: forward 5.21-5.23 -> 5.01-5.03 ms, input gradient (14-pixel tiles) 4.98 -> 4.60-4.74. */
static void forward_image(const wf_conv2d_shape *s, const rows_walk *walk, const float *padded,
                          const float *filter, float *output, wf_size co, wf_size vecs) {
    wf_size rows = TILE_ROWS(vecs), tile = s->out_height * s->out_width >= rows ? rows : 1, b0, b1;
    if (!tiles_by_tap_columns(s, tile)) {
        forward_columns(s, walk, padded, filter, output, co, vecs, tile, 0, s->out_width, 0, s->filter_width);
        return;
    }
    for (wf_size left = 0, right; left < s->out_width; left = right) {
        right = same_tap_columns(s, left, &b0, &b1);
        forward_columns(s, walk, padded, filter, output, co, vecs, tile, left, right, b0, b1);
    }
}

WF_EXPORT wf_size wf_conv2d_direct_workspace_f32(const wf_conv2d_shape *s) {
    return padded_height(s) * padded_width(s) * s->in_channels;
}

/* One forward call, shared out over threads by wf_run_parallel: thread t pads its images in workspace t. */
typedef struct {
    const wf_conv2d_shape *s, *pool;  /* pool: NULL, or a MaxPool of each output image into `pooled` */
    const float *input, *filter, *bias;
    int relu;
    float *output, *pooled, *work;
    wf_size work_len, next_image;
} forward_job;

int wf_max_pool_f32(const wf_conv2d_shape *s, const float *input, float *output); /* pool.c */

static void forward_thread(void *context, wf_size thread) {
    forward_job *job = context;
    const wf_conv2d_shape *s = job->s;
    float *work = job->work + thread * job->work_len;
    rows_walk g = window_walk(s);
    g.bias = job->bias;
    g.relu = job->relu;
    wf_size vecs = tile_vecs(s->out_channels);
    wf_size image = s->in_height * s->in_width * s->in_channels, out_image = s->out_height * s->out_width * s->out_channels;
    zero_padded(s, work, 0);
    for (wf_size n = wf_next_unit(&job->next_image); n < s->batch; n = wf_next_unit(&job->next_image)) {
        pad_image(s, job->input + n * image, work);
        for (wf_size co = 0; co < s->out_channels; co += vecs * LANES)
            forward_image(s, &g, work, job->filter, job->output + n * out_image, co, vecs);
        if (job->pool) {
            wf_conv2d_shape one = *job->pool;
            one.batch = 1;
            wf_max_pool_f32(&one, job->output + n * out_image,
                            job->pooled + n * one.out_height * one.out_width * one.in_channels);
        }
    }
}

/* The pooling reads the convolution's output images: their size and channels, windows of at least a pixel. */
static int pool_fits(const wf_conv2d_shape *s, const wf_conv2d_shape *pool) {
    return pool->batch == s->batch && pool->in_height == s->out_height && pool->in_width == s->out_width &&
           pool->in_channels == s->out_channels && pool->filter_height >= 1 && pool->filter_width >= 1 &&
           pool->stride_height >= 1 && pool->stride_width >= 1 && pool->pad_top >= 0 && pool->pad_left >= 0 &&
           pool->out_height >= 1 && pool->out_width >= 1;
}

static int direct_forward(forward_job *job, wf_size threads) {
    const wf_conv2d_shape *s = job->s;
    if (!valid_direct_shape(s) || threads < 1 || (job->pool && !pool_fits(s, job->pool))) return WF_BAD_ARGUMENT;
    if (job->work_len < wf_conv2d_direct_workspace_f32(s)) return WF_WORKSPACE_TOO_SMALL;
    wf_run_parallel(forward_thread, job, threads);
    return WF_OK;
}

WF_EXPORT int wf_conv2d_direct_f32(const wf_conv2d_shape *s, const float *input, const float *filter, float *output,
                                   float *work, wf_size work_len, wf_size threads) {
    forward_job job = {s, NULL, input, filter, NULL, 0, output, NULL, work, work_len, 0};
    return direct_forward(&job, threads);
}

WF_EXPORT int wf_conv2d_direct_bias_relu_f32(const wf_conv2d_shape *s, const float *input, const float *filter,
                                             const float *bias, int relu, float *output, float *work,
                                             wf_size work_len, wf_size threads) {
    forward_job job = {s, NULL, input, filter, bias, relu, output, NULL, work, work_len, 0};
    return direct_forward(&job, threads);
}

WF_EXPORT int wf_conv2d_direct_bias_relu_pool_f32(const wf_conv2d_shape *s, const float *input, const float *filter,
                                                  const float *bias, int relu, const wf_conv2d_shape *pool,
                                                  float *output, float *pooled, float *work, wf_size work_len,
                                                  wf_size threads) {
    forward_job job = {s, pool, input, filter, bias, relu, output, pooled, work, work_len, 0};
    return direct_forward(&job, threads);
}

/* --- filter gradient: grad[a, b, c][co] += sum_pixels window_pixel[a, b, c] * output_grad[pixel, co] -------
 * For one row a of window taps, the taps b and their channels c lie side by side in the padded image: for
 * output pixel (i, j) they are the window_row_span(s) floats starting at its window's row a. So an outer
 * tile takes TILE_ROWS consecutive floats of that span (rows) by vectors of output channels, summed over
 * the image's output pixels (rows of the walk over output rows, columns along each row). A 1-channel 5x5
 * layer then tiles 5 floats per tap row instead of padding its 1 channel to a whole tile per tap (14 x the
 * work at 14 rows a tile). A tile's last rows may run past the span (into the next pixels, or `slack` zeros
 * after the image): those sums land in rows of the workspace that are never copied out, as do the
 * channels between dilated taps. */
static outer_walk pixel_walk(const wf_conv2d_shape *s) {
    wf_size pw = padded_width(s), C = s->in_channels, K = s->out_channels;
    outer_walk walk = {s->out_height, s->out_width, s->stride_height * pw * C, s->stride_width * C,
                       s->out_width * K, K, K};
    return walk;
}

/* The output rows [*top, *bottom) whose window tap row a reaches the image, not only its zero padding: the
 * other rows would add only zeros to the filter gradient. */
static void image_output_rows(const wf_conv2d_shape *s, wf_size a, wf_size *top, wf_size *bottom) {
    wf_size i = 0, j = s->out_height;
    while (i < j && i * s->stride_height + a * s->dilation_height < s->pad_top) ++i;
    while (j > i && (j - 1) * s->stride_height + a * s->dilation_height >= s->pad_top + s->in_height) --j;
    *top = i;
    *bottom = j;
}

/* The output columns [*left, *right) whose window reaches the image at one of the padded-image columns that
 * the tile rows [r, r + rows) of a window row's span read: the skip of image_output_rows along a row. A tile
 * lies in one or two taps of the span, so for 5x5 SAME on 14 x 14 it skips 6 of every 70 (tap, column)
 * pairs; conv2's filter gradient, batch 50, one thread, median of 200 interleaved: 6.58 -> 6.05 ms and
 * 6.12 -> 5.76. (The forward was tried with tiles summed in parts at the edges: 0-3% faster, not kept.) */
static void image_output_columns(const wf_conv2d_shape *s, wf_size r, wf_size rows, wf_size *left, wf_size *right) {
    wf_size span_pixels = (s->filter_width - 1) * s->dilation_width + 1;
    wf_size first = r / s->in_channels, last = WF_MIN((r + rows - 1) / s->in_channels, span_pixels - 1);
    wf_size i = 0, j = s->out_width;
    while (i < j && i * s->stride_width + last < s->pad_left) ++i;
    while (j > i && (j - 1) * s->stride_width + first >= s->pad_left + s->in_width) --j;
    *left = i;
    *right = j;
}

/* Output rows per block of the filter gradient's walk: every tile of every tap row sums one block of output
 * rows before the next, so that block's output gradient (at most DY_BLOCK_FLOATS) is read from cache, not
 * streamed again per tile. Blocks of equal size. Filter gradient, batch 50, one thread, best of 200
 * interleaved: conv2 (14 rows of 14 x 64, blocks of 7) 5.85-5.99 -> 5.48-5.55 ms; conv1 (28 rows of 28 x 32,
 * blocks of 7) 0.68-0.69 -> 0.64-0.65. */
#define DY_BLOCK_FLOATS 8192
static wf_size output_row_block(const wf_conv2d_shape *s) {
    wf_size most = WF_MAX(1, DY_BLOCK_FLOATS / (s->out_width * s->out_channels));
    wf_size blocks = (s->out_height + most - 1) / most;
    return (s->out_height + blocks - 1) / blocks;
}

WF_EXPORT wf_size wf_conv2d_direct_filter_workspace_f32(const wf_conv2d_shape *s) {
    wf_size slack = TILE_ROWS(tile_vecs(s->out_channels));
    return padded_height(s) * padded_width(s) * s->in_channels + slack +
           s->filter_height * wf_conv2d_direct_filter_rows(s) * s->out_channels;
}

/* row_grad (whole tiles of rows) += the sums of one tap row over output rows [top, bottom) of one image:
 * x is the padded image from that tap row, dy the image's output gradient. */
static void filter_grad_rows(const wf_conv2d_shape *s, const outer_walk *walk, const float *x, const float *dy,
                             wf_size top, wf_size bottom, float *row_grad) {
    wf_size K = s->out_channels, vecs = tile_vecs(K), rows = filter_tile_rows(s);
    outer_walk tile_walk = *walk;
    tile_walk.outer = bottom - top;
    x += top * walk->x_outer;
    dy += top * walk->dy_outer;
    for (wf_size r = 0; r < wf_conv2d_direct_filter_rows(s); r += rows) {
        wf_size left, right;
        image_output_columns(s, r, rows, &left, &right);
        tile_walk.inner = right - left;
        for (wf_size co = 0; co < K; co += vecs * LANES)
            outer_tiles(&tile_walk, x + r + left * walk->x_inner, dy + co + left * walk->dy_inner,
                        row_grad + r * K + co, vecs, rows < TILE_ROWS(vecs));
    }
}

/* Where the filter gradient's output gradient comes from when a pooling's gradient makes it per image. */
typedef struct {
    const wf_conv2d_shape *pool;
    const float *pool_input, *pooled_grad;
    float *partials;
} pooled_gradient;

int wf_max_pool_grad_relu_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                              float *input_grad); /* pool.c */

/* Image n's output gradient: output_grad's, or (pool) made into `made` from the pooling's gradient. */
static const float *image_output_grad(const wf_conv2d_shape *s, const float *output_grad, const pooled_gradient *pool,
                                      float *made, wf_size n) {
    wf_size pixels = s->out_height * s->out_width, K = s->out_channels;
    if (!pool) return output_grad + n * pixels * K;
    wf_conv2d_shape one = *pool->pool;
    one.batch = 1;
    wf_max_pool_grad_relu_f32(&one, pool->pool_input + n * pixels * K,
                              pool->pooled_grad + n * one.out_height * one.out_width * K, made);
    wf_column_sums_f32(made, pixels, K, pool->partials + n * K);
    return made;
}

/* grad (whole tiles of rows, in the work) = the sum over images [first, stop); then copied to filter_grad. */
static void filter_grad_images(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                               const pooled_gradient *pool, float *filter_grad, float *work, wf_size first,
                               wf_size stop) {
    wf_size C = s->in_channels, K = s->out_channels, rows = filter_tile_rows(s);
    wf_size span_rows = wf_conv2d_direct_filter_rows(s), tap_row = s->dilation_height * padded_width(s) * C;
    wf_size image = s->in_height * s->in_width * C;
    float *padded = work, *grad = work + padded_height(s) * padded_width(s) * C + rows;
    float *made = work + wf_conv2d_direct_filter_workspace_f32(s);
    outer_walk walk = pixel_walk(s);
    wf_size block_rows = output_row_block(s);
    wf_zero_f32(grad, s->filter_height * span_rows * K);
    zero_padded(s, padded, rows);
    for (wf_size n = first; n < stop; ++n) {
        const float *dy = image_output_grad(s, output_grad, pool, made, n);
        pad_image(s, input + n * image, padded);
        for (wf_size block = 0; block < s->out_height; block += block_rows) {
            for (wf_size a = 0; a < s->filter_height; ++a) {
                wf_size top, bottom;
                image_output_rows(s, a, &top, &bottom);
                top = WF_MAX(top, block);
                bottom = WF_MIN(bottom, block + block_rows);
                if (top < bottom)
                    filter_grad_rows(s, &walk, padded + a * tap_row, dy, top, bottom, grad + a * span_rows * K);
            }
        }
    }
    for (wf_size a = 0; a < s->filter_height; ++a) {  /* tap b's channels start b * dilation pixels along */
        for (wf_size b = 0; b < s->filter_width; ++b) {
            wf_copy_f32(filter_grad + (a * s->filter_width + b) * C * K,
                        grad + (a * span_rows + b * s->dilation_width * C) * K, C * K);
        }
    }
}

/* The first image of slice i when `images` are cut into `slices` whose sizes differ by at most one, the
 * longer ones first. Threads claim slices in order, so the last claimed are the short ones and the threads
 * finish together. (Longer ones last, as batch * i / slices cuts 50 into 12, 13, 12, 13: two threads that
 * alternate claims sum 24 and 26 images, and one waited ~0.25 ms of a 3 ms conv2 filter gradient.) */
static wf_size slice_start(wf_size images, wf_size slices, wf_size i) {
    wf_size size = images / slices, longer = images % slices;
    return i * size + WF_MIN(i, longer);
}

/* One filter-gradient call, shared out over threads by wf_run_parallel: thread t sums in workspace t. */
typedef struct {
    const wf_conv2d_shape *s;
    const float *input, *output_grad;
    const pooled_gradient *pool;
    float *filter_grads, *work;
    wf_size slices, work_len, next_slice;
} filter_grad_job;

static void filter_grad_thread(void *context, wf_size thread) {
    filter_grad_job *job = context;
    const wf_conv2d_shape *s = job->s;
    wf_size filter_size = s->filter_height * s->filter_width * s->in_channels * s->out_channels;
    for (wf_size i = wf_next_unit(&job->next_slice); i < job->slices; i = wf_next_unit(&job->next_slice)) {
        filter_grad_images(s, job->input, job->output_grad, job->pool, job->filter_grads + i * filter_size,
                           job->work + thread * job->work_len, slice_start(s->batch, job->slices, i),
                           slice_start(s->batch, job->slices, i + 1));
    }
}

WF_EXPORT int wf_conv2d_direct_filter_grad_f32(const wf_conv2d_shape *s, const float *input, const float *output_grad,
                                               float *filter_grads, wf_size slices, float *work, wf_size work_len,
                                               wf_size threads) {
    if (!valid_direct_shape(s) || slices < 1 || threads < 1) return WF_BAD_ARGUMENT;
    if (work_len < wf_conv2d_direct_filter_workspace_f32(s)) return WF_WORKSPACE_TOO_SMALL;
    filter_grad_job job = {s, input, output_grad, NULL, filter_grads, work, slices, work_len, 0};
    wf_run_parallel(filter_grad_thread, &job, threads);
    return WF_OK;
}

WF_EXPORT wf_size wf_conv2d_direct_filter_pool_workspace_f32(const wf_conv2d_shape *s) {
    return wf_conv2d_direct_filter_workspace_f32(s) + s->out_height * s->out_width * s->out_channels;
}

WF_EXPORT int wf_conv2d_direct_filter_grad_pool_f32(const wf_conv2d_shape *s, const float *input,
                                                    const wf_conv2d_shape *pool, const float *pool_input,
                                                    const float *pooled_grad, float *sums, float *partials,
                                                    float *filter_grads, wf_size slices, float *work, wf_size work_len,
                                                    wf_size threads) {
    if (!valid_direct_shape(s) || slices < 1 || threads < 1 || !pool_fits(s, pool)) return WF_BAD_ARGUMENT;
    if (work_len < wf_conv2d_direct_filter_pool_workspace_f32(s)) return WF_WORKSPACE_TOO_SMALL;
    pooled_gradient made = {pool, pool_input, pooled_grad, partials};
    filter_grad_job job = {s, input, NULL, &made, filter_grads, work, slices, work_len, 0};
    wf_run_parallel(filter_grad_thread, &job, threads);
    wf_column_sums_f32(partials, s->batch, s->out_channels, sums);
    return WF_OK;
}
