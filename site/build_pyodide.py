"""An offline Pyodide distribution: the folder JupyterLite's Pyodide kernel boots from, with no CDN.

    python site/build_pyodide.py [--out site/_build/pyodide]

What it holds (`build(out_dir)`):
- the core runtime of npm `pyodide` at the version pinned in site/package-lock.json (`npm ci` in site/ when
  node_modules is missing): pyodide.mjs, pyodide.asm.mjs/.wasm, python_stdlib.zip, ...
- the pure-Python wheels the JupyterLite kernel loads from Pyodide's package lock (micropip, ipython, jedi
  and everything their lock entries depend on), fetched from PyPI with `pip download --no-deps` at exactly
  the lock's versions and kept in site/_cache/pypi/ (git-ignored), so a second build needs no network;
- pyodide-lock.json, rewritten to describe exactly those files.

Why the lock is rewritten (PLATFORM.md, "Pyodide"): the npm package ships the lock of all 357 packages of
Pyodide's CDN build but none of their files. `pyodide.loadPackage("ipython")` looks the name up in the lock,
fetches `<indexURL>/<file_name>` and checks the file against the lock's `sha256`. The wheels we can get
are PyPI's: same versions, but built by their authors, not by Pyodide's build (Pyodide moves tests out of
some wheels), so their digests differ and the check would reject them; a few also have another file
name. So each kept entry gets the file name and sha256 of the wheel really shipped. Packages with compiled
code (NumPy, pandas, ...) exist only as Pyodide's own wasm wheels on its CDN and cannot be had here;
their entries are removed, so that no entry points at a file nobody serves: an import of them fails with
a plain ModuleNotFoundError instead of a silent failed download (PLATFORM.md) or a request to a CDN.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_MODULES = os.path.join(HERE, "node_modules")
PYODIDE_NPM = os.path.join(NODE_MODULES, "pyodide")
PYODIDE_VERSION = "314.0.7"  # must match site/package.json; the lite build and tests assume its Python 3.14
PYODIDE_PYTHON = "3.14"
CACHE = os.path.join(HERE, "_cache", "pypi")
DEFAULT_OUT = os.path.join(HERE, "_build", "pyodide")

# What loadPyodide() fetches from its indexURL (the .d.ts, console pages and source maps are not needed).
CORE_FILES = ("pyodide.mjs", "pyodide.js", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "package.json")

# The lock packages JupyterLite's Pyodide kernel 0.8.6 loads at start-up: its worker calls
# loadPackage(["micropip"]), then piplite.install("ipython"), ("jedi") (found in the lock);
# their lock dependencies are added by `closure`.
KERNEL_ROOTS = ("micropip", "packaging", "ipython", "jedi")


class PyodideUnavailable(RuntimeError):
    """The distribution cannot be made here (no npm, or PyPI unreachable on a first build)."""


def _run(command: list[str], cwd: str | None = None) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise PyodideUnavailable(f"{' '.join(command[:4])} failed: {done.stderr.strip()[-2000:]}")


def ensure_npm_pyodide() -> str:
    """The folder of npm `pyodide` at PYODIDE_VERSION (runs `npm ci` in site/ when it is missing or stale)."""
    manifest = os.path.join(PYODIDE_NPM, "package.json")
    if not os.path.exists(manifest) or json.load(open(manifest))["version"] != PYODIDE_VERSION:
        if shutil.which("npm") is None:
            raise PyodideUnavailable("npm is not installed: cannot install the pinned npm package pyodide")
        _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=HERE)
    with open(manifest) as file:
        version = json.load(file)["version"]
    if version != PYODIDE_VERSION:
        raise PyodideUnavailable(f"site/package-lock.json pins pyodide {version}, this build expects {PYODIDE_VERSION}")
    return PYODIDE_NPM


def _key(name: str) -> str:
    """The lock's keys are normalised names (PEP 503): 'prompt_toolkit' is listed as 'prompt-toolkit'."""
    return name.lower().replace("_", "-").replace(".", "-")


def closure(packages: dict, roots: tuple[str, ...]) -> list[str]:
    """The lock keys of `roots` and of everything their lock entries depend on, transitively."""
    wanted, todo = [], [_key(root) for root in roots]
    while todo:
        key = todo.pop()
        if key in wanted:
            continue
        if key not in packages:
            raise PyodideUnavailable(f"{key} is not in Pyodide {PYODIDE_VERSION}'s lock")
        wanted.append(key)
        todo.extend(_key(dep) for dep in packages[key]["depends"])
    return sorted(wanted)


def _is_pure(entry: dict) -> bool:
    return entry["file_name"].endswith("-none-any.whl")


def _cached_wheel(entry: dict) -> str | None:
    """The wheel of this lock entry in the cache, if downloaded before (PyPI's name may differ from the lock's)."""
    if os.path.exists(os.path.join(CACHE, entry["file_name"])):
        return os.path.join(CACHE, entry["file_name"])
    prefix = f"{entry['name'].lower().replace('-', '_')}-{entry['version']}-"
    for name in os.listdir(CACHE):
        if name.lower().startswith(prefix) and name.endswith(".whl"):
            return os.path.join(CACHE, name)
    return None


def download_wheels(entries: list[dict]) -> dict[str, str]:
    """{lock name: cached wheel path} for these lock entries, pip-downloading the missing ones from PyPI."""
    os.makedirs(CACHE, exist_ok=True)
    missing = [entry for entry in entries if _cached_wheel(entry) is None]
    if missing:
        # --no-deps: the lock, not pip, decides what goes in; --python-version: wheels for Pyodide's Python.
        _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version",
              PYODIDE_PYTHON, "--disable-pip-version-check", "-q", "-d", CACHE,
              *[f"{entry['name']}=={entry['version']}" for entry in missing]])
    found = {}
    for entry in entries:
        path = _cached_wheel(entry)
        if path is None:
            raise PyodideUnavailable(f"pip download left no wheel for {entry['name']}=={entry['version']} in {CACHE}")
        found[entry["name"]] = path
    return found


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def rewrite_lock(lock: dict, shipped: dict[str, str]) -> dict:
    """The lock with only the shipped packages, each pointing at its real file (name and sha256)."""
    packages = {}
    for key, entry in lock["packages"].items():
        if entry["name"] not in shipped:
            continue  # not in this folder: drop it, so nothing refers to a file only the CDN has
        path = shipped[entry["name"]]
        packages[key] = dict(entry, file_name=os.path.basename(path), sha256=_sha256(path),
                             unvendored_tests=False)  # PyPI wheels keep their tests inside: no *-tests.zip
    return dict(lock, packages=packages)


def add_wheel_to_lock(dist_dir: str, wheel: str, name: str, imports: list[str], version: str,
                      depends: tuple[str, ...] = ()) -> None:
    """Copies one more pure-Python wheel into a built distribution and lists it in its lock.

    Used for webflow itself by the JupyterLite build: a lock package is what the Pyodide kernel loads on
    its own when a cell imports it (`pyodide.loadPackagesFromImports` before every cell), so a notebook
    needs no install cell. `depends`: the lock names loadPackage loads with it (for webflow: protobuf, whose pure-Python
    wheel is added the same way; never NumPy: inside Pyodide webflow runs on its wasm kernels without it).
    """
    shutil.copy2(wheel, dist_dir)
    lock_path = os.path.join(dist_dir, "pyodide-lock.json")
    with open(lock_path) as file:
        lock = json.load(file)
    lock["packages"][_key(name)] = {
        "name": name, "version": version, "file_name": os.path.basename(wheel), "install_dir": "site",
        "sha256": _sha256(wheel), "package_type": "package", "imports": imports, "depends": list(depends),
        "unvendored_tests": False, "tool": {}}
    with open(lock_path, "w") as file:
        json.dump(lock, file, indent=1, sort_keys=True)


def build(out_dir: str = DEFAULT_OUT, roots: tuple[str, ...] = KERNEL_ROOTS) -> None:
    """Writes the offline Pyodide distribution (core files, the roots' wheels, rewritten lock) into out_dir."""
    npm = ensure_npm_pyodide()
    with open(os.path.join(npm, "pyodide-lock.json")) as file:
        lock = json.load(file)
    entries = [lock["packages"][key] for key in closure(lock["packages"], roots)]
    compiled = [entry["name"] for entry in entries if not _is_pure(entry)]
    if compiled:
        raise PyodideUnavailable(f"these need Pyodide's own wasm wheels, which cannot be had here: {compiled}")
    wheels = download_wheels(entries)
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(out_dir)
    for name in CORE_FILES:
        shutil.copy2(os.path.join(npm, name), out_dir)
    for path in wheels.values():
        shutil.copy2(path, out_dir)
    with open(os.path.join(out_dir, "pyodide-lock.json"), "w") as file:
        json.dump(rewrite_lock(lock, wheels), file, indent=1, sort_keys=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder to write the distribution into")
    args = parser.parse_args()
    build(args.out)
    total = sum(os.path.getsize(os.path.join(args.out, name)) for name in os.listdir(args.out))
    print(f"{args.out}: {len(os.listdir(args.out))} files, {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
