"""C signatures of the GEMM kernels (webflow/wasm/gemm.c), declared once for c_library.function().

    wf_gemm_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        C = alpha * op(A) op(B) + beta * C, row-major; op(X) = X^T when trans_x is 1
    wf_gemm_batched_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                        beta, c, ldc, stride_c, batch)
<t> is f32 (float) or f64 (double); pointers are passed as ints from c_library.address().
"""

from __future__ import annotations

from webflow.backends.c_library import F32, F64, INT, PTR, SIZE, VOID, declare

for _suffix, _real in (("f32", F32), ("f64", F64)):
    declare(f"wf_gemm_{_suffix}", [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, PTR, SIZE, _real, PTR, SIZE], VOID)
    declare(
        f"wf_gemm_batched_{_suffix}",
        [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, SIZE, PTR, SIZE, SIZE, _real, PTR, SIZE, SIZE, SIZE],
        VOID,
    )
