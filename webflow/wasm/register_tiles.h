/* register_tiles.h: the register tiles of the direct convolution (conv_direct.c); gemm_thin.c shares the vector
 * type. A tile keeps a block of outputs in vector registers while a sum runs over memory:
 *   rows tile    out[p][v]   = sum over taps t and channels c of x_p[t + c] * w[t, c][v]    (forward)
 *   outer tile   grad[r][v] += sum over a 2-D walk of x[r] * dy[v]                         (filter gradient)
 * Tile rows (p: pixels, r: channels) are one broadcast input value each; the columns (v) are vectors of
 * output channels, loaded once per step and used by every row. Per step a tile of R rows and V vectors
 * does R*V multiply-adds for V vector loads and R broadcasts: with 28 accumulators (7 x 4 on AVX-512)
 * that keeps both FMA units busy from L1/L2. Each tile shape is its own function (R and V constants),
 * so the compiler keeps the accumulators in registers (GCC 12: 27 of 28 in zmm registers, one spilled).
 */
#ifndef WEBFLOW_REGISTER_TILES_H
#define WEBFLOW_REGISTER_TILES_H

#include "webflow_kernels.h"

/* Registers: AVX-512 has 32 of 64 bytes, AVX2 and wasm simd128 (as V8 maps it) 16. The accumulators take
 * most of them; the rest hold one step's column vectors and the broadcast value. Only these tiles (and
 * gemm_thin.c's) use 64-byte vectors in the avx512 build (build.py): the other kernels keep WF_VECTOR_BYTES. */
#if defined(__AVX512F__)
#define TILE_BYTES 64
#define TILE_ACCUMULATORS 28
#elif WF_VECTOR_BYTES == 32
#define TILE_BYTES 32
#define TILE_ACCUMULATORS 12
#else
#define TILE_BYTES 16
#define TILE_ACCUMULATORS 8
#endif
#define LANES (TILE_BYTES / 4)
#define MAX_VECS 4                                   /* tile columns, in vectors */
#define TILE_ROWS(vecs) (TILE_ACCUMULATORS / (vecs))

typedef float vec __attribute__((vector_size(TILE_BYTES)));
typedef int ivec __attribute__((vector_size(TILE_BYTES)));
typedef float vec_unaligned __attribute__((vector_size(TILE_BYTES), aligned(4), may_alias));
#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE vec load(const float *p) { return *(const vec_unaligned *)p; }
ALWAYS_INLINE void store(float *p, vec v) { *(vec_unaligned *)p = v; }

/* Tile columns for `columns` output columns (a multiple of LANES): the most vectors (<= MAX_VECS) that
 * divide them evenly, so every tile of a call has the same shape. */
static inline wf_size tile_vecs(wf_size columns) {
    wf_size vectors = columns / LANES, vecs = MAX_VECS;
    while (vectors % vecs) --vecs;
    return vecs;
}

/* --- rows tile ----------------------------------------------------------------------------------------
 * out[p][v] = sum over taps (a, b) and channels c of row[p][a * tap_down + b * tap_right + c] * w[(a, b, c)][v],
 * where w advances `w_stride` floats per (tap, channel), and `w_row_skip` more after each row of taps (the
 * filter's taps a tile leaves out, conv_direct.c): row[p] is pixel p's window in the padded image. */
typedef struct {
    wf_size taps_down, taps_right;  /* window size */
    wf_size tap_down, tap_right;    /* floats between vertically / horizontally neighbouring taps */
    wf_size channels, w_stride, w_row_skip;
    const float *bias;              /* NULL, or added to out[p] (bias[v * LANES ...]) before the store */
    int relu;                       /* then max(out, 0) (NaN stays NaN, as wf_relu_f32) */
} rows_walk;

/* The epilogue TensorFlow's _FusedConv2D applies while the sums are still in registers: the same float
 * operations as the separate BiasAdd and Relu ops, so the same bits, without two more passes over memory. */
ALWAYS_INLINE vec bias_relu(const rows_walk *g, vec sum, int v) {
    if (g->bias) sum += load(g->bias + v * LANES);
    if (g->relu) sum = (vec)(~(sum <= 0) & (ivec)sum);   /* NaN <= 0 is false: NaN stays */
    return sum;
}

ALWAYS_INLINE void rows_tile(const rows_walk *g, const float *const *row, const float *w, float *const *out,
                             const int rows, const int vecs) {
    vec acc[TILE_ACCUMULATORS][MAX_VECS];
    for (int p = 0; p < rows; ++p)
        for (int v = 0; v < vecs; ++v) acc[p][v] = (vec){0};
    for (wf_size a = 0; a < g->taps_down; ++a) {
        for (wf_size b = 0; b < g->taps_right; ++b) {
            wf_size tap = a * g->tap_down + b * g->tap_right;
            for (wf_size c = 0; c < g->channels; ++c, w += g->w_stride) {
                vec columns[MAX_VECS];
                for (int v = 0; v < vecs; ++v) columns[v] = load(w + v * LANES);
                for (int p = 0; p < rows; ++p) {
                    float x = row[p][tap + c];
                    for (int v = 0; v < vecs; ++v) acc[p][v] += columns[v] * x;
                }
            }
        }
        w += g->w_row_skip;
    }
    for (int p = 0; p < rows; ++p)
        for (int v = 0; v < vecs; ++v) store(out[p] + v * LANES, bias_relu(g, acc[p][v], v));
}

/* One function per tile shape: TILE_ROWS(vecs) rows, or a single row (fewer rows than a tile). */
#define ROWS_INSTANCE(vecs)                                                                                   \
    static void rows_tile_##vecs(const rows_walk *g, const float *const *row, const float *w, float *const *out, \
                                 int rows) {                                                                  \
        if (rows == 1) rows_tile(g, row, w, out, 1, vecs);                                                    \
        else rows_tile(g, row, w, out, TILE_ROWS(vecs), vecs);                                                \
    }
ROWS_INSTANCE(1)
ROWS_INSTANCE(2)
ROWS_INSTANCE(3)
ROWS_INSTANCE(4)

static void rows_tiles(const rows_walk *g, const float *const *row, const float *w, float *const *out, int rows,
                       wf_size vecs) {
    switch (vecs) {
    case 1: rows_tile_1(g, row, w, out, rows); break;
    case 2: rows_tile_2(g, row, w, out, rows); break;
    case 3: rows_tile_3(g, row, w, out, rows); break;
    default: rows_tile_4(g, row, w, out, rows); break;
    }
}

/* --- outer tile ---------------------------------------------------------------------------------------
 * grad[r][v] (+)= sum over i < outer, j < inner of x[i * x_outer + j * x_inner + r] * dy[i * dy_outer +
 * j * dy_inner + v * LANES]: TILE_ROWS(vecs) consecutive x values times vecs vectors of dy per step, summed
 * over the walk and added to grad, whose rows are grad_row floats apart. */
typedef struct {
    wf_size outer, inner;
    wf_size x_outer, x_inner, dy_outer, dy_inner, grad_row;
} outer_walk;

ALWAYS_INLINE void outer_tile(const outer_walk *walk, const float *x, const float *dy, float *grad, const int rows,
                              const int vecs) {
    vec acc[TILE_ACCUMULATORS][MAX_VECS];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecs; ++v) acc[r][v] = load(grad + r * walk->grad_row + v * LANES);
    for (wf_size i = 0; i < walk->outer; ++i) {
        const float *xs = x + i * walk->x_outer, *dys = dy + i * walk->dy_outer;
        for (wf_size j = 0; j < walk->inner; ++j, xs += walk->x_inner, dys += walk->dy_inner) {
            vec columns[MAX_VECS];
            for (int v = 0; v < vecs; ++v) columns[v] = load(dys + v * LANES);
            for (int r = 0; r < rows; ++r)
                for (int v = 0; v < vecs; ++v) acc[r][v] += columns[v] * xs[r];
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecs; ++v) store(grad + r * walk->grad_row + v * LANES, acc[r][v]);
}

/* One function per tile shape: TILE_ROWS(vecs) rows, or half as many (half: a short span, conv_direct.c). */
#define OUTER_INSTANCE(vecs)                                                                                  \
    static void outer_tile_##vecs(const outer_walk *walk, const float *x, const float *dy, float *grad, int half) { \
        if (half) outer_tile(walk, x, dy, grad, TILE_ROWS(vecs) / 2, vecs);                                   \
        else outer_tile(walk, x, dy, grad, TILE_ROWS(vecs), vecs);                                            \
    }
OUTER_INSTANCE(1)
OUTER_INSTANCE(2)
OUTER_INSTANCE(3)
OUTER_INSTANCE(4)

/* TILE_ROWS(vecs) (or half as many) rows (x values) by vecs vectors: the caller pads the rows to whole tiles. */
static void outer_tiles(const outer_walk *walk, const float *x, const float *dy, float *grad, wf_size vecs, int half) {
    switch (vecs) {
    case 1: outer_tile_1(walk, x, dy, grad, half); break;
    case 2: outer_tile_2(walk, x, dy, grad, half); break;
    case 3: outer_tile_3(walk, x, dy, grad, half); break;
    default: outer_tile_4(walk, x, dy, grad, half); break;
    }
}

#endif /* WEBFLOW_REGISTER_TILES_H */
