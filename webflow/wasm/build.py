"""Build the C kernels: one native shared library and one wasm32-simd128 side module, from the same sources.

    python -m webflow.wasm.build              # both targets (whichever compilers exist)
    python -m webflow.wasm.build --native     # the native library only
    python -m webflow.wasm.build --wasm       # the two WebAssembly side modules only (baseline, relaxed SIMD)
    python -m webflow.wasm.build --force      # rebuild even if the sources did not change
    python -m webflow.wasm.build --asan       # the native library with ASan + UBSan, in _build/asan/ (make test-asan)

Every `webflow/wasm/*.c` goes into both outputs:
- native: `webflow/wasm/_build/libwebflow_kernels.<platform-tag>.so` (system `cc`, or $CC). The tag
  names the variant: `avx512` (-mavx2 -mfma -mavx512f -mavx512vl, when this CPU has them all), `avx2`
  (-mavx2 -mfma) or `base` (SSE2 / NEON). AVX-512 widens only the register tiles' vectors
  (conv_direct.c, gemm_thin.c); every other kernel keeps 256-bit vectors (-mprefer-vector-width=256 for the
  auto-vectorizer too), so their results are those of the avx2 build.
- wasm:   `webflow/wasm/webflow_kernels.wasm`, an Emscripten-style side module Pyodide loads with
  `ctypes.CDLL` (clang + wasm-ld, else `python -m ziglang cc`); flags as measured in PLATFORM.md.
- relaxed: `webflow/wasm/webflow_kernels_relaxed.wasm`, the same sources with `-mrelaxed-simd`: the GEMM
  micro-kernel then multiplies-and-adds with f32x4/f64x2.relaxed_madd (fused on FMA CPUs; see
  webflow_kernels.h). Needs clang >= 16 (clang-16, clang-17, ... or `clang` itself when new enough):
  clang 14 emits the relaxed-SIMD opcodes from before their 2022 renumbering, which V8 rejects. Without
  one the relaxed module is skipped with a message and Pyodide loads the baseline module.
Each output has a `.sha256` stamp beside it in `_build/` (a hash of the sources, flags and compiler):
nothing is rebuilt while it matches. Outputs are written to a temporary name and renamed into place, so
a process loading the library never sees half a file, and two processes building at once do not clash.
No compiler: `CompilerNotFound` with a one-line message; webflow then runs on NumPy.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.join(HERE, "_build")
WASM_OUTPUT = os.path.join(HERE, "webflow_kernels.wasm")
WASM_RELAXED_OUTPUT = os.path.join(HERE, "webflow_kernels_relaxed.wasm")
RELAXED_MIN_CLANG = 16  # the first clang with the final relaxed-SIMD opcodes (f32x4.relaxed_madd = 0xfd 0x105)

COMMON_FLAGS = ["-std=c11", "-O3", "-fno-math-errno", "-Wall", "-Wno-unused-function"]
NATIVE_FLAGS = ["-fPIC", "-shared", "-fvisibility=hidden", "-ffp-contract=fast", "-pthread"]  # -pthread: parallel.c
AVX2_FLAGS = ["-mavx2", "-mfma"]
AVX512_FLAGS = AVX2_FLAGS + ["-mavx512f", "-mavx512vl", "-mprefer-vector-width=256"]
VARIANT_FLAGS = {"avx512": AVX512_FLAGS, "avx2": AVX2_FLAGS, "base": []}
# PLATFORM.md: a side module that Emscripten's dlopen accepts; -fvisibility=default keeps the exports,
# -mbulk-memory lowers any memset/memcpy to memory.fill/copy (no libc), --strip-debug keeps wasm-opt happy.
WASM_FLAGS = [
    "-msimd128", "-mbulk-memory", "-ffreestanding", "-nostdlibinc", "-fPIC", "-fvisibility=default", "-nostdlib",
    "-Wl,-shared", "-Wl,--experimental-pic", "-Wl,--no-entry", "-Wl,--strip-debug",
]
RELAXED_FLAGS = ["-mrelaxed-simd"]
# `make test-asan`: AddressSanitizer + UndefinedBehaviorSanitizer, any UB finding fatal; the same -O3 and variant
# flags as the normal build (the same vector code paths run), -g for line numbers in the reports.
SANITIZE_FLAGS = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover=undefined", "-g"]
SANITIZED_DIR = os.path.join(BUILD_DIR, "asan")  # its own folder and name: never replaces the normal build


class CompilerNotFound(RuntimeError):
    """No C compiler for the requested target: webflow keeps running on its NumPy kernels."""


class BuildFailed(RuntimeError):
    """The compiler ran and reported errors (its output is in the message)."""


def sources() -> list[str]:
    """All kernel sources, in a fixed order (the order is part of the hash)."""
    return sorted(glob.glob(os.path.join(HERE, "*.c")))


def _source_hash(compiler: list[str], flags: list[str]) -> str:
    digest = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(HERE, "*.c")) + glob.glob(os.path.join(HERE, "*.h"))):
        digest.update(os.path.basename(path).encode())
        with open(path, "rb") as handle:
            digest.update(handle.read())
    digest.update(" ".join(compiler + flags).encode())
    digest.update(_compiler_version(compiler).encode())
    return digest.hexdigest()


def _compiler_version(compiler: list[str]) -> str:
    try:
        result = subprocess.run(compiler + ["--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.splitlines()[0] if result.stdout else ""


# ----------------------------------------------------------------------------------------- native
def _cpu_flags() -> set[str]:
    """The x86-64 Linux CPU's feature flags (empty elsewhere, or with WEBFLOW_C_BASELINE: the baseline build)."""
    if os.environ.get("WEBFLOW_C_BASELINE") or platform.machine().lower() not in ("x86_64", "amd64"):
        return set()
    try:
        with open("/proc/cpuinfo") as handle:
            return set(next((line for line in handle if line.startswith("flags")), "").split())
    except OSError:
        return set()


def native_compiler() -> list[str] | None:
    """$CC, else cc, gcc or clang from PATH."""
    if os.environ.get("CC"):
        command = os.environ["CC"].split()
        return command if shutil.which(command[0]) else None
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return [name]
    return None


def native_variant() -> str:
    """avx512, avx2 or base: the widest build this CPU runs (WEBFLOW_C_AVX512=0 stops at avx2)."""
    flags = _cpu_flags()
    if not {"avx2", "fma"} <= flags:
        return "base"
    if {"avx512f", "avx512vl"} <= flags and os.environ.get("WEBFLOW_C_AVX512", "1") != "0":
        return "avx512"
    return "avx2"


def native_library_path() -> str:
    """Where the native library for this machine lives, e.g. _build/libwebflow_kernels.linux-x86_64-avx2.so."""
    suffix = {"darwin": ".dylib", "win32": ".dll"}.get(sys.platform, ".so")
    tag = f"{sys.platform}-{platform.machine().lower()}-{native_variant()}"
    return os.path.join(BUILD_DIR, f"libwebflow_kernels.{tag}{suffix}")


def build_native(force: bool = False, verbose: bool = False) -> str:
    """Build (if stale) and return the path of the native shared library."""
    compiler = native_compiler()
    if compiler is None:
        raise CompilerNotFound("webflow: no C compiler ($CC, cc, gcc or clang) found; using the NumPy kernels")
    flags = COMMON_FLAGS + NATIVE_FLAGS + VARIANT_FLAGS[native_variant()]
    if "clang" in _compiler_version(compiler).lower():
        # clang ignores `#pragma clang fp contract(off)` (optimizers.c: bit-exact updates) under =fast;
        # =on still fuses a*b+c inside one expression, as the GEMM micro-kernel wants.
        flags = ["-ffp-contract=on" if flag == "-ffp-contract=fast" else flag for flag in flags]
    output = native_library_path()
    _build(compiler, flags + sources() + ["-lm"], output, _source_hash(compiler, flags), force, verbose)
    return output


def sanitized_library_path() -> str:
    """Where the sanitised native library goes: _build/asan/libwebflow_kernels.<tag>-asan.so."""
    stem, suffix = os.path.splitext(os.path.basename(native_library_path()))
    return os.path.join(SANITIZED_DIR, f"{stem}-asan{suffix}")


def build_native_sanitized(force: bool = False, verbose: bool = False) -> str:
    """Build (if stale) the native library with ASan + UBSan (gcc or clang) and return its path.

    Load it with env WEBFLOW_C_LIBRARY=<path> and the sanitizer runtime preloaded (LD_PRELOAD=$(cc
    -print-file-name=libasan.so)): CPython itself is not instrumented. tools/test_asan.py does both."""
    compiler = native_compiler()
    if compiler is None:
        raise CompilerNotFound("webflow: no C compiler ($CC, cc, gcc or clang) found; cannot build the ASan library")
    flags = COMMON_FLAGS + NATIVE_FLAGS + VARIANT_FLAGS[native_variant()] + SANITIZE_FLAGS
    output = sanitized_library_path()
    os.makedirs(SANITIZED_DIR, exist_ok=True)
    _build(compiler, flags + sources() + ["-lm"], output, _source_hash(compiler, flags), force, verbose)
    return output


# ------------------------------------------------------------------------------------------- wasm
def wasm_compiler() -> list[str] | None:
    """clang (with wasm-ld from lld), else the PyPI ziglang package's clang."""
    clang = shutil.which("clang")
    if clang and shutil.which("wasm-ld"):
        return [clang, "--target=wasm32-unknown-emscripten"]  # this triple: clang 14 emits PIC data access only for it
    try:
        import ziglang  # noqa: F401  (only probing whether it is installed)
    except ImportError:
        return None
    return [sys.executable, "-m", "ziglang", "cc", "-target", "wasm32-freestanding"]


def _clang_major(clang: str) -> int:
    """The major version of a clang executable (0 if it does not run)."""
    words = _compiler_version([clang]).split()
    if "version" not in words or words.index("version") + 1 >= len(words):
        return 0
    number = words[words.index("version") + 1].split(".")[0]
    return int(number) if number.isdigit() else 0


def relaxed_wasm_compiler() -> list[str] | None:
    """The newest clang >= 16 on PATH (clang-NN first, then `clang`) with its own wasm-ld, or None.

    Its linker is named with --ld-path: Debian's clang-16 would otherwise pick /usr/bin/wasm-ld, which is
    lld 14's. The unversioned `clang` qualifies only if it is new enough itself.
    """
    candidates = [f"clang-{major}" for major in range(30, RELAXED_MIN_CLANG - 1, -1)] + ["clang"]
    for name in candidates:
        clang = shutil.which(name)
        if clang is None or _clang_major(clang) < RELAXED_MIN_CLANG:
            continue
        major = _clang_major(clang)
        beside = os.path.join(os.path.dirname(os.path.realpath(clang)), "wasm-ld")  # /usr/lib/llvm-NN/bin
        linker = beside if os.path.exists(beside) else shutil.which(f"wasm-ld-{major}")
        if linker:
            return [clang, "--target=wasm32-unknown-emscripten", f"--ld-path={linker}"]
    return None


def build_wasm(force: bool = False, verbose: bool = False, relaxed: bool = False) -> str:
    """Build (if stale) and return the path of the wasm32 side module (`relaxed`: the relaxed-SIMD one)."""
    if relaxed:
        compiler, flags, output = relaxed_wasm_compiler(), COMMON_FLAGS + WASM_FLAGS + RELAXED_FLAGS, \
            WASM_RELAXED_OUTPUT
        if compiler is None:
            raise CompilerNotFound(
                f"webflow: no clang >= {RELAXED_MIN_CLANG} with wasm-ld (apt-get install clang-16 lld-16): "
                "webflow_kernels_relaxed.wasm not built, Pyodide will use webflow_kernels.wasm"
            )
    else:
        compiler, flags, output = wasm_compiler(), COMMON_FLAGS + WASM_FLAGS, WASM_OUTPUT
        if compiler is None:
            raise CompilerNotFound(
                "webflow: no wasm32 compiler (apt-get install clang lld, or pip install ziglang); "
                "the .wasm kernels were not rebuilt"
            )
    _build(compiler, flags + sources(), output, _source_hash(compiler, flags), force, verbose)
    return output


def build_wasm_modules(force: bool = False, verbose: bool = False) -> list[str]:
    """Both side modules: the baseline (required; raises) and the relaxed one when a clang >= 16 exists."""
    paths = [build_wasm(force, verbose)]
    try:
        paths.append(build_wasm(force, verbose, relaxed=True))
    except CompilerNotFound as error:
        if verbose:
            print(error)
    return paths


# ----------------------------------------------------------------------------------------- shared
def _stamp_path(output: str) -> str:
    return os.path.join(BUILD_DIR, os.path.basename(output) + ".sha256")


def is_current(output: str, digest: str) -> bool:
    try:
        with open(_stamp_path(output)) as handle:
            return handle.read().strip() == digest and os.path.exists(output)
    except OSError:
        return False


def _write_atomically(path: str, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    os.replace(temporary, path)


def _build(compiler: list[str], arguments: list[str], output: str, digest: str, force: bool, verbose: bool) -> None:
    os.makedirs(BUILD_DIR, exist_ok=True)
    if not force and is_current(output, digest):
        return
    # Compile to a unique temporary name in the same folder, then rename: atomic on POSIX and Windows.
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(output), prefix=".tmp-", suffix=os.path.basename(output))
    os.close(handle)
    command = compiler + arguments + ["-o", temporary]
    if verbose:
        print(" ".join(command))
    started = time.perf_counter()
    try:
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise BuildFailed(f"webflow: building {os.path.basename(output)} failed:\n{result.stderr}")
        os.replace(temporary, output)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    _write_atomically(_stamp_path(output), digest.encode())
    if verbose:
        print(f"built {os.path.relpath(output)} in {time.perf_counter() - started:.1f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webflow.wasm.build", description=__doc__.splitlines()[0])
    parser.add_argument("--native", action="store_true", help="build the native shared library")
    parser.add_argument("--wasm", action="store_true", help="build the wasm32 side modules (baseline, relaxed)")
    parser.add_argument("--asan", action="store_true", help="build the native library with ASan + UBSan only")
    parser.add_argument("--force", action="store_true", help="rebuild even if the sources did not change")
    options = parser.parse_args(argv)
    if options.asan:
        return _main_asan(options.force)
    targets = [name for name in ("native", "wasm") if getattr(options, name)] or ["native", "wasm"]
    if "wasm" in targets:
        targets.append("relaxed")
    status = 0
    for target in targets:
        try:
            if target == "native":
                path = build_native(force=options.force, verbose=True)
            else:
                path = build_wasm(force=options.force, verbose=True, relaxed=target == "relaxed")
            print(f"{target}: {os.path.relpath(path)} ({os.path.getsize(path)} bytes)")
        except CompilerNotFound as error:
            print(error)
            if target != "relaxed":  # the relaxed module is optional: Pyodide falls back to the baseline one
                status = 1
        except BuildFailed as error:
            print(error, file=sys.stderr)
            status = 2
    return status


def _main_asan(force: bool) -> int:
    try:
        path = build_native_sanitized(force=force, verbose=True)
    except CompilerNotFound as error:
        print(error)
        return 1
    except BuildFailed as error:
        print(error, file=sys.stderr)
        return 2
    print(f"asan: {os.path.relpath(path)} ({os.path.getsize(path)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
