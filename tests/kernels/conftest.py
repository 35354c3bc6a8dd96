"""Fixtures the kernel tests share."""

import pytest


@pytest.fixture
def automatic_backend():
    """The automatic per-op backend choice (as a user gets it) for one test, whatever the session forced."""
    from webflow.backends import selection

    previous = selection.get_backend()
    selection.set_backend(None)
    yield
    selection.set_backend(previous)
