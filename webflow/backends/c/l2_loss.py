"""C signature of the one-pass float32 L2Loss (webflow/wasm/l2_loss.c), and L2Loss's C adapter.

    wf_l2_loss_f32(x, n) -> sum(x^2) / 2

Float32 tensors from MIN_ELEMENTS run it: NumPy's kernel squares into a temporary as large as the tensor and sums
that (0.8 ms for a word LM's [200, 10000] gradient under tf.clip_by_global_norm). Smaller or other dtypes: NumPy's
kernel in CPython; without NumPy, the portable kernel.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c.adapters import Unsupported, c_kernel, contiguous, fn, ptr
from webflow.backends.c.library import F32, PTR, SIZE, declare

declare("wf_l2_loss_f32", [PTR, SIZE], F32)

MIN_ELEMENTS = 1 << 16  # below, the temporary stays in cache and NumPy's two passes cost a few us


@c_kernel(min_size=MIN_ELEMENTS)
def l2_loss(t: Any) -> Any:
    """wf_l2_loss_f32: sum(t ** 2) / 2 in one pass (float32, from MIN_ELEMENTS elements)."""
    if not HAVE_NUMPY or t.dtype.name != "float32" or t.size < MIN_ELEMENTS:
        raise Unsupported("NumPy's kernel (without NumPy: the portable one)")
    return np.asarray(np.float32(fn("wf_l2_loss_f32")(ptr(contiguous(t)), t.size)))
