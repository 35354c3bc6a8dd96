"""The kernel suite inside Pyodide: webflow's wasm side module, loaded by c_library with ctypes.CDLL in
Pyodide (Node 20 + npm `pyodide`, offline), on every kernel family, against NumPy references.

Pyodide here has no NumPy, so the work is split: pytest (CPython + NumPy) builds each case's inputs and
references (tests/pyodide/kernel_cases_*.py, which reuse the shapes and oracles of tests/kernels/test_c_*.py),
one long-lived Node + Pyodide process (tests/pyodide/pyodide_server.mjs) runs the calls through
webflow.backends.c.library and the c_* declarations on plain bytearray buffers, and pytest compares.
Every case also runs on the native library (`native` ids), so a failure tells the wasm build from the case.
Both side modules run the suite, each in its own Node process: `simd128` (webflow_kernels.wasm, Node as
is) and `relaxed-simd` (webflow_kernels_relaxed.wasm, Node started with --experimental-wasm-relaxed-simd);
c_library picks the module by probing the engine, and each session checks it picked the expected one.
The relaxed module differs only in the GEMM's fused multiply-add: the same tolerances hold (they already
cover the native FMA build), and the bit-exact families (optimizers, Philox, casts) must stay bit-exact.

Needs: node + `npm ci` in tests/pyodide (`make test` does it), clang + wasm-ld to build the module, and
clang >= 16 for the relaxed one (apt clang-16 lld-16). Skips, with the reason, only when one of those is
missing (the relaxed variant fails instead under WEBFLOW_REQUIRE_BROWSER=1, as `make test` runs).
"""

from __future__ import annotations

import os
import shutil
import sys
import time

import pytest

from webflow.backends.c import library as c_library
from webflow.wasm import build

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pyodide"))
from conftest import require_or_skip  # noqa: E402
from kernel_cases_activation import activation_cases  # noqa: E402
from kernel_cases_dense import dense_cases  # noqa: E402
from kernel_cases_pointwise import pointwise_cases  # noqa: E402
from kernel_cases_random import random_cases  # noqa: E402
from kernel_cases_state import state_cases  # noqa: E402
from kernel_cases_strips import strips_cases  # noqa: E402
from kernel_cases_windows import window_cases  # noqa: E402
from kernel_jobs import NativeRunner  # noqa: E402
from pyodide_session import PyodideSession, PyodideUnavailable  # noqa: E402

PACKAGE = os.path.dirname(os.path.abspath(build.__file__)).rsplit(os.sep, 1)[0]   # .../webflow
CASES = {**dense_cases(), **pointwise_cases(), **state_cases(), **activation_cases(), **window_cases(),
         **random_cases(), **strips_cases()}


NODE_FLAGS = {c_library.BASELINE: [], c_library.RELAXED: ["--experimental-wasm-relaxed-simd"]}


@pytest.fixture(scope="session", params=list(NODE_FLAGS))
def pyodide(request):
    """One Node + Pyodide process per module variant for the whole session, with freshly built modules."""
    variant = request.param
    if shutil.which("node") is None:
        pytest.skip("node is not installed: cannot run Pyodide (CI installs Node 20)")
    try:
        build.build_wasm()
    except build.CompilerNotFound as error:
        pytest.skip(f"wasm module not built: {error}")
    if variant == c_library.RELAXED:
        try:
            build.build_wasm(relaxed=True)
        except build.CompilerNotFound as error:
            require_or_skip(str(error))
    try:
        session = PyodideSession.start(PACKAGE, node_flags=NODE_FLAGS[variant])
    except PyodideUnavailable as error:
        pytest.skip(f"Pyodide unavailable: {error}")
    # The module is chosen on first use by probing the engine. A Node whose V8 has relaxed SIMD without the
    # flag (Node >= 22) would pick the relaxed module in the baseline session too: force the baseline there.
    loaded = session.evaluate(f"""
import os
from webflow.backends.c import library as c
if {variant == c_library.BASELINE} and c.engine_has_relaxed_simd():
    os.environ[c.ENV_RELAXED] = "0"
[c.engine_has_relaxed_simd(), c.wasm_variant()]
""")
    engine_relaxed, loaded_variant = loaded
    if variant == c_library.RELAXED:
        assert engine_relaxed, "node --experimental-wasm-relaxed-simd: the probe module did not validate"
    assert loaded_variant == variant, f"the {variant} session loaded the {loaded_variant} module"
    session.variant = variant
    started = time.perf_counter()
    yield session
    session.close()
    print(f"\nPyodide ({variant}): boot {session.boot_seconds:.2f} s, webflow copied in + runner imported "
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
from webflow.backends.c import library as c_library
from webflow.backends.c import gemm as c_gemm
from webflow.wasm import build
a, b, out = c.float_array([1, 2, 3, 4, 5, 6]), c.float_array([1, 0, 0, 1, 1, 1]), c.float_array(4)
c.function("wf_gemm_f32")(0, 0, 2, 2, 3, 1.0, c.address(a), 3, c.address(b), 2, 0.0, c.address(out), 2)
missing = [name for name in c.declared() if not hasattr(c.library(), name)]
{"platform": sys.platform, "numpy": importlib.util.find_spec("numpy") is not None, "in_pyodide": c.IN_PYODIDE,
 "available": c.available(), "backend": c.backend_name(), "path": c.library()._name,
 "library": type(c.library()).__name__, "missing": missing, "declared": len(c.declared()), "gemm": list(out),
 "size_bytes": ctypes.sizeof(c.SIZE)}
""")
    assert answer["platform"] == "emscripten" and answer["in_pyodide"] is True
    assert answer["numpy"] is False                        # the kernels run without NumPy
    assert answer["available"] is True and answer["backend"] == "WASM-SIMD"
    module = "webflow_kernels_relaxed.wasm" if pyodide.variant == c_library.RELAXED else "webflow_kernels.wasm"
    assert answer["path"].endswith(f"/webflow/wasm/{module}") and answer["library"] == "CDLL"
    assert answer["missing"] == [] and answer["declared"] > 100
    assert answer["size_bytes"] == 4                       # wf_size is 32-bit on wasm32
    assert answer["gemm"] == [4.0, 5.0, 10.0, 11.0]
