/* gemm.c: packed, register-blocked matrix multiply, C = alpha * op(A) op(B) + beta * C.
 *
 * Exports (row-major, leading dimensions in elements, trans_* = 0 or 1):
 *   wf_gemm_f32 / wf_gemm_f64                  (trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
 *   wf_gemm_batched_f32 / wf_gemm_batched_f64  same, with stride_a, stride_b, stride_c after each
 *                                              leading dimension and batch last
 * The algorithm (packing, MR x 2-vector micro-kernel, cache blocks) is in gemm_template.h, written once
 * and instantiated here for float and double.
 * Block sizes: KC = 256 deep slices of k; MC = 128 rows of A packed (128 KB of floats, fits L2); NC = 512
 * columns of B packed. Measured on AMD Zen 5 (one thread, n = 256..1024): see benchmarks/c_gemm.py.
 * wasm f32 uses KC = 512, MC = 64 (below) and packs four rows at a time with SIMD shuffles (template).
 */
#include "webflow_kernels.h"

/* Rows of the micro-kernel tile: 4 x 2 vectors = 8 accumulators on 128-bit targets (wasm simd128, SSE2,
 * NEON: V8 spills beyond ~15 registers); 6 x 2 = 12 with AVX's 16 ymm registers (about 10% faster). */
#if WF_VECTOR_BYTES == 32
#define GEMM_MR 6
#else
#define GEMM_MR 4
#endif

#define REAL float
#define VEC wf_f32v
#define LANES WF_F32_LANES
#define VLOAD wf_load_f32v
#define VSTORE wf_store_f32v
#define VSPLAT wf_splat_f32v
#define VMADD wf_madd_f32v
#define NAME(x) x##_f32
#if defined(__wasm__)
/* wasm (V8, one thread; PLATFORM.md): deeper k-slices halve the passes over C and the re-packing of A,
 * +5% at n = 1024; the 4 x 8 B micro-panel (16 KB) still sits in L1, the 64 x 512 A block in L2. */
#define GEMM_KC 512
#define GEMM_MC 64
#define GEMM_NC 512
#else
#define GEMM_KC 256
#define GEMM_MC 128
#define GEMM_NC 512
#endif
#include "gemm_template.h"
#undef REAL
#undef VEC
#undef LANES
#undef VLOAD
#undef VSTORE
#undef VSPLAT
#undef VMADD
#undef NAME
#undef GEMM_KC
#undef GEMM_MC
#undef GEMM_NC

#define REAL double
#define VEC wf_f64v
#define LANES WF_F64_LANES
#define VLOAD wf_load_f64v
#define VSTORE wf_store_f64v
#define VSPLAT wf_splat_f64v
#define VMADD wf_madd_f64v
#define NAME(x) x##_f64
#define GEMM_KC 256
#define GEMM_MC 64
#define GEMM_NC 256
#include "gemm_template.h"
