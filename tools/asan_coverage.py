"""A pytest plugin for `make test-asan` (tools/test_asan.py loads it with -p): at the end of the run it writes
the names of the C kernels the tests fetched (c_library.function) to the JSON file named by env
WEBFLOW_ASAN_REPORT, with the path of the library they ran in, so the runner can list the exports no test
reached. A kernel is fetched only to be called, so fetched = exercised under the sanitizers. It also puts every
test back on env WEBFLOW_BACKEND's backend before it starts."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _backend_from_the_environment() -> None:
    """Every test starts on env WEBFLOW_BACKEND's backend: some kernel tests switch it and end on 'auto', which
    would leave the op tables after them on NumPy for small inputs (and their C kernels unexercised)."""
    from webflow.backends import selection
    wanted = os.environ.get("WEBFLOW_BACKEND", "").strip() or "auto"
    if selection.get_backend() != wanted:
        selection.set_backend(wanted)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    target = os.environ.get("WEBFLOW_ASAN_REPORT")
    if not target:
        return
    from webflow.backends.c import library as c_library
    report = {"library": c_library.library_path(), "fetched": sorted(c_library._functions),
              "declared": c_library.declared()}
    temporary = target + ".tmp"
    with open(temporary, "w") as handle:
        json.dump(report, handle, indent=1)
    os.replace(temporary, target)
