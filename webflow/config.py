"""`wf.config`: engine settings. Here: which backend runs the kernels (NumPy, native C, or WASM-SIMD).

    wf.config.set_backend("native")   # every op with a C kernel uses it (also: env WEBFLOW_BACKEND=native)
    wf.config.set_backend("auto")     # back to the automatic per-op, per-size choice
    wf.config.get_backend()           # 'auto', 'numpy', 'native' or 'wasm'

(TensorFlow's tf.config places ops on devices; webflow has one CPU device and chooses kernels instead:
`list_physical_devices()` / `list_logical_devices()` name that one CPU, as TensorFlow's do on a machine without
a GPU, so that programs which check for a GPU first run unchanged.)
"""

import collections
import types

from webflow.backends.selection import BACKENDS, get_backend, set_backend

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


def list_physical_devices(device_type: str | None = None) -> list:
    """`tf.config.list_physical_devices`: the one CPU (empty for 'GPU', 'TPU' ...)."""
    if device_type not in (None, "CPU"):   # case-sensitive, as in TensorFlow
        return []
    return [PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")]


def list_logical_devices(device_type: str | None = None) -> list:
    if device_type not in (None, "CPU"):   # case-sensitive, as in TensorFlow
        return []
    return [LogicalDevice(name="/device:CPU:0", device_type="CPU")]


def _set_memory_growth(device: PhysicalDevice, enable: bool) -> None:
    raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")   # TensorFlow's words on a CPU


experimental = types.SimpleNamespace(list_physical_devices=list_physical_devices,
                                     list_logical_devices=list_logical_devices, set_memory_growth=_set_memory_growth)

__all__ = ["BACKENDS", "get_backend", "set_backend", "list_physical_devices", "list_logical_devices",
           "PhysicalDevice", "LogicalDevice", "experimental"]
