"""The two wheels Pyodide installs webflow from: webflow's own (with the .wasm inside) and micropip's.

    python tools/wheels.py [--out DIR]     # prints {"webflow": path, "micropip": path} as JSON

Used by the Pyodide tests (tests/pyodide/wheels.py re-exports it), the benchmarks and the static site
(site/build.py puts the webflow wheel into site/_build/wheels/).

- `build_webflow_wheel(out_dir)`: rebuilds webflow/wasm/webflow_kernels.wasm and webflow_kernels_relaxed.wasm
  if a C source changed (the relaxed one needs clang >= 16; without it the wheel ships only the baseline
  module and Pyodide uses that), then
  `pip wheel --no-deps` from a clean copy of the sources (so no build/ or *.egg-info land in the work
  tree, and a stale native build cache in webflow/wasm/_build never ships).
- `protobuf_wheel(folder)`: protobuf's pure-Python wheel at the pinned PROTOBUF version, fetched once from PyPI
  with `pip download --platform any` (so pip never picks a native build) into `folder` (default the same cache);
  the static site ships it next to webflow's wheel (site/build.py).
- `micropip_wheel()`: micropip 0.11.1 (pure Python, needs Python >= 3.13 as Pyodide 314's is), fetched
  once from PyPI with `pip download` into tests/pyodide/wheels/ (git-ignored). Pyodide's npm package
  ships no packages (PLATFORM.md), so micropip is loaded from this file, never from a CDN.
Raises WheelUnavailable (a reason) when the .wasm cannot be built or a wheel cannot be made.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(REPO, "tests", "pyodide", "wheels")  # git-ignored there (tests/pyodide/.gitignore)
MICROPIP = "micropip==0.11.1"
# protobuf's pure-Python wheel (py3-none-any; its other wheels hold the upb C extension, which Pyodide cannot load):
# the runtime of webflow/protos/*_pb2.py in the browser. At least the floor of pyproject.toml (the version the
# committed _pb2 files were generated for) and the same major version (their runtime check wants it).
PROTOBUF = "protobuf==7.36.2"
PYODIDE_PYTHON = "3.14"  # npm pyodide 314.0.7 runs CPython 3.14


class WheelUnavailable(RuntimeError):
    """A wheel could not be made here (no wasm compiler, pip failed, or PyPI unreachable)."""


def _pip(arguments: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *arguments, "-q", "--disable-pip-version-check"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise WheelUnavailable(f"pip {arguments[0]} failed: {done.stderr.strip()[-2000:]}")


def build_webflow_wheel(out_dir: str) -> str:
    """Path of a webflow wheel built now from the current sources, the .wasm side modules included."""
    sys.path.insert(0, REPO)
    try:
        from webflow.wasm import build
    finally:
        sys.path.remove(REPO)
    try:
        modules = build.build_wasm_modules()
    except (build.CompilerNotFound, build.BuildFailed) as error:
        raise WheelUnavailable(f"webflow_kernels.wasm not built: {str(error).splitlines()[0]}") from error
    try:  # the prebuilt JupyterLab extension ships inside webflow/ (webflow/lab/labextension, git-ignored)
        from labext import LabextUnavailable, build_labextension
    except ImportError:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from labext import LabextUnavailable, build_labextension
    try:
        build_labextension()
    except LabextUnavailable as error:
        raise WheelUnavailable(str(error)) from error
    with tempfile.TemporaryDirectory(prefix="wf-wheel-src-") as source:
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(os.path.join(REPO, name), source)
        shutil.copytree(os.path.join(REPO, "webflow"), os.path.join(source, "webflow"),
                        ignore=shutil.ignore_patterns("__pycache__", "_build", "*.pyc", "*.wasm"))
        for wasm in modules:
            shutil.copy2(wasm, os.path.join(source, "webflow", "wasm"))
        os.makedirs(out_dir, exist_ok=True)
        _pip(["wheel", "--no-deps", "-w", out_dir, source])
    found = glob.glob(os.path.join(out_dir, "webflow-*.whl"))
    if not found:
        raise WheelUnavailable(f"pip wheel wrote no webflow wheel into {out_dir}")
    return max(found, key=os.path.getmtime)


def micropip_wheel() -> str:
    """Path of the micropip wheel (downloaded from PyPI on first use, then kept in tests/pyodide/wheels/)."""
    found = glob.glob(os.path.join(CACHE, "micropip-0.11.1-*.whl"))
    if not found:
        _pip(["download", "--no-deps", "--only-binary=:all:", "--python-version", PYODIDE_PYTHON,
              "-d", CACHE, MICROPIP])
        found = glob.glob(os.path.join(CACHE, "micropip-0.11.1-*.whl"))
    if not found:
        raise WheelUnavailable(f"pip download {MICROPIP} left no wheel in {CACHE}")
    return found[0]


def protobuf_wheel(folder: str = CACHE) -> str:
    """Path of protobuf's pure-Python wheel (PROTOBUF), downloaded from PyPI into `folder` on first use."""
    name, version = PROTOBUF.split("==")
    pattern = os.path.join(folder, f"{name}-{version}-py3-none-any.whl")
    if not glob.glob(pattern):
        _pip(["download", "--no-deps", "--only-binary=:all:", "--platform", "any", "--python-version",
              PYODIDE_PYTHON, "-d", folder, PROTOBUF])
    found = glob.glob(pattern)
    if not found:
        raise WheelUnavailable(f"pip download {PROTOBUF} left no pure-Python wheel in {folder}")
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(CACHE, "webflow"), help="folder for the webflow wheel")
    args = parser.parse_args()
    for old in glob.glob(os.path.join(args.out, "webflow-*.whl")):
        os.remove(old)
    print(json.dumps({"webflow": build_webflow_wheel(args.out), "micropip": micropip_wheel()}))


if __name__ == "__main__":
    main()
