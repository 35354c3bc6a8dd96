"""Build the JupyterLab extension (labextension/, npm) into webflow/lab/labextension/ when it is missing.

    python tools/labext.py [--force]     # npm install (first time) + npm run build; prints the built folder

Used by tools/wheels.py (a wheel built from a copy of webflow/ must carry the built extension) and by
tests/lab/test_labextension_build.py. `make labext` does the same from the Makefile.
Raises LabextUnavailable (a reason) when npm is missing or the build fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(REPO, "labextension")
BUILT = os.path.join(REPO, "webflow", "lab", "labextension")
MARKER = os.path.join(BUILT, "static", "style.js")  # the file hatch-jupyter-builder checks too


class LabextUnavailable(RuntimeError):
    """The extension could not be built here (no npm, or npm failed)."""


def _npm(arguments: list[str], timeout: float) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise LabextUnavailable("npm not found: the JupyterLab extension (labextension/) cannot be built")
    done = subprocess.run([npm, *arguments, "--no-audit", "--no-fund", "--loglevel=error"], cwd=SOURCE,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise LabextUnavailable(f"npm {' '.join(arguments)} failed in labextension/: {done.stderr.strip()[-2000:]}")


def ensure_node_modules() -> None:
    """npm install (the versions of package-lock.json) when labextension/node_modules is missing.

    Not `npm ci`: the registry here lacks some optional platform builds (rollup, rspack) of the locked
    versions, so the lock cannot list them and `npm ci` rejects it; `npm install` leaves the lock unchanged.
    """
    if not os.path.isdir(os.path.join(SOURCE, "node_modules", "@jupyter", "builder")):
        _npm(["install"], timeout=900)


def build_labextension(force: bool = False) -> str:
    """Path of the built extension folder (built now if missing or `force`)."""
    if force or not os.path.exists(MARKER):
        ensure_node_modules()
        _npm(["run", "build"], timeout=900)
    if not os.path.exists(MARKER):
        raise LabextUnavailable(f"npm run build left no {MARKER}")
    return BUILT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the built extension exists")
    print(build_labextension(force=parser.parse_args().force))


if __name__ == "__main__":
    main()
