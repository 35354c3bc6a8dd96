/* webflow_kernels.h: what every kernel file shares.
 *
 * One C source, two targets: a native shared library (gcc/clang, loaded with ctypes in CPython) and a
 * wasm32 simd128 side module (loaded with ctypes.CDLL inside Pyodide). So the kernels use only
 *   - GCC/Clang vector extensions (no <immintrin.h>, no <wasm_simd128.h>): `a * b + c` on vectors
 *     compiles to SSE/AVX natively and to f32x4.mul/f32x4.add in WebAssembly;
 *   - freestanding headers (<stddef.h>, <stdint.h>): the wasm module is linked with -nostdlib, so no
 *     malloc, no printf, no libm. Kernels never allocate: callers pass every buffer, including scratch.
 * Sizes are `wf_size` (ptrdiff_t): 64-bit natively, 32-bit on wasm32; Python passes ctypes.c_ssize_t,
 * which has the same width on both, so no 64-bit integer ever crosses the wasm call boundary.
 * Arrays are row-major (C order) with explicit leading dimensions, exactly as NumPy lays them out.
 */
#ifndef WEBFLOW_KERNELS_H
#define WEBFLOW_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef ptrdiff_t wf_size;

/* Visible from outside the library (ctypes looks functions up by name). */
#if defined(_WIN32)
#define WF_EXPORT __declspec(dllexport)
#else
#define WF_EXPORT __attribute__((visibility("default")))
#endif

/* Per-thread scratch natively (ctypes releases the GIL, so two Python threads may call one kernel at
 * once); plain static in single-threaded wasm, where thread-local storage needs the atomics feature. */
#if defined(__wasm__) && !defined(__wasm_atomics__)
#define WF_THREAD_LOCAL
#else
#define WF_THREAD_LOCAL _Thread_local
#endif

/* The next unit of work (an image, a slice of a batch) for a kernel that several threads run at once on
 * one call's data: each thread claims units from a counter they share until it passes the last, so a thread
 * on a slower core simply runs fewer units. Natively an atomic add; wasm without threads lowers it to a
 * plain one. Loop with
 *   for (wf_size n = wf_next_unit(&job->next); n < units; n = wf_next_unit(&job->next)) ... */
static inline wf_size wf_next_unit(wf_size *next) { return __atomic_fetch_add(next, 1, __ATOMIC_RELAXED); }

/* A kernel that shares one call's work out over threads: task(job, t) for t = 0 .. threads-1 at once, t = 0
 * on the calling thread (parallel.c: the native library's worker threads; in wasm the caller alone). The
 * task claims its units from a counter in the job (wf_next_unit), so any number of threads finishes it. */
typedef void (*wf_task)(void *job, wf_size thread);
#if defined(__wasm__) || defined(_WIN32)
/* No threads: the caller runs the whole job. Inline, so wasm calls the task directly and the module needs
 * no function table (its four imports stay memory, stack pointer, memory base and table base). */
static inline void wf_run_parallel(wf_task task, void *job, wf_size threads) {
    (void)threads;
    task(job, 0);
}
#else
void wf_run_parallel(wf_task task, void *job, wf_size threads);
#endif

/* sums[c] = the sum of column c of x [rows, columns], row after row (reduce.c): a bias gradient's order,
 * shared by the Sum kernel and the MaxPoolGrad fused with it (pool.c), which must agree bit for bit. */
void wf_column_sums_f32(const float *x, wf_size rows, wf_size columns, float *sums);

#define WF_MIN(a, b) ((a) < (b) ? (a) : (b))
#define WF_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Fixed 128-bit vectors: the WebAssembly simd128 width, also SSE2 and NEON. */
typedef float f32x4 __attribute__((vector_size(16)));
typedef double f64x2 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));

/* The widest vector the target does well: 256-bit when built with AVX (the native -mavx2 build),
 * else 128-bit. Kernels written on wf_f32v/wf_f64v get wider automatically; lanes are compile-time. */
#if !defined(WF_VECTOR_BYTES) && defined(__AVX__)
#define WF_VECTOR_BYTES 32
#elif !defined(WF_VECTOR_BYTES)
#define WF_VECTOR_BYTES 16
#endif
#define WF_F32_LANES (WF_VECTOR_BYTES / 4)
#define WF_F64_LANES (WF_VECTOR_BYTES / 8)
typedef float wf_f32v __attribute__((vector_size(WF_VECTOR_BYTES)));
typedef double wf_f64v __attribute__((vector_size(WF_VECTOR_BYTES)));

/* Unaligned, alias-safe views for loads and stores anywhere in a float array. */
typedef float wf_f32v_unaligned __attribute__((vector_size(WF_VECTOR_BYTES), aligned(4), may_alias));
typedef double wf_f64v_unaligned __attribute__((vector_size(WF_VECTOR_BYTES), aligned(8), may_alias));
typedef float f32x4_unaligned __attribute__((vector_size(16), aligned(4), may_alias));

static inline wf_f32v wf_load_f32v(const float *p) { return *(const wf_f32v_unaligned *)p; }
static inline void wf_store_f32v(float *p, wf_f32v v) { *(wf_f32v_unaligned *)p = v; }
static inline wf_f64v wf_load_f64v(const double *p) { return *(const wf_f64v_unaligned *)p; }
static inline void wf_store_f64v(double *p, wf_f64v v) { *(wf_f64v_unaligned *)p = v; }
static inline f32x4 wf_load_f32x4(const float *p) { return *(const f32x4_unaligned *)p; }
static inline void wf_store_f32x4(float *p, f32x4 v) { *(f32x4_unaligned *)p = v; }

/* A scalar in every lane (one v128.load32_splat / broadcast instruction). Written lane by lane: the
 * shorter `(wf_f32v){0} + x` costs a real addition, since -0.0 + 0.0 is +0.0. */
#if WF_VECTOR_BYTES == 32
static inline wf_f32v wf_splat_f32v(float x) { return (wf_f32v){x, x, x, x, x, x, x, x}; }
static inline wf_f64v wf_splat_f64v(double x) { return (wf_f64v){x, x, x, x}; }
#else
static inline wf_f32v wf_splat_f32v(float x) { return (wf_f32v){x, x, x, x}; }
static inline wf_f64v wf_splat_f64v(double x) { return (wf_f64v){x, x}; }
#endif
static inline f32x4 wf_splat_f32x4(float x) { return (f32x4){x, x, x, x}; }

/* acc + a * b on vectors, for the GEMM micro-kernel only. In the relaxed-SIMD wasm build
 * (webflow_kernels_relaxed.wasm, clang >= 16 -mrelaxed-simd) it is f32x4/f64x2.relaxed_madd, which V8
 * compiles to one fused vfmadd on FMA CPUs: one instruction instead of a multiply and an add, and one
 * rounding. f32 GEMM in Node 20 on an Intel Xeon (benchmarks/wasm/wasm_vs_tfjs.mjs): 40-47 GFLOP/s instead
 * of 34-40, where a native loop of 128-bit multiplies and adds tops out near 35. The 4 x 8 tile stays: V8
 * hoists all splats of a 6 x 8 tile and spills (29-34). Elsewhere it is a multiply and an add (natively
 * -ffp-contract fuses them when the target has FMA). Other kernels write `*` and `+`: clang never turns
 * those into a relaxed madd, so the kernels that must be bit-exact (optimizers.c, philox.c) are unchanged. */
#if defined(__wasm_relaxed_simd__) && WF_VECTOR_BYTES == 16
#if !__has_builtin(__builtin_wasm_relaxed_madd_f32x4)
#error "relaxed SIMD needs clang >= 16: older clang emits the pre-2022 opcodes that V8 rejects"
#endif
static inline wf_f32v wf_madd_f32v(wf_f32v a, wf_f32v b, wf_f32v acc) {
    return __builtin_wasm_relaxed_madd_f32x4(a, b, acc);
}
static inline wf_f64v wf_madd_f64v(wf_f64v a, wf_f64v b, wf_f64v acc) {
    return __builtin_wasm_relaxed_madd_f64x2(a, b, acc);
}
#else
static inline wf_f32v wf_madd_f32v(wf_f32v a, wf_f32v b, wf_f32v acc) { return acc + a * b; }
static inline wf_f64v wf_madd_f64v(wf_f64v a, wf_f64v b, wf_f64v acc) { return acc + a * b; }
#endif

/* memset/memcpy stand-ins (no libc in wasm). Loops the compiler may turn into memory.fill/copy. */
static inline void wf_zero_f32(float *p, wf_size n) { for (wf_size i = 0; i < n; ++i) p[i] = 0.0f; }
static inline void wf_zero_f64(double *p, wf_size n) { for (wf_size i = 0; i < n; ++i) p[i] = 0.0; }
static inline void wf_copy_f32(float *dst, const float *src, wf_size n) {
    for (wf_size i = 0; i < n; ++i) dst[i] = src[i];
}
static inline void wf_copy_f64(double *dst, const double *src, wf_size n) {
    for (wf_size i = 0; i < n; ++i) dst[i] = src[i];
}

/* Infinity without <math.h>. */
#define WF_INF_F32 __builtin_inff()
#define WF_INF_F64 __builtin_inf()

/* The geometry of a 2-D convolution or pooling window over NHWC data (conv.c, pool.c); Python builds it
 * as a ctypes.Structure (webflow/backends/c_conv.py). Padding is explicit: TF's SAME becomes pad_top /
 * pad_left = total padding // 2, VALID becomes 0; out_height/out_width are given, not recomputed.
 * Pooling uses in_channels as the channel count, filter_* as the window and ignores out_channels. */
typedef struct {
    wf_size batch, in_height, in_width, in_channels;
    wf_size filter_height, filter_width, out_channels;
    wf_size stride_height, stride_width, dilation_height, dilation_width;
    wf_size pad_top, pad_left, out_height, out_width;
} wf_conv2d_shape;

/* Status codes returned by kernels that validate arguments (0 = done). */
#define WF_OK 0
#define WF_BAD_ARGUMENT (-1)
#define WF_WORKSPACE_TOO_SMALL (-2)

#endif /* WEBFLOW_KERNELS_H */
