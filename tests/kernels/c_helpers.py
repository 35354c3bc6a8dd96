"""Shared by the C-kernel tests: load the library once (skipping with the reason when there is none)."""

from __future__ import annotations

import pytest

from webflow.backends import c_library


def require_c_library() -> None:
    """Skip the calling test module when the C kernels cannot be built or loaded here."""
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}", allow_module_level=True)
