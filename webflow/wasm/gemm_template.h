/* gemm_template.h: the GEMM body, included by gemm.c once per element type (float, double).
 *
 * The includer defines:
 *   REAL          element type             VEC, LANES      vector type and its lane count
 *   VLOAD/VSTORE  unaligned vector access  VSPLAT          scalar -> every lane
 *   VMADD(a,b,c)  c + a * b (fused relaxed madd in the relaxed-SIMD wasm build; webflow_kernels.h)
 *   NAME(x)       x with the type suffix   GEMM_KC/MC/NC   cache block sizes (elements)
 *   GEMM_MR       rows of the micro-kernel tile (its columns are two vectors)
 *
 * C = alpha * op(A) * op(B) + beta * C, row-major, op(A) is m x k, op(B) is k x n:
 *   op(A)[i, p] = trans_a ? a[p * lda + i] : a[i * lda + p]
 *   op(B)[p, j] = trans_b ? b[j * ldb + p] : b[p * ldb + j]
 * Blocking (GotoBLAS / BLIS order): for each NC-wide column block of C and each KC-deep slice of k,
 * pack op(B)'s KC x NC block into NR-wide panels; for each MC-tall row block, pack op(A)'s MC x KC block
 * into MR-tall panels; then run the MR x NR micro-kernel over every (panel of A, panel of B) pair.
 * Packing reads A and B in whichever layout they have (transposed or not): no transposed copy is made.
 * Panels are padded to full MR / NR (with zeros, or on wasm by repeating the last row), so the micro-kernel
 * has no edge cases; edges are clipped when the result tile is stored.
 */

#define MR GEMM_MR
#define NR (2 * LANES)

/* Scratch for the packed blocks, aligned for vector loads. Thread-local natively (see the header). */
static WF_THREAD_LOCAL REAL NAME(packed_a)[(GEMM_MC + MR - 1) / MR * MR * GEMM_KC] __attribute__((aligned(64)));
static WF_THREAD_LOCAL REAL NAME(packed_b)[GEMM_KC * GEMM_NC] __attribute__((aligned(64)));

#if defined(__wasm_simd128__) && LANES == 4 && MR == 4
/* wasm f32 only: pack four rows at once through a 4 x 4 transpose in registers (the scalar loops below
 * store one float per step with a stride; in V8 that was ~10% of a 64 x 64 product, 3% at 1024).
 * Rows r0..r3, elements p = 0..kc-1 -> out[p * stride + 0..3]. At a ragged edge the callers repeat the
 * last real row instead of padding with zeros: each padded row of a tile only feeds its own accumulators,
 * whose results are clipped at the store. (A static zero row would cost 1.8 MB: wasm-ld then writes all
 * the packing scratch into the module as a zero data segment.) */
#define GEMM_PACK_ROWS4 1

static void NAME(pack_rows4)(const REAL *r0, const REAL *r1, const REAL *r2, const REAL *r3, wf_size kc,
                             REAL *out, wf_size stride) {
    wf_size p = 0;
    for (; p + 4 <= kc; p += 4, out += 4 * stride) {
        VEC x0 = VLOAD(r0 + p), x1 = VLOAD(r1 + p), x2 = VLOAD(r2 + p), x3 = VLOAD(r3 + p);
        /* interleave rows pairwise (x0[0] x1[0] x0[1] x1[1] ...), then pair the 64-bit halves */
        VEC lo01 = __builtin_shufflevector(x0, x1, 0, 4, 1, 5), hi01 = __builtin_shufflevector(x0, x1, 2, 6, 3, 7);
        VEC lo23 = __builtin_shufflevector(x2, x3, 0, 4, 1, 5), hi23 = __builtin_shufflevector(x2, x3, 2, 6, 3, 7);
        VSTORE(out, __builtin_shufflevector(lo01, lo23, 0, 1, 4, 5));
        VSTORE(out + stride, __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7));
        VSTORE(out + 2 * stride, __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5));
        VSTORE(out + 3 * stride, __builtin_shufflevector(hi01, hi23, 2, 3, 6, 7));
    }
    for (; p < kc; ++p, out += stride) {
        out[0] = r0[p];
        out[1] = r1[p];
        out[2] = r2[p];
        out[3] = r3[p];
    }
}
#endif

/* op(A)[0:mc, 0:kc] -> MR-row panels: panel q holds, for each p, the MR values op(A)[q*MR + r, p]. */
static void NAME(pack_a)(int trans, wf_size mc, wf_size kc, const REAL *a, wf_size lda, REAL *pack) {
    for (wf_size i0 = 0; i0 < mc; i0 += MR, pack += MR * kc) {
        wf_size rows = WF_MIN(MR, mc - i0);
#ifdef GEMM_PACK_ROWS4
        if (!trans) {  /* MR == 4 rows of A, each contiguous along p */
            const REAL *row[4];
            for (int r = 0; r < 4; ++r) row[r] = a + (i0 + WF_MIN(r, rows - 1)) * lda;
            NAME(pack_rows4)(row[0], row[1], row[2], row[3], kc, pack, MR);
            continue;
        }
        if (rows == MR) {  /* transposed: the MR values for each p are contiguous, one vector */
            for (wf_size p = 0; p < kc; ++p) VSTORE(pack + p * MR, VLOAD(a + p * lda + i0));
            continue;
        }
#endif
        if (trans) {  /* op(A) columns are contiguous: copy MR neighbours per p */
            for (wf_size p = 0; p < kc; ++p) {
                const REAL *src = a + p * lda + i0;
                for (wf_size r = 0; r < MR; ++r) pack[p * MR + r] = r < rows ? src[r] : 0;
            }
        } else {  /* op(A) rows are contiguous: read each row along p, write with stride MR */
            for (wf_size r = 0; r < MR; ++r) {
                const REAL *src = a + (i0 + r) * lda;
                if (r < rows) {
                    for (wf_size p = 0; p < kc; ++p) pack[p * MR + r] = src[p];
                } else {
                    for (wf_size p = 0; p < kc; ++p) pack[p * MR + r] = 0;
                }
            }
        }
    }
}

/* op(B)[0:kc, 0:nc] -> NR-column panels: panel q holds, for each p, the NR values op(B)[p, q*NR + c]. */
static void NAME(pack_b)(int trans, wf_size kc, wf_size nc, const REAL *b, wf_size ldb, REAL *pack) {
    for (wf_size j0 = 0; j0 < nc; j0 += NR, pack += NR * kc) {
        wf_size cols = WF_MIN(NR, nc - j0);
#ifdef GEMM_PACK_ROWS4
        if (trans) {  /* NR == 8 rows of b (columns of op(B)), contiguous along p: two groups of four */
            const REAL *row[8];
            for (int c = 0; c < 8; ++c) row[c] = b + (j0 + WF_MIN(c, cols - 1)) * ldb;
            NAME(pack_rows4)(row[0], row[1], row[2], row[3], kc, pack, NR);
            NAME(pack_rows4)(row[4], row[5], row[6], row[7], kc, pack + 4, NR);
            continue;
        }
#endif
        if (!trans) {  /* op(B) rows are contiguous: copy NR neighbours per p (two vectors when full) */
            for (wf_size p = 0; p < kc; ++p) {
                const REAL *src = b + p * ldb + j0;
                if (cols == NR) {
                    VSTORE(pack + p * NR, VLOAD(src));
                    VSTORE(pack + p * NR + LANES, VLOAD(src + LANES));
                } else {
                    for (wf_size c = 0; c < NR; ++c) pack[p * NR + c] = c < cols ? src[c] : 0;
                }
            }
        } else {  /* op(B) columns are rows of b: read each along p, write with stride NR */
            for (wf_size c = 0; c < NR; ++c) {
                const REAL *src = b + (j0 + c) * ldb;
                if (c < cols) {
                    for (wf_size p = 0; p < kc; ++p) pack[p * NR + c] = src[p];
                } else {
                    for (wf_size p = 0; p < kc; ++p) pack[p * NR + c] = 0;
                }
            }
        }
    }
}

/* The micro-kernel: an MR x NR tile of C held in MR x 2 vector accumulators. Each step of p loads two
 * vectors of B, splats MR values of A, and does 2 * MR multiply-adds. The loop over r is unrolled by the
 * compiler (MR is a constant) and `tile` lives in registers. Per PLATFORM.md, V8 keeps 8 accumulators
 * (MR = 4) in registers but spills beyond, and the k-loop is not unrolled by hand. */
static void NAME(micro_kernel)(wf_size kc, const REAL *restrict ap, const REAL *restrict bp, REAL alpha,
                               REAL beta, REAL *c, wf_size ldc, wf_size rows, wf_size cols) {
    VEC tile[MR][2];
    for (int r = 0; r < MR; ++r) tile[r][0] = tile[r][1] = (VEC){0};
    for (wf_size p = 0; p < kc; ++p, ap += MR, bp += NR) {
        VEC b0 = VLOAD(bp), b1 = VLOAD(bp + LANES);
        for (int r = 0; r < MR; ++r) {  /* unrolled by the compiler: MR is a constant */
            VEC a = VSPLAT(ap[r]);
            tile[r][0] = VMADD(a, b0, tile[r][0]);
            tile[r][1] = VMADD(a, b1, tile[r][1]);
        }
    }
    if (rows == MR && cols == NR) {
        for (wf_size r = 0; r < MR; ++r) {
            REAL *row = c + r * ldc;
            VEC lo = tile[r][0] * alpha, hi = tile[r][1] * alpha;
            if (beta != 0) {  /* beta == 0 never reads C (it may hold garbage or NaN), as BLAS */
                lo += VLOAD(row) * beta;
                hi += VLOAD(row + LANES) * beta;
            }
            VSTORE(row, lo);
            VSTORE(row + LANES, hi);
        }
        return;
    }
    REAL flat[MR * NR];
    for (wf_size r = 0; r < MR; ++r) {
        VSTORE(flat + r * NR, tile[r][0]);
        VSTORE(flat + r * NR + LANES, tile[r][1]);
    }
    for (wf_size r = 0; r < rows; ++r) {
        for (wf_size j = 0; j < cols; ++j) {
            REAL value = alpha * flat[r * NR + j];
            c[r * ldc + j] = beta != 0 ? value + beta * c[r * ldc + j] : value;
        }
    }
}

/* C = beta * C (the whole product is zero when k == 0 or alpha == 0). */
static void NAME(scale)(wf_size m, wf_size n, REAL beta, REAL *c, wf_size ldc) {
    for (wf_size i = 0; i < m; ++i) {
        for (wf_size j = 0; j < n; ++j) c[i * ldc + j] = beta != 0 ? beta * c[i * ldc + j] : 0;
    }
}

WF_EXPORT void NAME(wf_gemm)(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, REAL alpha,
                             const REAL *a, wf_size lda, const REAL *b, wf_size ldb, REAL beta, REAL *c,
                             wf_size ldc) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0 || alpha == 0) {
        NAME(scale)(m, n, beta, c, ldc);
        return;
    }
    REAL *pack_a = NAME(packed_a), *pack_b = NAME(packed_b);
    for (wf_size jc = 0; jc < n; jc += GEMM_NC) {
        wf_size nc = WF_MIN(GEMM_NC, n - jc);
        for (wf_size pc = 0; pc < k; pc += GEMM_KC) {
            wf_size kc = WF_MIN(GEMM_KC, k - pc);
            REAL block_beta = pc == 0 ? beta : 1;  /* later k-slices accumulate onto the first */
            NAME(pack_b)(trans_b, kc, nc, trans_b ? b + jc * ldb + pc : b + pc * ldb + jc, ldb, pack_b);
            for (wf_size ic = 0; ic < m; ic += GEMM_MC) {
                wf_size mc = WF_MIN(GEMM_MC, m - ic);
                NAME(pack_a)(trans_a, mc, kc, trans_a ? a + pc * lda + ic : a + ic * lda + pc, lda, pack_a);
                for (wf_size jr = 0; jr < nc; jr += NR) {
                    for (wf_size ir = 0; ir < mc; ir += MR) {
                        NAME(micro_kernel)(kc, pack_a + ir * kc, pack_b + jr * kc, alpha, block_beta,
                                           c + (ic + ir) * ldc + jc + jr, ldc, WF_MIN(MR, mc - ir),
                                           WF_MIN(NR, nc - jr));
                    }
                }
            }
        }
    }
}

/* batch independent GEMMs; matrix t of each operand starts stride_* elements after matrix t - 1
 * (stride 0 broadcasts one matrix over the batch, as BatchMatMulV2 does for a batch-1 operand). */
WF_EXPORT void NAME(wf_gemm_batched)(int trans_a, int trans_b, wf_size m, wf_size n, wf_size k, REAL alpha,
                                     const REAL *a, wf_size lda, wf_size stride_a, const REAL *b, wf_size ldb,
                                     wf_size stride_b, REAL beta, REAL *c, wf_size ldc, wf_size stride_c,
                                     wf_size batch) {
    for (wf_size t = 0; t < batch; ++t) {
        NAME(wf_gemm)(trans_a, trans_b, m, n, k, alpha, a + t * stride_a, lda, b + t * stride_b, ldb, beta,
                      c + t * stride_c, ldc);
    }
}

#undef MR
#undef NR
#undef GEMM_PACK_ROWS4
