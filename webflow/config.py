"""`wf.config`: engine settings. Here: which backend runs the kernels (NumPy, native C, or WASM-SIMD).

    wf.config.set_backend("native")   # every op with a C kernel uses it (also: env WEBFLOW_BACKEND=native)
    wf.config.set_backend("auto")     # back to the automatic per-op, per-size choice
    wf.config.get_backend()           # 'auto', 'numpy', 'native' or 'wasm'

(TensorFlow's tf.config places ops on devices; webflow has one CPU device and chooses kernels instead.)
"""

from webflow.backends.selection import BACKENDS, get_backend, set_backend

__all__ = ["BACKENDS", "get_backend", "set_backend"]
