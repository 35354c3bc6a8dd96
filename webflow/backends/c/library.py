"""The C kernels, loaded with ctypes: a native shared library in CPython, the wasm side module in Pyodide.

    from webflow.backends.c import library as c
    c.declare("wf_gemm_f32", [c.INT, c.INT, c.SIZE, c.SIZE, c.SIZE, c.F32, c.PTR, ...], c.VOID)
    if c.available():
        c.function("wf_gemm_f32")(0, 0, m, n, k, 1.0, c.address(a), ...)

- `declare(name, argtypes, restype)`: each kernel family states its C signatures once, in its own module;
  the signature is applied when the function is first fetched, so declaring never loads anything.
- `library()` builds the native library on first use (cached under webflow/wasm/_build, rebuilt when a
  source changes; see webflow/wasm/build.py) and loads it once. Inside Pyodide it loads a prebuilt side
  module with `ctypes.CDLL` (Emscripten's dlopen shares Pyodide's memory, so pointers from Python buffers
  are valid inside the kernels): webflow_kernels_relaxed.wasm when the JS engine has relaxed SIMD (a tiny
  probe module passes `WebAssembly.validate`: Chromium; Node 20 with --experimental-wasm-relaxed-simd),
  else webflow_kernels.wasm. `wasm_variant()` says which; env WEBFLOW_WASM_RELAXED=0/1 forces one.
  Env WEBFLOW_C_LIBRARY=<path> loads that native library instead of building one (the AddressSanitizer
  build of `make test-asan`, tools/test_asan.py); `library_path()` says which file was loaded.
  No compiler: `available()` is False, the reason is in `unavailable_reason()`, and callers use NumPy.
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
ENV_LIBRARY = "WEBFLOW_C_LIBRARY"  # path of a prebuilt native library to load instead of building (make test-asan)
ENV_RELAXED = "WEBFLOW_WASM_RELAXED"  # Pyodide: 1 = the relaxed-SIMD module (error if it cannot load), 0 = baseline
BASELINE, RELAXED = "simd128", "relaxed-simd"  # the two wasm module variants (wasm_variant())

# The smallest module that uses relaxed SIMD: one function (v128, v128, v128) -> v128 returning
# f32x4.relaxed_madd of its parameters (opcode 0xfd 0x105, the final encoding that clang >= 16 emits).
# An engine without relaxed SIMD rejects it, so WebAssembly.validate(probe) is the feature test.
RELAXED_SIMD_PROBE = bytes([
    0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00,          # "\0asm", version 1
    0x01, 0x08, 0x01, 0x60, 0x03, 0x7B, 0x7B, 0x7B, 0x01, 0x7B,  # type section: (v128 v128 v128) -> v128
    0x03, 0x02, 0x01, 0x00,                                  # function section: one function of type 0
    0x0A, 0x0D, 0x01, 0x0B, 0x00,                            # code section: one body of 11 bytes, no locals
    0x20, 0x00, 0x20, 0x01, 0x20, 0x02,                      #   local.get 0, 1, 2
    0xFD, 0x85, 0x02, 0x0B,                                  #   f32x4.relaxed_madd (LEB128 0x105), end
])

_declarations: dict[str, tuple[list[Any], Any]] = {}
_functions: dict[str, Any] = {}
_lock = threading.Lock()
_state: dict[str, Any] = {"library": None, "error": None, "tried": False, "variant": None, "path": None}


class CLibraryUnavailable(RuntimeError):
    """The C kernels cannot be used here (no compiler, build failed, or disabled); use NumPy."""


def declare(name: str, argtypes: list[Any], restype: Any = VOID) -> None:
    """Record the C signature of kernel `name` (applied when it is first fetched with function())."""
    previous = _declarations.get(name)
    if previous is not None and previous != (list(argtypes), restype):
        raise ValueError(f"C kernel {name} declared twice with different signatures")
    _declarations[name] = (list(argtypes), restype)


declare("wf_parallel_workers", [], SIZE)  # worker threads the library has started (wasm/parallel.c; tests)
# [jobs posted to workers, taken back unstarted, crowded decisions] so far (wasm/parallel.c; benchmarks, tests)
declare("wf_parallel_counts", [PTR], VOID)


def declared() -> list[str]:
    """Names of all declared kernels (for tests and `log_device_placement`)."""
    return sorted(_declarations)


def engine_has_relaxed_simd() -> bool:
    """Inside Pyodide: does the JS engine accept relaxed-SIMD instructions? (False outside Pyodide.)"""
    if not IN_PYODIDE:
        return False
    try:
        from js import WebAssembly  # Pyodide's bridge to the JS globals
        from pyodide.ffi import to_js  # bytes -> Uint8Array
        return bool(WebAssembly.validate(to_js(RELAXED_SIMD_PROBE)))
    except Exception:  # noqa: BLE001  (no js module or no WebAssembly global: assume the baseline)
        return False


def choose_wasm_module(setting: str | None, engine_relaxed: bool, relaxed_shipped: bool) -> tuple[str, str]:
    """(variant, path) of the side module to load, from env WEBFLOW_WASM_RELAXED ('0', '1' or unset),
    whether the engine validates relaxed SIMD and whether webflow_kernels_relaxed.wasm is in the package."""
    if setting == "1":
        if not relaxed_shipped:
            raise CLibraryUnavailable(f"webflow: {ENV_RELAXED}=1 but webflow_kernels_relaxed.wasm is not in the "
                                      "package; using the NumPy kernels")
        if not engine_relaxed:
            raise CLibraryUnavailable(f"webflow: {ENV_RELAXED}=1 but this JS engine has no relaxed SIMD; "
                                      "using the NumPy kernels")
        return RELAXED, build.WASM_RELAXED_OUTPUT
    if setting != "0" and engine_relaxed and relaxed_shipped:
        return RELAXED, build.WASM_RELAXED_OUTPUT
    return BASELINE, build.WASM_OUTPUT


def _load() -> Any:
    if os.environ.get(ENV_DISABLE):
        raise CLibraryUnavailable(f"webflow: C kernels disabled by {ENV_DISABLE}; using the NumPy kernels")
    if IN_PYODIDE:  # no compiler in the browser: the modules ship prebuilt
        variant, path = choose_wasm_module(os.environ.get(ENV_RELAXED), engine_has_relaxed_simd(),
                                           os.path.exists(build.WASM_RELAXED_OUTPUT))
        if not os.path.exists(path):
            raise CLibraryUnavailable("webflow: webflow_kernels.wasm is not in the package; using the NumPy kernels")
        _state["variant"] = variant
    elif os.environ.get(ENV_LIBRARY):  # e.g. the sanitised build: never built here, loaded as given
        path = os.environ[ENV_LIBRARY]
    else:
        try:
            path = build.build_native()
        except (build.CompilerNotFound, build.BuildFailed) as error:
            raise CLibraryUnavailable(str(error).splitlines()[0]) from error
    try:
        loaded = ctypes.CDLL(path)
    except OSError as error:
        raise CLibraryUnavailable(f"webflow: cannot load {path}: {error}") from error
    _state["path"] = path
    return loaded


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


def library_path() -> str | None:
    """The file the C kernels were loaded from (None when there are none)."""
    return _state["path"] if available() else None


def backend_name() -> str:
    """How the kernels run here: 'WASM-SIMD' inside Pyodide, 'native C' elsewhere."""
    return "WASM-SIMD" if IN_PYODIDE else "native C"


def wasm_variant() -> str | None:
    """Inside Pyodide, which side module runs: 'relaxed-simd' (fused multiply-add GEMM) or 'simd128';
    None natively or when no C library is loaded."""
    return _state["variant"] if available() else None


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
    "declare", "declared", "library", "library_path", "available", "unavailable_reason", "backend_name", "function",
    "wasm_variant", "engine_has_relaxed_simd", "choose_wasm_module", "BASELINE", "RELAXED", "RELAXED_SIMD_PROBE",
    "address", "float_array", "double_array",
]
