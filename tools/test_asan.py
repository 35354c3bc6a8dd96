"""`make test-asan`: the C kernels under AddressSanitizer + UndefinedBehaviorSanitizer.

    python tools/test_asan.py                 # build _build/asan/, run the default test set against it
    python tools/test_asan.py --kernels       # the C kernel tests only (tests/kernels): what `make test` runs
    python tools/test_asan.py tests/ops/test_nn_table.py -x    # other pytest arguments instead of the set

1. Builds the native library with -fsanitize=address,undefined -fno-sanitize-recover=undefined into
   webflow/wasm/_build/asan/ (webflow/wasm/build.py; the normal build is never touched).
2. Runs pytest with that library (env WEBFLOW_C_LIBRARY, which backends/c/library.py honours), every op that
   has a C kernel forced onto it (WEBFLOW_BACKEND=native), and the sanitizer runtime preloaded: CPython is not
   instrumented, so a library loaded with ctypes needs libasan first in the process (LD_PRELOAD). Leak
   detection is off: CPython keeps objects alive until exit by design.
3. Any out-of-bounds access, use after free or undefined behaviour aborts the run with the sanitizer's report
   (exit status non-zero). Afterwards it lists the exported kernels no test called, and fails if there are any
   beyond ALLOWED_UNREACHED.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from webflow.wasm import build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The kernel tests (native; the wasm ones run in Node, not in this process) and every op table, whose rows reach
# the C adapters with WEBFLOW_BACKEND=native, plus the backend-comparison tests.
KERNEL_TESTS = [
    "tests/kernels", "--ignore=tests/kernels/test_c_wasm_families.py",
    "--ignore=tests/kernels/test_wasm_in_pyodide.py", "--ignore=tests/kernels/test_conv_direct_in_pyodide.py",
]
DEFAULT_TESTS = [
    *KERNEL_TESTS, "tests/ops", "tests/test_backends.py",
    # (it reruns tests/ops in a subprocess with native forced: here they already run so, in-process)
    "--deselect=tests/test_backends.py::test_op_table_passes_with_the_native_backend_forced",
]
# Exported kernels that no test is expected to reach, with why (none today).
ALLOWED_UNREACHED: dict[str, str] = {}


def sanitizer_runtime(compiler: list[str]) -> str:
    """The absolute path of the compiler's libasan.so (gcc: `-print-file-name`; clang: its resource dir)."""
    for option in (["-print-file-name=libasan.so"], ["-print-file-name=libclang_rt.asan-x86_64.so"]):
        found = subprocess.run(compiler + option, capture_output=True, text=True).stdout.strip()
        if os.path.isabs(found) and os.path.exists(found):
            return os.path.realpath(found)
    raise SystemExit(f"test-asan: {' '.join(compiler)} has no shared ASan runtime (libasan.so)")


def exported_kernels(path: str) -> list[str]:
    """The library's exported wf_* functions (nm -D)."""
    listing = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True)
    names = (line.split()[-1] for line in listing.stdout.splitlines() if line.split()[-2:-1] == ["T"])
    return sorted(name for name in names if name.startswith("wf_"))


def run(pytest_args: list[str]) -> int:
    library = build.build_native_sanitized(verbose=True)
    compiler = build.native_compiler() or ["cc"]
    folder = tempfile.mkdtemp(prefix="webflow-asan-")
    report, logs = os.path.join(folder, "report.json"), os.path.join(folder, "sanitizer")
    # log_path: pytest captures fd 2, and a sanitizer's report written there is lost when it ends the process.
    env = dict(os.environ, LD_PRELOAD=sanitizer_runtime(compiler), WEBFLOW_C_LIBRARY=library,
               WEBFLOW_BACKEND="native", WEBFLOW_ASAN_REPORT=report,
               ASAN_OPTIONS=f"detect_leaks=0:halt_on_error=1:log_path={logs}",
               UBSAN_OPTIONS=f"print_stacktrace=1:halt_on_error=1:log_path={logs}",
               PYTHONPATH=os.pathsep.join(filter(None, [os.path.join(ROOT, "tools"), os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "asan_coverage"]
    print(" ".join(command + pytest_args), flush=True)
    status = subprocess.run(command + pytest_args, cwd=ROOT, env=env).returncode
    findings = sorted(name for name in os.listdir(folder) if name.startswith("sanitizer"))
    for name in findings:
        with open(os.path.join(folder, name)) as handle:
            print(f"==== {name}\n{handle.read()}")
    if status != 0 or findings:
        print(f"test-asan: pytest exited with {status}; sanitizer reports: {len(findings)}")
        return status or 1
    return check_coverage(report, library, pytest_args is DEFAULT_TESTS)


def check_coverage(report: str, library: str, whole_set: bool) -> int:
    with open(report) as handle:
        found = json.load(handle)
    if found["library"] != library:
        print(f"test-asan: the tests ran against {found['library']}, not {library}")
        return 1
    unreached = sorted(set(exported_kernels(library)) - set(found["fetched"]) - set(ALLOWED_UNREACHED))
    print(f"test-asan: {len(found['fetched'])} kernels called under ASan+UBSan; "
          f"exported but never called: {', '.join(unreached) or 'none'}")
    return 1 if unreached and whole_set else 0


if __name__ == "__main__":
    arguments = sys.argv[1:]
    # --kernels: `make test`'s reduced run (its 869 tests took 4 min here at load average ~15, plus the build)
    sys.exit(run(KERNEL_TESTS if arguments == ["--kernels"] else arguments or DEFAULT_TESTS))
