"""The kernel suite inside Pyodide: webflow's wasm side module, loaded by c_library with ctypes.CDLL in
Pyodide (Node 20 + npm `pyodide`, offline), on every kernel family, against NumPy references.

Pyodide here has no NumPy, so the work is split: pytest (CPython + NumPy) builds each case's inputs and
references (tests/pyodide/kernel_cases_*.py, which reuse the shapes and oracles of tests/kernels/test_c_*.py),
one long-lived Node + Pyodide process (tests/pyodide/pyodide_server.mjs) runs the calls through
webflow.backends.c_library and the c_* declarations on plain bytearray buffers, and pytest compares.
Every case also runs on the native library (`native` ids), so a failure tells the wasm build from the case.

Needs: node + `npm ci` in tests/pyodide (`make test` does it), clang + wasm-ld to build the module.
Skips, with the reason, only when one of those is missing.
"""

from __future__ import annotations

import os
import shutil
import sys
import time

import pytest

from webflow.backends import c_library
from webflow.wasm import build

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyodide"))
from kernel_cases_activation import activation_cases  # noqa: E402
from kernel_cases_dense import dense_cases  # noqa: E402
from kernel_cases_pointwise import pointwise_cases  # noqa: E402
from kernel_cases_random import random_cases  # noqa: E402
from kernel_cases_state import state_cases  # noqa: E402
from kernel_cases_windows import window_cases  # noqa: E402
from kernel_jobs import NativeRunner  # noqa: E402
from pyodide_session import PyodideSession, PyodideUnavailable  # noqa: E402

PACKAGE = os.path.dirname(os.path.abspath(build.__file__)).rsplit(os.sep, 1)[0]   # .../webflow
CASES = {**dense_cases(), **pointwise_cases(), **state_cases(), **activation_cases(), **window_cases(),
         **random_cases()}


@pytest.fixture(scope="session")
def pyodide():
    """One Node + Pyodide process for the whole session, with a freshly built webflow_kernels.wasm."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: cannot run Pyodide (CI installs Node 20)")
    try:
        build.build_wasm()
    except build.CompilerNotFound as error:
        pytest.skip(f"wasm module not built: {error}")
    try:
        session = PyodideSession.start(PACKAGE)
    except PyodideUnavailable as error:
        pytest.skip(f"Pyodide unavailable: {error}")
    started = time.perf_counter()
    yield session
    session.close()
    print(f"\nPyodide: boot {session.boot_seconds:.2f} s, webflow copied in + runner imported "
          f"{session.setup_seconds:.2f} s, tests {time.perf_counter() - started:.1f} s")


@pytest.fixture(scope="session")
def native():
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    return NativeRunner()


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_case_in_pyodide(pyodide, name):
    case = CASES[name]()
    results, outputs = pyodide.run(case.job)
    case.verify(results, outputs)


@pytest.mark.parametrize("name", list(CASES))
def test_kernel_case_native(native, name):
    case = CASES[name]()
    results, outputs = native.run(case.job)
    case.verify(results, outputs)


def test_c_library_loads_the_wasm_side_module_without_numpy(pyodide):
    """Inside Pyodide: NumPy cannot be imported, c_library finds the shipped .wasm and reports WASM-SIMD,
    every declared kernel is exported by the module, and a GEMM on array.array buffers is right."""
    answer = pyodide.evaluate("""
import ctypes, importlib.util, sys
from webflow.backends import c_library, c_gemm
from webflow.wasm import build
a, b, out = c.float_array([1, 2, 3, 4, 5, 6]), c.float_array([1, 0, 0, 1, 1, 1]), c.float_array(4)
c.function("wf_gemm_f32")(0, 0, 2, 2, 3, 1.0, c.address(a), 3, c.address(b), 2, 0.0, c.address(out), 2)
missing = [name for name in c.declared() if not hasattr(c.library(), name)]
{"platform": sys.platform, "numpy": importlib.util.find_spec("numpy") is not None, "in_pyodide": c.IN_PYODIDE,
 "available": c.available(), "backend": c.backend_name(), "path": build.WASM_OUTPUT,
 "library": type(c.library()).__name__, "missing": missing, "declared": len(c.declared()), "gemm": list(out),
 "size_bytes": ctypes.sizeof(c.SIZE)}
""")
    assert answer["platform"] == "emscripten" and answer["in_pyodide"] is True
    assert answer["numpy"] is False                        # the kernels run without NumPy
    assert answer["available"] is True and answer["backend"] == "WASM-SIMD"
    assert answer["path"].endswith("/webflow/wasm/webflow_kernels.wasm") and answer["library"] == "CDLL"
    assert answer["missing"] == [] and answer["declared"] > 100
    assert answer["size_bytes"] == 4                       # wf_size is 32-bit on wasm32
    assert answer["gemm"] == [4.0, 5.0, 10.0, 11.0]
