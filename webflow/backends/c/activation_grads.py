"""C signatures of TanhGrad and SigmoidGrad (webflow/wasm/activation_grads.c), declared for c_library.

    wf_tanh_grad_<t>(y, dy, z, n)       z = dy * (1 - y * y)
    wf_sigmoid_grad_<t>(y, dy, z, n)    z = dy * (y * (1 - y))      (t = f32, f64; contiguous)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends.c.activations import same_shapes
from webflow.backends.c.adapters import FLOATS, Unsupported, c_kernel, call_sliced, contiguous, empty_like, fn, suffix
from webflow.backends.c.library import PTR, SIZE, VOID, declare

for _suffix in ("f32", "f64"):
    for _name in ("tanh_grad", "sigmoid_grad"):
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, PTR, SIZE], VOID)


def built_in(name: str) -> None:
    """Unsupported (so the op falls back to its other kernel) when a prebuilt library predates the kernel: a shipped
    wasm module not yet rebuilt with `python -m webflow.wasm.build --wasm`."""
    try:
        fn(name)
    except AttributeError:
        raise Unsupported(f"{name} is not in this build of the C kernels") from None


def _grad_adapter(stem: str, op_type: str) -> Callable:
    def adapter(y: Any, dy: Any) -> Any:
        c_suffix = suffix(y, FLOATS)
        built_in(f"wf_{stem}_{c_suffix}")
        if dy.dtype != y.dtype:
            raise Unsupported("dtypes")
        same_shapes(op_type, y, dy)
        y, dy = contiguous(y), contiguous(dy)
        z = empty_like(y)
        call_sliced(f"wf_{stem}_{c_suffix}", [y, dy, z], z.size)
        return z

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: {op_type}(y, dy), elementwise."
    return adapter


# min_size None: NumPy runs them in CPython. Its three AVX-512 passes tie with the one C pass at every size measured
# (one thread, us, NumPy / C adapter: [20, 200] 3.5 / 8.7, 64k 12.5 / 12.8, 1M 675 / 599, noisy) because the ctypes call
# and the adapter's checks cost ~5 us; the C kernels run where NumPy is missing (Pyodide) or when forced.
tanh_grad = c_kernel(dtypes=FLOATS)(_grad_adapter("tanh_grad", "TanhGrad"))
sigmoid_grad = c_kernel(dtypes=FLOATS)(_grad_adapter("sigmoid_grad", "SigmoidGrad"))
