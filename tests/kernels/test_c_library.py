"""c_library: the loader works without NumPy, reports a missing compiler in one line, and keeps
declarations consistent. (The kernels themselves are tested in test_c_gemm/conv/pool.py.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from webflow.backends.c import library as c_library

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": REPO, **env}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=environment, timeout=300)


def test_loader_and_gemm_work_without_numpy():
    """NumPy is made unimportable; `webflow` is stubbed as a bare package so only the loader's own
    imports run (as in Pyodide without NumPy). A 2x3 . 3x2 product on array.array buffers."""
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    result = run_python(f"""
        import sys, types
        sys.modules["numpy"] = None  # any `import numpy` now raises ImportError
        package = types.ModuleType("webflow")
        package.__path__ = [{os.path.join(REPO, "webflow")!r}]
        sys.modules["webflow"] = package
        from webflow.backends.c import library as c
        from webflow.backends.c import gemm as c_gemm
        a, b, out = c.float_array([1, 2, 3, 4, 5, 6]), c.float_array([1, 0, 0, 1, 1, 1]), c.float_array(4)
        c.function("wf_gemm_f32")(0, 0, 2, 2, 3, 1.0, c.address(a), 3, c.address(b), 2, 0.0, c.address(out), 2)
        print(list(out), "numpy" in sys.modules and sys.modules["numpy"] is not None)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[4.0,", "5.0,", "10.0,", "11.0]", "False"]


def test_missing_compiler_gives_one_line_and_numpy_keeps_working(tmp_path):
    """No compiler and no cached library: available() is False with a one-line reason, and the NumPy
    kernels (the rest of webflow) still run."""
    result = run_python("""
        from webflow.wasm import build
        build.BUILD_DIR = build.os.path.join(r"{tmp}", "_build")  # an empty cache
        from webflow.backends.c import library as c_library
        import webflow as wf
        print(c_library.available())
        print(c_library.unavailable_reason())
        print(float(wf.reduce_sum(wf.constant([1.0, 2.0]))))
    """.replace("{tmp}", str(tmp_path)), CC="no-such-compiler-xyz", PATH=str(tmp_path),
        WEBFLOW_C_LIBRARY="")  # (make test-asan sets it: here the library must be built, and cannot be)
    assert result.returncode == 0, result.stderr
    available, reason, total = result.stdout.strip().splitlines()
    assert available == "False"
    assert "no C compiler" in reason and "NumPy" in reason
    assert float(total) == 3.0


def test_disable_switch():
    result = run_python("""
        from webflow.backends.c import library as c_library
        print(c_library.available(), c_library.unavailable_reason())
    """, WEBFLOW_DISABLE_C="1")
    assert result.stdout.startswith("False webflow: C kernels disabled by WEBFLOW_DISABLE_C")


def test_declarations_are_checked():
    c_library.declare("wf_test_only_kernel", [c_library.PTR, c_library.SIZE], c_library.INT)
    c_library.declare("wf_test_only_kernel", [c_library.PTR, c_library.SIZE], c_library.INT)  # same: fine
    with pytest.raises(ValueError, match="declared twice"):
        c_library.declare("wf_test_only_kernel", [c_library.PTR], c_library.INT)
    with pytest.raises(KeyError, match="was not declared"):
        c_library.function("wf_never_declared_kernel")


def test_address_refuses_read_only_and_strided_buffers():
    import numpy as np

    assert c_library.address(c_library.float_array(3)) != 0
    array = np.zeros(3, np.float32)
    assert c_library.address(array) == array.ctypes.data  # zero-copy: the array's own memory
    with pytest.raises(ValueError, match="contiguous"):
        c_library.address(np.zeros((4, 4), np.float32)[:, 1])
    with pytest.raises(ValueError, match="read-only"):
        c_library.address(b"abcd")


def test_wasm_module_choice_follows_the_engine_and_the_override():
    """Pyodide loads the relaxed-SIMD module only where the engine validates relaxed SIMD and the module
    shipped; WEBFLOW_WASM_RELAXED=0 forces the baseline, =1 demands the relaxed one (a clear error if it
    cannot run). Outside Pyodide there is no JS engine: the probe says False and there is no variant."""
    from webflow.wasm import build

    choose = c_library.choose_wasm_module
    relaxed, baseline = (c_library.RELAXED, build.WASM_RELAXED_OUTPUT), (c_library.BASELINE, build.WASM_OUTPUT)
    assert choose(None, engine_relaxed=True, relaxed_shipped=True) == relaxed
    assert choose(None, engine_relaxed=False, relaxed_shipped=True) == baseline
    assert choose(None, engine_relaxed=True, relaxed_shipped=False) == baseline
    assert choose("0", engine_relaxed=True, relaxed_shipped=True) == baseline
    assert choose("1", engine_relaxed=True, relaxed_shipped=True) == relaxed
    with pytest.raises(c_library.CLibraryUnavailable, match="no relaxed SIMD"):
        choose("1", engine_relaxed=False, relaxed_shipped=True)
    with pytest.raises(c_library.CLibraryUnavailable, match="not in the package"):
        choose("1", engine_relaxed=True, relaxed_shipped=False)
    assert c_library.engine_has_relaxed_simd() is False
    assert c_library.wasm_variant() is None


def test_relaxed_simd_probe_is_what_node_validates_only_with_the_flag(tmp_path):
    """The probe bytes are a valid module exactly when V8 has relaxed SIMD: Node 20 rejects it by default
    and accepts it with --experimental-wasm-relaxed-simd (a stray byte would fail both ways)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    script = tmp_path / "probe.mjs"
    script.write_text(f"console.log(WebAssembly.validate(new Uint8Array({list(c_library.RELAXED_SIMD_PROBE)})))")
    flagged = subprocess.run(["node", "--experimental-wasm-relaxed-simd", str(script)], capture_output=True,
                             text=True, timeout=60)
    assert flagged.stdout.strip() == "true", flagged.stderr
    version = subprocess.run(["node", "-p", "process.versions.v8"], capture_output=True, text=True, timeout=60)
    if version.stdout.startswith("11."):  # Node 20's V8: relaxed SIMD only behind the flag (on by default later)
        plain = subprocess.run(["node", str(script)], capture_output=True, text=True, timeout=60)
        assert plain.stdout.strip() == "false"
