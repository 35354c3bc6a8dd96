"""The C kernels, loaded with ctypes: a native shared library in CPython, the wasm side module in Pyodide.

    from webflow.backends import c_library as c
    c.declare("wf_gemm_f32", [c.INT, c.INT, c.SIZE, c.SIZE, c.SIZE, c.F32, c.PTR, ...], c.VOID)
    if c.available():
        c.function("wf_gemm_f32")(0, 0, m, n, k, 1.0, c.address(a), ...)

- `declare(name, argtypes, restype)`: each kernel family states its C signatures once, in its own module;
  the signature is applied when the function is first fetched, so declaring never loads anything.
- `library()` builds the native library on first use (cached under webflow/wasm/_build, rebuilt when a
  source changes; see webflow/wasm/build.py) and loads it once. Inside Pyodide it loads
  webflow/wasm/webflow_kernels.wasm with `ctypes.CDLL` (Emscripten's dlopen shares Pyodide's memory,
  so pointers from Python buffers are valid inside the kernels). No compiler: `available()` is False,
  the reason is in `unavailable_reason()`, and callers use the NumPy kernels.
- Buffers: `address(x)` is the pointer to pass for a NumPy array (zero-copy), an `array.array`, a ctypes
  array or any writable buffer; `float_array(n)` / `double_array(n)` allocate without NumPy.
This module imports without NumPy (Pyodide may not have it).
"""

from __future__ import annotations

import array
import ctypes
import os
import sys
import threading
from typing import Any

from webflow.wasm import build

# C types used in kernel signatures (see webflow/wasm/webflow_kernels.h).
PTR = ctypes.c_void_p  # any data pointer: pass an int from address()
SIZE = ctypes.c_ssize_t  # wf_size = ptrdiff_t: 64-bit natively, 32-bit on wasm32
INT = ctypes.c_int
F32 = ctypes.c_float
F64 = ctypes.c_double
VOID = None

IN_PYODIDE = sys.platform == "emscripten"
ENV_DISABLE = "WEBFLOW_DISABLE_C"  # set to 1 to force the NumPy kernels

_declarations: dict[str, tuple[list[Any], Any]] = {}
_functions: dict[str, Any] = {}
_lock = threading.Lock()
_state: dict[str, Any] = {"library": None, "error": None, "tried": False}


class CLibraryUnavailable(RuntimeError):
    """The C kernels cannot be used here (no compiler, build failed, or disabled); use NumPy."""


def declare(name: str, argtypes: list[Any], restype: Any = VOID) -> None:
    """Record the C signature of kernel `name` (applied when it is first fetched with function())."""
    previous = _declarations.get(name)
    if previous is not None and previous != (list(argtypes), restype):
        raise ValueError(f"C kernel {name} declared twice with different signatures")
    _declarations[name] = (list(argtypes), restype)


def declared() -> list[str]:
    """Names of all declared kernels (for tests and `log_device_placement`)."""
    return sorted(_declarations)


def _load() -> Any:
    if os.environ.get(ENV_DISABLE):
        raise CLibraryUnavailable(f"webflow: C kernels disabled by {ENV_DISABLE}; using the NumPy kernels")
    if IN_PYODIDE:
        path = build.WASM_OUTPUT  # no compiler in the browser: the module ships prebuilt
        if not os.path.exists(path):
            raise CLibraryUnavailable("webflow: webflow_kernels.wasm is not in the package; using the NumPy kernels")
    else:
        try:
            path = build.build_native()
        except (build.CompilerNotFound, build.BuildFailed) as error:
            raise CLibraryUnavailable(str(error).splitlines()[0]) from error
    try:
        return ctypes.CDLL(path)
    except OSError as error:
        raise CLibraryUnavailable(f"webflow: cannot load {path}: {error}") from error


def library() -> Any:
    """The loaded ctypes library (built on first use); raises CLibraryUnavailable if there is none."""
    if not _state["tried"]:
        with _lock:
            if not _state["tried"]:
                try:
                    _state["library"] = _load()
                except CLibraryUnavailable as error:
                    _state["error"] = str(error)
                _state["tried"] = True
    if _state["library"] is None:
        raise CLibraryUnavailable(_state["error"])
    return _state["library"]


def available() -> bool:
    """True when the C kernels are loaded (building them now if needed)."""
    try:
        library()
    except CLibraryUnavailable:
        return False
    return True


def unavailable_reason() -> str | None:
    """Why the C kernels are not available (one line), or None if they are."""
    return None if available() else _state["error"]


def backend_name() -> str:
    """How the kernels run here: 'WASM-SIMD' inside Pyodide, 'native C' elsewhere."""
    return "WASM-SIMD" if IN_PYODIDE else "native C"


def function(name: str) -> Any:
    """The C function `name` with its declared signature (KeyError if it was never declared)."""
    found = _functions.get(name)
    if found is not None:
        return found
    if name not in _declarations:
        raise KeyError(f"C kernel {name} was not declared: call c_library.declare({name!r}, argtypes, restype)")
    argtypes, restype = _declarations[name]
    found = getattr(library(), name)
    found.argtypes = argtypes
    found.restype = restype
    _functions[name] = found
    return found


# ------------------------------------------------------------------------------------- buffers
def address(buffer: Any) -> int:
    """The address of a buffer's first element, shared with the kernel (never a copy).

    Accepts a C-contiguous NumPy array (`ndarray.ctypes.data`), an `array.array` (`buffer_info`), a ctypes
    array or object, or any writable buffer (bytearray, writable memoryview). A read-only or strided
    buffer is refused: the kernel would read wrong elements or write where it must not.
    """
    if isinstance(buffer, array.array):
        return buffer.buffer_info()[0]
    if isinstance(buffer, ctypes._SimpleCData | ctypes.Array | ctypes.Structure):
        return ctypes.addressof(buffer)
    flags = getattr(buffer, "flags", None)
    if flags is not None and hasattr(buffer, "ctypes"):  # a NumPy array, without importing NumPy
        if not flags["C_CONTIGUOUS"]:
            raise ValueError("C kernels need C-contiguous arrays (use numpy.ascontiguousarray)")
        return buffer.ctypes.data
    view = memoryview(buffer)
    if not view.c_contiguous:
        raise ValueError("C kernels need C-contiguous buffers")
    if view.readonly:
        raise ValueError("address() of a read-only buffer: copy it into a bytearray or array.array first")
    return ctypes.addressof(ctypes.c_char.from_buffer(view)) if view.nbytes else 0


def float_array(size_or_values: Any) -> array.array:
    """A float32 buffer (array.array 'f'): zeros of a given size, or a copy of an iterable of numbers."""
    if isinstance(size_or_values, int):
        return array.array("f", bytes(4 * size_or_values))
    return array.array("f", size_or_values)


def double_array(size_or_values: Any) -> array.array:
    """A float64 buffer (array.array 'd'): zeros of a given size, or a copy of an iterable of numbers."""
    if isinstance(size_or_values, int):
        return array.array("d", bytes(8 * size_or_values))
    return array.array("d", size_or_values)


__all__ = [
    "PTR", "SIZE", "INT", "F32", "F64", "VOID", "IN_PYODIDE", "CLibraryUnavailable",
    "declare", "declared", "library", "available", "unavailable_reason", "backend_name", "function",
    "address", "float_array", "double_array",
]
