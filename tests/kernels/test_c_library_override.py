"""Env WEBFLOW_C_LIBRARY: load a given native library instead of building one (make test-asan loads the
AddressSanitizer build so); a path that does not load leaves the C kernels unavailable, with the reason."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from webflow.backends.c import library as c_library
from webflow.wasm import build

PROBE = textwrap.dedent("""
    from webflow.backends.c import library as c
    print(c.available())
    print(c.library_path())
    print(c.unavailable_reason())
""")


def probe(library: str) -> list[str]:
    environment = {**os.environ, "WEBFLOW_C_LIBRARY": library}
    environment.pop("WEBFLOW_DISABLE_C", None)
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=environment,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()


def test_the_given_library_is_loaded_not_built(tmp_path):
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}")
    copy = tmp_path / "libcopy.so"   # a copy elsewhere: proves the loader took the path as given
    copy.write_bytes(open(build.native_library_path(), "rb").read())
    assert probe(str(copy)) == ["True", str(copy), "None"]


def test_a_library_that_does_not_load_leaves_numpy(tmp_path):
    missing = str(tmp_path / "no-such-library.so")
    available, path, reason = probe(missing)
    assert (available, path) == ("False", "None")
    assert reason.startswith(f"webflow: cannot load {missing}")
