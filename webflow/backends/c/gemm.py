"""C signatures of the GEMM kernels (webflow/wasm/gemm.c), declared once for c_library.function().

    wf_gemm_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        C = alpha * op(A) op(B) + beta * C, row-major; op(X) = X^T when trans_x is 1
    wf_gemm_batched_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                        beta, c, ldc, stride_c, batch)
<t> is f32 (float) or f64 (double); pointers are passed as ints from c_library.address().

And float32 products with a thin side (webflow/wasm/gemm_thin.c), on threads of the C library (parallel.c):
    wf_gemm_thin_columns() -> n must be a multiple of it;  wf_gemm_few_rows_workspace() -> floats of `work`
    wf_gemm_few_rows_f32(m, n, k, a, b, c, work, threads) C = A B for a few rows m, on `threads` threads
    wf_gemm_outer_f32(m, n, k, a, b, c, threads)          C = A^T B, A [k, m], for a short k
    wf_gemm_few_rows_transposed_workspace(m, k) -> floats of `work` for
    wf_gemm_few_rows_transposed_f32(m, n, k, a, b, c, work, threads)  C = A B^T, B [n, k], for a few rows m
"""

from __future__ import annotations

from webflow.backends.c.library import F32, F64, INT, PTR, SIZE, VOID, declare

for _suffix, _real in (("f32", F32), ("f64", F64)):
    declare(f"wf_gemm_{_suffix}", [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, PTR, SIZE, _real, PTR, SIZE], VOID)
    declare(
        f"wf_gemm_batched_{_suffix}",
        [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, SIZE, PTR, SIZE, SIZE, _real, PTR, SIZE, SIZE, SIZE],
        VOID,
    )
declare("wf_gemm_thin_columns", [], SIZE)
declare("wf_gemm_few_rows_workspace", [], SIZE)
declare("wf_gemm_few_rows_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, PTR, SIZE], VOID)
declare("wf_gemm_outer_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, SIZE], VOID)
declare("wf_gemm_few_rows_transposed_workspace", [SIZE, SIZE], SIZE)
declare("wf_gemm_few_rows_transposed_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, PTR, SIZE], VOID)
