/* gemm_thin.c: float32 matrix products with one thin side, summed from the row-major operands as they are.
 *
 * Exports (row-major, contiguous; each call runs on `threads` threads, wf_run_parallel in parallel.c):
 *   wf_size wf_gemm_thin_columns(void)        n must be a multiple of this, for both kernels
 *   wf_size wf_gemm_few_rows_workspace(void)  floats of scratch per thread for wf_gemm_few_rows_f32
 *   void wf_gemm_few_rows_f32(m, n, k, a, b, c, work, threads)   C[m,n] = A[m,k] B[k,n], for a few rows m;
 *       work holds threads workspaces
 *   void wf_gemm_outer_f32(m, n, k, a, b, c, threads)            C[m,n] = A^T B with A [k,m], B [k,n], for
 *       a short k: the sum of k outer products
 *   wf_size wf_gemm_few_rows_transposed_workspace(m, k)          floats of `work` for:
 *   void wf_gemm_few_rows_transposed_f32(m, n, k, a, b, c, work, threads)   C[m,n] = A B^T with B [n,k], for
 *       a few rows m (a dense layer's input gradient)
 * Threads claim units of columns (few rows) or of rows (outer) from a counter (wf_next_unit); every C
 * element is one thread's sum over k in order, so the result does not depend on which thread ran what.
 *
 * Why: a dense layer at a small batch. The Deep MNIST CNN's fc1 at batch 50 is 50 x 3136 times 3136 x 1024
 * forward and 3136 x 50 times 50 x 1024 for its weight gradient. A packed GEMM (gemm.c, OpenBLAS) copies
 * both operands into panels and then runs a micro-kernel; with 50 rows there is little to amortize the
 * copying over, and OpenBLAS split the work unevenly over 2 threads. Here the register tiles of
 * register_tiles.h read the thin operand as broadcasts and the other one as vectors in place.
 *   - few rows: tiles of up to TILE_ROWS(2) rows of A (14 on AVX-512) times 2 vectors of columns. B is walked
 *     in blocks of K_BLOCK rows; a block's 2-vector strip is first copied into `work`: B's rows are 4 KB
 *     apart in fc1, so in place all of a strip's rows fall into the same L1 set and evict each other.
 *   - outer: tiles of TILE_ROWS(4) rows of C (7 on AVX-512) times 4 vectors, summed over all of k at once
 *     (k is short: each C element is written once, the write is what bounds it).
 *   - few rows transposed (fc1's input gradient, 50 x 1024 times W^T, W [3136, 1024]): W's rows are the
 *     broadcasts, each read along k in place, and A^T is packed once so that its rows are the vectors.
 * Measured: see backends/c_kernels_math.py (where the product picks these kernels or NumPy's BLAS).
 */
#include "register_tiles.h"

#define FEW_VECS 2
#define FEW_ROWS TILE_ROWS(FEW_VECS)
#define FEW_COLUMNS (FEW_VECS * LANES)
#define K_BLOCK 256          /* rows of B per block: a strip of it is 32 KB of `work` (AVX-512) */
#define STRIPS_PER_UNIT 4    /* a thread's unit of work: 4 strips of columns (8 units for fc1's 1024) */
#define OUTER_VECS 4
#define OUTER_ROWS TILE_ROWS(OUTER_VECS)
#define OUTER_COLUMNS (OUTER_VECS * LANES)
#define TILES_PER_UNIT 8

WF_EXPORT wf_size wf_gemm_thin_columns(void) { return OUTER_COLUMNS; }
WF_EXPORT wf_size wf_gemm_few_rows_workspace(void) { return K_BLOCK * FEW_COLUMNS; }

/* Tile `t` of `tiles` over `total` rows, as even as can be: rows [first, first + count). */
static inline wf_size tile_start(wf_size total, wf_size tiles, wf_size t) { return total * t / tiles; }

/* --- few rows: c[r][v] (+)= sum over steps i of a[r * k + i] * strip[i][v] ------------------------- */
ALWAYS_INLINE void few_rows_tile(const float *a, wf_size k, const float *strip, float *c, wf_size n, wf_size steps,
                                 int first, const int rows) {
    vec acc[FEW_ROWS][FEW_VECS];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < FEW_VECS; ++v) acc[r][v] = first ? (vec){0} : load(c + r * n + v * LANES);
    for (wf_size i = 0; i < steps; ++i, strip += FEW_COLUMNS) {
        vec columns[FEW_VECS];
        for (int v = 0; v < FEW_VECS; ++v) columns[v] = load(strip + v * LANES);
        for (int r = 0; r < rows; ++r) {
            float x = a[r * k + i];
            for (int v = 0; v < FEW_VECS; ++v) acc[r][v] += columns[v] * x;
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < FEW_VECS; ++v) store(c + r * n + v * LANES, acc[r][v]);
}

/* One function per tile height (the accumulators stay in registers only with constant bounds). */
#define FEW_CASE(R) case R: few_rows_tile(a, k, strip, c, n, steps, first, R); break;
static void few_rows_tiles(const float *a, wf_size k, const float *strip, float *c, wf_size n, wf_size steps,
                           int first, wf_size rows) {
    switch (rows) {
    FEW_CASE(1) FEW_CASE(2) FEW_CASE(3) FEW_CASE(4)
#if FEW_ROWS >= 6
    FEW_CASE(5) FEW_CASE(6)
#endif
#if FEW_ROWS >= 14
    FEW_CASE(7) FEW_CASE(8) FEW_CASE(9) FEW_CASE(10) FEW_CASE(11) FEW_CASE(12) FEW_CASE(13) FEW_CASE(14)
#endif
    }
}

/* One product's operands and the counter its threads claim units from (both kernels). */
typedef struct {
    wf_size m, n, k;
    const float *a, *b;
    float *c, *work;
    wf_size next;
} product_job;

static void few_rows_thread(void *context, wf_size thread) {
    product_job *job = context;
    wf_size m = job->m, n = job->n, k = job->k;
    const float *a = job->a, *b = job->b;
    float *c = job->c, *work = job->work + thread * wf_gemm_few_rows_workspace();
    wf_size strips = n / FEW_COLUMNS, units = (strips + STRIPS_PER_UNIT - 1) / STRIPS_PER_UNIT;
    wf_size tiles = (m + FEW_ROWS - 1) / FEW_ROWS;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        wf_size last_strip = WF_MIN(strips, (u + 1) * STRIPS_PER_UNIT);
        for (wf_size k0 = 0; k0 < k; k0 += K_BLOCK) {
            wf_size steps = WF_MIN(K_BLOCK, k - k0);
            for (wf_size s = u * STRIPS_PER_UNIT; s < last_strip; ++s) {
                const float *block = b + k0 * n + s * FEW_COLUMNS;
                for (wf_size i = 0; i < steps; ++i)
                    for (int v = 0; v < FEW_VECS; ++v)
                        store(work + i * FEW_COLUMNS + v * LANES, load(block + i * n + v * LANES));
                for (wf_size t = 0; t < tiles; ++t) {
                    wf_size row = tile_start(m, tiles, t), rows = tile_start(m, tiles, t + 1) - row;
                    few_rows_tiles(a + row * k + k0, k, work, c + row * n + s * FEW_COLUMNS, n, steps, k0 == 0, rows);
                }
            }
        }
    }
}

WF_EXPORT void wf_gemm_few_rows_f32(wf_size m, wf_size n, wf_size k, const float *a, const float *b, float *c,
                                    float *work, wf_size threads) {
    product_job job = {m, n, k, a, b, c, work, 0};
    wf_run_parallel(few_rows_thread, &job, threads);
}

/* --- outer: c[r][v] = sum over i < k of a[i * m + r] * b[i * n + v] ------------------------------------- */
ALWAYS_INLINE void outer_product_tile(const float *a, wf_size m, const float *b, wf_size n, float *c, wf_size k,
                              const int rows) {
    vec acc[OUTER_ROWS][OUTER_VECS];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < OUTER_VECS; ++v) acc[r][v] = (vec){0};
    for (wf_size i = 0; i < k; ++i, a += m, b += n) {
        vec columns[OUTER_VECS];
        for (int v = 0; v < OUTER_VECS; ++v) columns[v] = load(b + v * LANES);
        for (int r = 0; r < rows; ++r) {
            float x = a[r];
            for (int v = 0; v < OUTER_VECS; ++v) acc[r][v] += columns[v] * x;
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < OUTER_VECS; ++v) store(c + r * n + v * LANES, acc[r][v]);
}

#define OUTER_CASE(R) case R: outer_product_tile(a, m, b, n, c, k, R); break;
static void outer_product_tiles(const float *a, wf_size m, const float *b, wf_size n, float *c, wf_size k, wf_size rows) {
    switch (rows) {
    OUTER_CASE(1) OUTER_CASE(2)
#if OUTER_ROWS >= 3
    OUTER_CASE(3)
#endif
#if OUTER_ROWS >= 7
    OUTER_CASE(4) OUTER_CASE(5) OUTER_CASE(6) OUTER_CASE(7)
#endif
    }
}

static void outer_thread(void *context, wf_size thread) {
    product_job *job = context;
    wf_size m = job->m, n = job->n, k = job->k;
    wf_size tiles = (m + OUTER_ROWS - 1) / OUTER_ROWS, units = (tiles + TILES_PER_UNIT - 1) / TILES_PER_UNIT;
    (void)thread;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        for (wf_size t = u * TILES_PER_UNIT; t < WF_MIN(tiles, (u + 1) * TILES_PER_UNIT); ++t) {
            wf_size row = tile_start(m, tiles, t), rows = tile_start(m, tiles, t + 1) - row;
            for (wf_size column = 0; column < n; column += OUTER_COLUMNS)
                outer_product_tiles(job->a + row, m, job->b + column, n, job->c + row * n + column, k, rows);
        }
    }
}

WF_EXPORT void wf_gemm_outer_f32(wf_size m, wf_size n, wf_size k, const float *a, const float *b, float *c,
                                 wf_size threads) {
    product_job job = {m, n, k, a, b, c, NULL, 0};
    wf_run_parallel(outer_thread, &job, threads);
}

/* --- few rows times a transposed matrix: C[m,n] = A[m,k] B^T with B [n,k] --------------------------------
 * A dense layer's input gradient, dy W^T (fc1 at batch 50: 50 x 1024 times 1024 x 3136 from W [3136, 1024]).
 * B's rows are the tile rows here: a tile sums T_ROWS rows of B (broadcasts, each row read along k in
 * place) by vectors of A's rows, from A^T packed into `work` ([k][M], M = m rounded up to whole vectors,
 * zeros after m: whatever was there, denormals included, would go through the multiply-adds). Rows of A
 * beyond a tile's vectors take further passes over the same rows of B, then in L1. The sums are rows of
 * C^T: a tile's are written to C's columns through a small buffer. */
#define T_VECS 4
#define T_ROWS TILE_ROWS(T_VECS)
#define T_TILES_PER_UNIT 8

WF_EXPORT wf_size wf_gemm_few_rows_transposed_workspace(wf_size m, wf_size k) {
    return k * ((m + LANES - 1) / LANES * LANES);
}

ALWAYS_INLINE void transposed_tile(const float *b, wf_size k, const float *at, wf_size stride, float *sums,
                                   const int vecs) {
    vec acc[T_ROWS][T_VECS];
    for (int r = 0; r < T_ROWS; ++r)
        for (int v = 0; v < vecs; ++v) acc[r][v] = (vec){0};
    for (wf_size i = 0; i < k; ++i, at += stride) {
        vec columns[T_VECS];
        for (int v = 0; v < vecs; ++v) columns[v] = load(at + v * LANES);
        for (int r = 0; r < T_ROWS; ++r) {
            float x = b[r * k + i];
            for (int v = 0; v < vecs; ++v) acc[r][v] += columns[v] * x;
        }
    }
    for (int r = 0; r < T_ROWS; ++r)
        for (int v = 0; v < vecs; ++v) store(sums + r * T_VECS * LANES + v * LANES, acc[r][v]);
}

#define T_CASE(V) case V: transposed_tile(b, k, at, stride, sums, V); break;
static void transposed_tiles(const float *b, wf_size k, const float *at, wf_size stride, float *sums,
                             wf_size vecs) {
    switch (vecs) {
    T_CASE(1) T_CASE(2) T_CASE(3) T_CASE(4)
    }
}

/* C[first + j][row + r] = sums[r][j] for the tile's rows r and `count` rows j of A. */
static void write_columns(const float *sums, float *c, wf_size n, wf_size first, wf_size count, wf_size row) {
    for (wf_size j = 0; j < count; ++j)
        for (int r = 0; r < T_ROWS; ++r) c[(first + j) * n + row + r] = sums[r * T_VECS * LANES + j];
}

static void transposed_thread(void *context, wf_size thread) {
    product_job *job = context;
    wf_size m = job->m, n = job->n, k = job->k, stride = (m + LANES - 1) / LANES * LANES;
    wf_size tiles = (n + T_ROWS - 1) / T_ROWS, units = (tiles + T_TILES_PER_UNIT - 1) / T_TILES_PER_UNIT;
    float sums[T_ROWS * T_VECS * LANES];
    (void)thread;
    for (wf_size u = wf_next_unit(&job->next); u < units; u = wf_next_unit(&job->next)) {
        for (wf_size t = u * T_TILES_PER_UNIT; t < WF_MIN(tiles, (u + 1) * T_TILES_PER_UNIT); ++t) {
            wf_size row = WF_MIN(t * T_ROWS, n - T_ROWS);  /* the last tile overlaps its neighbour: same sums */
            for (wf_size first = 0; first < m; first += T_VECS * LANES) {
                wf_size count = WF_MIN(T_VECS * LANES, m - first);
                transposed_tiles(job->b + row * k, k, job->work + first, stride, sums, (count + LANES - 1) / LANES);
                write_columns(sums, job->c, n, first, count, row);
            }
        }
    }
}

WF_EXPORT void wf_gemm_few_rows_transposed_f32(wf_size m, wf_size n, wf_size k, const float *a, const float *b,
                                               float *c, float *work, wf_size threads) {
    wf_size stride = (m + LANES - 1) / LANES * LANES;
    for (wf_size i = 0; i < k; ++i) {
        for (wf_size j = 0; j < m; ++j) work[i * stride + j] = a[j * k + i];
        for (wf_size j = m; j < stride; ++j) work[i * stride + j] = 0;
    }
    if (n < T_ROWS) {  /* no whole tile: plain sums */
        for (wf_size j = 0; j < m; ++j)
            for (wf_size r = 0; r < n; ++r) {
                float sum = 0;
                for (wf_size i = 0; i < k; ++i) sum += work[i * stride + j] * b[r * k + i];
                c[j * n + r] = sum;
            }
        return;
    }
    product_job job = {m, n, k, a, b, c, work, 0};
    wf_run_parallel(transposed_thread, &job, threads);
}
