/* gemm_strips.c: float32 C = op(A) op(B) of any shape and transposes, B walked in strips, A read in place.
 *
 * Exports (row-major; each call runs on `threads` threads, wf_run_parallel in parallel.c):
 *   wf_size wf_gemm_strips_lanes(void)              floats per vector of this build (16 in the avx512 build)
 *   wf_size wf_gemm_strips_workspace(m)             floats of scratch per thread
 *   void wf_gemm_strips_f32(m, n, k, a, lda, transpose_a, b, ldb, transpose_b, bias, c, work, threads)
 *       C[m,n] = op(A)[m,k] op(B)[k,n] (+ bias[n] if bias is not NULL); op(X) = X^T when transpose_x;
 *       C contiguous (ldc = n); work holds `threads` workspaces
 *   wf_size wf_gemm_strips_panels_size(m, k)        floats of `panels` below
 *   void wf_gemm_strips_panels_f32(same arguments, then panels, then threads)
 *       the same product, bit for bit; a transposed A is copied into `panels` as the strips first need it, one
 *       contiguous panel per tile of rows and k-block (block_panels below); panels NULL: A read in place
 *
 * Why: gemm_thin.c's products need n to be a multiple of 64 and one short side; the LSTM language model's
 * ([20, 400] x [400, 800] per cell step) and its softmax layer's ([400, 200] x [200, 10000] and both gradients)
 * have neither, and went to OpenBLAS, whose kernels here are AVX2 ones (it takes the AVX-512 EPYC for a Haswell):
 * ~120 GFLOP/s on one core, where these 64-byte register tiles reach ~200 (benchmarks/FIGURES.md, "Word LM").
 * How: op(B) is walked in strips of STRIP_COLUMNS columns and blocks of K_BLOCK rows; for a few rows of op(A) a
 * block of a full strip of an untransposed B is read in place, other blocks are copied into the thread's
 * workspace (transposed when B is, in registers LANES x LANES at a time, and the last strip padded with zeros),
 * then register tiles of up to STRIP_ROWS rows of op(A) (broadcasts, read in place) times 2 vectors sum over it,
 * adding to C from the second block on; a last strip at most one vector wide takes one-vector tiles. The last
 * strip's columns beyond n are summed into the workspace and copied out. Each C element is one thread's sum over
 * k in order: the result does not depend on the threads.
 * A bias is added to each finished sum as it is stored (TensorFlow's _FusedMatMul): the same float add as a
 * separate BiasAdd, without another pass over C (the word LM's [400, 10000] logits: 16 MB).
 */
#include "register_tiles.h"

#define STRIP_VECS 2
#define STRIP_ROWS TILE_ROWS(STRIP_VECS)
#define STRIP_COLUMNS (STRIP_VECS * LANES)
/* Rows of op(B) per block. Each block ends with every tile storing its sums to C and the next one loading them
 * again (rows of C n floats apart: a page apart from n = 1024), so fewer, longer blocks pay: 1024 rows (a strip of
 * 128 KB on AVX-512, read from L2) beat 256 (32 KB, in L1) from 512^2 up, and blocks small enough to keep
 * A's block in L2 lost (benchmarks/FIGURES.md, "GEMM strips: the k-block"). The sums do not depend on it: each C
 * element is summed over k in order, its partial sum stored and reloaded exactly. STRIPS_K_BLOCK: for measuring. */
#ifndef STRIPS_K_BLOCK
#define STRIPS_K_BLOCK 1024
#endif
#define K_BLOCK STRIPS_K_BLOCK
#define IN_PLACE_TILES 4 /* up to this many tiles of rows read B's strips in place (strips_thread) */
#define PANEL_STRIDE ((STRIP_ROWS + LANES - 1) / LANES * LANES) /* floats per step of a packed A^T's panel */

WF_EXPORT wf_size wf_gemm_strips_lanes(void) { return LANES; }
WF_EXPORT wf_size wf_gemm_strips_workspace(wf_size m) { return (K_BLOCK + m) * STRIP_COLUMNS; }

/* c[r][v] (+)= sum over steps i of op(A)[r][i] * strip[i][v] for v < vecs * LANES; op(A)[r][i] = a[r * lda + i],
 * or a[i * lda + r] when transposed (a constant, so each instance addresses A its own way). A strip of `vecs`
 * vectors (STRIP_VECS for full strips, 1 for a last strip at most LANES wide) has rows strip_stride floats apart. */
ALWAYS_INLINE void strip_tile(const float *a, wf_size lda, const int transposed, const float *strip,
                              wf_size strip_stride, float *c, wf_size ldc, wf_size steps, int first,
                              const float *bias, const int rows, const int vecs) {
    vec acc[STRIP_ROWS][STRIP_VECS];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecs; ++v) acc[r][v] = first ? (vec){0} : load(c + r * ldc + v * LANES);
    for (wf_size i = 0; i < steps; ++i, strip += strip_stride) {
        vec columns[STRIP_VECS];
        for (int v = 0; v < vecs; ++v) columns[v] = load(strip + v * LANES);
        const float *x = transposed ? a + i * lda : a + i;
        for (int r = 0; r < rows; ++r) {
            float value = transposed ? x[r] : x[r * lda];
            for (int v = 0; v < vecs; ++v) acc[r][v] += columns[v] * value;
        }
    }
    if (bias)  /* the last block of k: the sums are final */
        for (int r = 0; r < rows; ++r)
            for (int v = 0; v < vecs; ++v) acc[r][v] += load(bias + v * LANES);
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < vecs; ++v) store(c + r * ldc + v * LANES, acc[r][v]);
}

/* One function per tile height, A layout and strip width (the accumulators stay in registers only with constant
 * bounds). A narrow strip (one vector) takes tiles of up to NARROW_ROWS rows. */
#define NARROW_ROWS (STRIP_ROWS < 14 ? STRIP_ROWS : 14)
#define TILE_CASE(R)                                                                                  \
    case R:                                                                                           \
        if (transposed) strip_tile(a, lda, 1, strip, strip_stride, c, ldc, steps, first, bias, R, STRIP_VECS); \
        else strip_tile(a, lda, 0, strip, strip_stride, c, ldc, steps, first, bias, R, STRIP_VECS);     \
        break;
#define NARROW_CASE(R)                                                                                \
    case R:                                                                                           \
        if (transposed) strip_tile(a, lda, 1, strip, strip_stride, c, ldc, steps, first, bias, R, 1);   \
        else strip_tile(a, lda, 0, strip, strip_stride, c, ldc, steps, first, bias, R, 1);              \
        break;
static void strip_tiles(const float *a, wf_size lda, int transposed, const float *strip, wf_size strip_stride,
                        float *c, wf_size ldc, wf_size steps, int first, const float *bias, wf_size rows) {
    switch (rows) {
    TILE_CASE(1) TILE_CASE(2) TILE_CASE(3) TILE_CASE(4)
#if STRIP_ROWS >= 6
    TILE_CASE(5) TILE_CASE(6)
#endif
#if STRIP_ROWS >= 14
    TILE_CASE(7) TILE_CASE(8) TILE_CASE(9) TILE_CASE(10) TILE_CASE(11) TILE_CASE(12) TILE_CASE(13) TILE_CASE(14)
#endif
    }
}
static void narrow_tiles(const float *a, wf_size lda, int transposed, const float *strip, wf_size strip_stride,
                         float *c, wf_size ldc, wf_size steps, int first, const float *bias, wf_size rows) {
    switch (rows) {
    NARROW_CASE(1) NARROW_CASE(2) NARROW_CASE(3) NARROW_CASE(4)
#if NARROW_ROWS >= 6
    NARROW_CASE(5) NARROW_CASE(6)
#endif
#if NARROW_ROWS >= 14
    NARROW_CASE(7) NARROW_CASE(8) NARROW_CASE(9) NARROW_CASE(10) NARROW_CASE(11) NARROW_CASE(12) NARROW_CASE(13)
    NARROW_CASE(14)
#endif
    }
}

typedef struct {
    wf_size m, n, k, lda, ldb, strips_per_unit;
    int transpose_a, transpose_b;
    const float *a, *b, *bias;
    float *c, *work;
    float *panels; /* NULL, or A^T's panels (pack_block): the tiles read them instead of A once packed */
    int *ready;    /* per k-block: PANELS_EMPTY, PANELS_PACKING or PANELS_READY */
    wf_size next;
} strips_job;

#if defined(__GNUC__) && !defined(__clang__)
#define VECTOR_TRANSPOSE 1 /* GCC's __builtin_shuffle takes a mask vector; clang (the wasm build) copies by scalars */
/* x[i][l] becomes x[l][i]: in each stage (d = LANES / 2 ... 1) rows i and i + d swap their off-diagonal halves of
 * d lanes; after the last stage every LANES x LANES element has moved across the diagonal. */
ALWAYS_INLINE void transpose_block(vec x[LANES]) {
    for (int d = LANES / 2; d >= 1; d /= 2) {
        ivec low, high;  /* lanes of (x[i], x[i + d]): LANES + l picks lane l of x[i + d] */
        for (int l = 0; l < LANES; ++l) {
            low[l] = (l & d) ? LANES + l - d : l;
            high[l] = (l & d) ? LANES + l : l + d;
        }
        for (int i = 0; i < LANES; ++i)
            if (!(i & d)) {
                vec a = x[i], b = x[i + d];
                x[i] = __builtin_shuffle(a, b, low);
                x[i + d] = __builtin_shuffle(a, b, high);
            }
    }
}
#else
#define VECTOR_TRANSPOSE 0
#endif

/* strip[i][v] = op(B)[k0 + i][column + v] for i < steps, v < width; zeros for width <= v < stride (the strip's
 * row: STRIP_COLUMNS floats, or LANES for a narrow last strip). */
static void copy_strip(const strips_job *job, wf_size k0, wf_size steps, wf_size column, wf_size width,
                       float *strip, wf_size stride) {
    const float *b = job->b;
    if (job->transpose_b) {  /* op(B)[i][j] = b[j * ldb + i]: each column of the strip is a row of b */
        wf_size i0 = 0;
#if VECTOR_TRANSPOSE
        /* Blocks of LANES x LANES, transposed in registers: the scalar copy below writes one float per 64-byte
         * line of the strip, and cost the word LM's softmax input gradient 1.1 of its 9 ms. */
        if (width == stride)
            for (; i0 + LANES <= steps; i0 += LANES)
                for (wf_size v0 = 0; v0 < width; v0 += LANES) {
                    vec x[LANES];
                    for (int v = 0; v < LANES; ++v) x[v] = load(b + (column + v0 + v) * job->ldb + k0 + i0);
                    transpose_block(x);
                    for (int i = 0; i < LANES; ++i) store(strip + (i0 + i) * stride + v0, x[i]);
                }
#endif
        for (wf_size v = 0; v < width; ++v) {
            const float *row = b + (column + v) * job->ldb + k0;
            for (wf_size i = i0; i < steps; ++i) strip[i * stride + v] = row[i];
        }
    } else if (width == STRIP_COLUMNS) {
        for (wf_size i = 0; i < steps; ++i)
            for (int v = 0; v < STRIP_VECS; ++v)
                store(strip + i * STRIP_COLUMNS + v * LANES, load(b + (k0 + i) * job->ldb + column + v * LANES));
        return;
    } else {
        for (wf_size i = 0; i < steps; ++i)
            for (wf_size v = 0; v < width; ++v) strip[i * stride + v] = b[(k0 + i) * job->ldb + column + v];
    }
    for (wf_size i = 0; i < steps; ++i)
        for (wf_size v = width; v < stride; ++v) strip[i * stride + v] = 0;
}

/* Tile `t` of `tiles` over `total` rows, as even as can be: rows [first, first + count). */
static inline wf_size tile_start(wf_size total, wf_size tiles, wf_size t) { return total * t / tiles; }

/* A transposed A read in place costs each step of a tile one row of A: at m = 1024 rows 4 KB apart, so a tile's
 * 1024 steps fall in a few sets of each cache and on 1024 pages, and every strip reads them again. Packed, a tile's
 * panel is one stream of PANEL_STRIDE floats per step: panels[(tiles * k0 + t * steps + i) * PANEL_STRIDE + r] =
 * A^T[k0 + i][row + r] for tile t = [row, row + rows) and the k-block [k0, k0 + steps), what strip_tile reads for
 * a transposed A with lda = PANEL_STRIDE (floats past `rows` are never read). The first thread to reach a k-block
 * packs its panels (claiming it with a compare-and-swap); another reaching it meanwhile reads A in place until they
 * are ready: the same floats in the same order, so the same bits, and no thread ever waits for another. */
enum { PANELS_EMPTY, PANELS_PACKING, PANELS_READY };

static inline wf_size k_blocks(wf_size k) { return (k + K_BLOCK - 1) / K_BLOCK; }

WF_EXPORT wf_size wf_gemm_strips_panels_size(wf_size m, wf_size k) {
    /* the panels, then one int per k-block (its state), counted in floats */
    return (m + STRIP_ROWS - 1) / STRIP_ROWS * PANEL_STRIDE * k + k_blocks(k);
}

/* The k-block's panels, PANEL_ROWS rows of A^T at a time, tile by tile: each group of rows is read from the caches
 * (8 lines a set fit the L1) while every tile takes its PANEL_ROWS vectors, written one after the other. */
#define PANEL_ROWS 8
static void pack_block(const strips_job *job, wf_size k0, wf_size steps, wf_size tiles, float *panels) {
    wf_size m = job->m;
    for (wf_size i0 = 0; i0 < steps; i0 += PANEL_ROWS) {
        wf_size i1 = WF_MIN(steps, i0 + PANEL_ROWS);
        for (wf_size t = 0; t < tiles; ++t) {
            wf_size row = tile_start(m, tiles, t), rows = tile_start(m, tiles, t + 1) - row;
            float *panel = panels + (t * steps + i0) * PANEL_STRIDE;
            const float *source = job->a + (k0 + i0) * job->lda + row;
            for (wf_size i = i0; i < i1; ++i, panel += PANEL_STRIDE, source += job->lda) {
                if (row + PANEL_STRIDE <= m) {  /* whole vectors, the floats past `rows` too (still A's row) */
                    for (int v = 0; v < PANEL_STRIDE; v += LANES) store(panel + v, load(source + v));
                } else {
                    for (wf_size r = 0; r < rows; ++r) panel[r] = source[r];
                }
            }
        }
    }
}

/* The panels of the k-block at k0 if they are packed, or this thread packs them now; else NULL (A in place). */
static const float *block_panels(const strips_job *job, wf_size k0, wf_size steps, wf_size tiles) {
    int *state = job->ready + k0 / K_BLOCK;
    float *panels = job->panels + tiles * k0 * PANEL_STRIDE;
    int seen = __atomic_load_n(state, __ATOMIC_ACQUIRE);
    if (seen == PANELS_READY) return panels;
    if (seen != PANELS_EMPTY ||
        !__atomic_compare_exchange_n(state, &seen, PANELS_PACKING, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return NULL;
    pack_block(job, k0, steps, tiles, panels);
    __atomic_store_n(state, PANELS_READY, __ATOMIC_RELEASE);
    return panels;
}

static void strips_thread(void *context, wf_size thread) {
    strips_job *job = context;
    wf_size m = job->m, n = job->n, k = job->k, lda = job->lda;
    /* This thread's workspace: the partial strip's m x STRIP_COLUMNS sums, then the packed strip (K_BLOCK rows). */
    float *tail = job->work + thread * wf_gemm_strips_workspace(m), *strip = tail + m * STRIP_COLUMNS;
    wf_size strips = (n + STRIP_COLUMNS - 1) / STRIP_COLUMNS;
    wf_size units = (strips + job->strips_per_unit - 1) / job->strips_per_unit;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_size last_strip = WF_MIN(strips, (u + 1) * job->strips_per_unit);
        for (wf_size k0 = 0; k0 < k; k0 += K_BLOCK) {
            wf_size steps = WF_MIN(K_BLOCK, k - k0);
            const float *a = job->a + (job->transpose_a ? k0 * lda : k0);
            for (wf_size s = u * job->strips_per_unit; s < last_strip; ++s) {
                wf_size column = s * STRIP_COLUMNS, width = WF_MIN(STRIP_COLUMNS, n - column);
                /* A last strip of at most one vector runs one-vector tiles: the two-vector ones would spend half
                 * their multiply-adds on padding (the softmax input gradient's n = 200: 6 strips and 8 columns). */
                int narrow = width <= LANES;
                wf_size stride = narrow ? LANES : STRIP_COLUMNS, rows_per_tile = narrow ? NARROW_ROWS : STRIP_ROWS;
                int full = width == stride;
                float *c = full ? job->c + column : tail;  /* a partial strip sums into `tail` */
                wf_size ldc = full ? n : stride;
                const float *bias = job->bias && k0 + steps == k && full ? job->bias + column : NULL;
                wf_size tiles = (m + rows_per_tile - 1) / rows_per_tile;
                /* With a few tiles of rows, a full strip of an untransposed B is read in place (its rows ldb apart):
                 * a copy would be read only a few times (one thread, us: an LSTM step's [20, 400] x [400, 800]
                 * 83 -> 63). With many, the copy pays: rows a page or more apart miss the first-level TLB at every
                 * step (the softmax layer's [400, 200] x [200, 10000]: 8.1 ms copied, 8.5 in place). */
                const float *source = strip;
                wf_size source_stride = stride;
                if (full && !job->transpose_b && tiles <= IN_PLACE_TILES) {
                    source = job->b + k0 * job->ldb + column;
                    source_stride = job->ldb;
                } else {
                    copy_strip(job, k0, steps, column, width, strip, stride);
                }
                const float *panels = job->panels && rows_per_tile == STRIP_ROWS  /* (the panels' tiles) */
                                          ? block_panels(job, k0, steps, tiles) : NULL;
                for (wf_size t = 0; t < tiles; ++t) {
                    wf_size row = tile_start(m, tiles, t), rows = tile_start(m, tiles, t + 1) - row;
                    const float *a_rows = panels ? panels + t * steps * PANEL_STRIDE
                                                 : a + (job->transpose_a ? row : row * lda);
                    wf_size a_stride = panels ? PANEL_STRIDE : lda;
                    /* two direct calls, not a pointer to either: an indirect call makes the wasm module import
                     * a function table, which the hand-written loaders (tests/kernels/wasm_runner.js) lack */
                    if (narrow)
                        narrow_tiles(a_rows, a_stride, job->transpose_a, source, source_stride, c + row * ldc, ldc,
                                     steps, k0 == 0, bias, rows);
                    else
                        strip_tiles(a_rows, a_stride, job->transpose_a, source, source_stride, c + row * ldc, ldc,
                                    steps, k0 == 0, bias, rows);
                }
            }
        }
        wf_size column = (last_strip - 1) * STRIP_COLUMNS, width = n - column;
        wf_size stride = width <= LANES ? LANES : STRIP_COLUMNS;
        if (width < stride)  /* this unit had the partial strip: its sums to C */
            for (wf_size r = 0; r < m; ++r)
                for (wf_size v = 0; v < width; ++v)
                    job->c[r * n + column + v] = job->bias ? tail[r * stride + v] + job->bias[column + v]
                                                           : tail[r * stride + v];
    }
}

WF_EXPORT void wf_gemm_strips_panels_f32(wf_size m, wf_size n, wf_size k, const float *a, wf_size lda,
                                         int transpose_a, const float *b, wf_size ldb, int transpose_b,
                                         const float *bias, float *c, float *work, float *panels, wf_size threads) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {  /* an empty sum */
        for (wf_size i = 0; i < m * n; ++i) c[i] = bias ? 0.0f + bias[i % n] : 0;
        return;
    }
    /* Units of one strip. Why not more: when the other threads are done, the last thread still in a unit is
     * all the caller waits for, and on a crowded machine (more runnable threads than cores) a worker is often
     * preempted inside one; the shorter the unit, the less is left behind it. (Units of 4 strips, up to a
     * quarter of a thread's share, only let A's k-block be read from L2 four times in a row.) */
    wf_size per_unit = 1;
    strips_job job = {m, n, k, lda, ldb, per_unit, transpose_a, transpose_b, a, b, bias, c, work,
                      transpose_a ? panels : NULL, NULL, 0};
    if (job.panels) {  /* the states after the panels, all empty */
        job.ready = (int *)(panels + wf_gemm_strips_panels_size(m, k) - k_blocks(k));
        for (wf_size i = 0; i < k_blocks(k); ++i) job.ready[i] = PANELS_EMPTY;
    }
    wf_run_parallel(strips_thread, &job, threads);
}

WF_EXPORT void wf_gemm_strips_f32(wf_size m, wf_size n, wf_size k, const float *a, wf_size lda, int transpose_a,
                                  const float *b, wf_size ldb, int transpose_b, const float *bias, float *c,
                                  float *work, wf_size threads) {
    wf_gemm_strips_panels_f32(m, n, k, a, lda, transpose_a, b, ldb, transpose_b, bias, c, work, NULL, threads);
}
