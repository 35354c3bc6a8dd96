"""Test isolation: every test starts in eager mode with TF2 shapes/equality and a fresh default graph."""

import os
import signal
import sys
import threading
import warnings

import pytest

sys.path.insert(0, os.path.dirname(__file__))


def require_or_skip(reason: str) -> None:
    """A missing browser, npm or built artefact skips locally; fails under `make test` (WEBFLOW_REQUIRE_BROWSER=1)."""
    if os.environ.get("WEBFLOW_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


def pytest_addoption(parser):
    parser.addoption("--webflow-backend", default=None,
                     help="run every op on this kernel backend (numpy, native, wasm), as env WEBFLOW_BACKEND")


_SESSION_BACKEND = "auto"  # the backend every test starts on (--webflow-backend or env WEBFLOW_BACKEND)


def pytest_configure(config):
    name = config.getoption("--webflow-backend")
    if name:
        os.environ["WEBFLOW_BACKEND"] = name  # subprocesses too
        from webflow.backends import selection

        selection.set_backend(name)
    global _SESSION_BACKEND
    _SESSION_BACKEND = os.environ.get("WEBFLOW_BACKEND", "").strip().lower() or "auto"


# `make test` runs `pytest -n 2 --dist loadgroup` (pytest-xdist) with this scheduler: each test file is one unit of
# work (its module-scoped fixtures are built once, as in a serial run), handed to whichever worker is free; the files
# of a SERIAL_GROUPS group are one unit, run in order on one worker, and start first (they are the longest units).
# (Our own scheduler: xdist 3.8's xdist_group mark renames item._nodeid, which pytest 9 no longer reads.)
SERIAL_GROUPS = {
    # JupyterLab servers and headless Chromium: big processes, each test timed against its page
    "tests/browser/": "browser", "tests/lab/": "browser",
    # the static export reuses the notebooks the nbclient test executed (tests/executed_lessons.py)
    "tests/test_lessons_nbclient.py": "lessons", "tests/test_lessons_static_export.py": "lessons",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getoption("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FilesAndSerialGroups(LoadScopeScheduling):
        """One unit of work per test file, or per group of SERIAL_GROUPS."""

        def _split_scope(self, nodeid: str) -> str:
            for prefix, group in SERIAL_GROUPS.items():
                if nodeid.startswith(prefix):
                    return group
            return nodeid.split("::", 1)[0]

        def _assign_work_unit(self, node) -> None:
            for group in dict.fromkeys(SERIAL_GROUPS.values()):   # (xdist orders the rest by their number of tests)
                if group in self.workqueue:
                    self.workqueue.move_to_end(group, last=False)
            super()._assign_work_unit(node)

    return FilesAndSerialGroups(config, log)


def pytest_collection_finish(session):
    # a test module may switch modes when it is imported: module-scoped fixtures, set up before any test's own
    # reset, start from the defaults too
    _reset_webflow_state()


@pytest.fixture(autouse=True)
def _fresh_webflow_state():
    # before the test too: a test module may switch modes when it is imported (collection runs before any test)
    _reset_webflow_state()
    yield
    _reset_webflow_state()


@pytest.fixture
def automatic_backend():
    """The automatic per-op backend choice (as a user gets it) for one test, whatever the session forced."""
    from webflow.backends import selection

    previous = selection.get_backend()
    selection.set_backend(None)
    yield
    selection.set_backend(previous)


@pytest.fixture
def graph_mode():
    """TF1 graph mode (`disable_v2_behavior`) on a fresh default graph; the reset above restores eager mode after."""
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.reset_default_graph()
    yield


def _reset_webflow_state() -> None:
    from webflow.framework import context, random_seed, tensor, tensor_shape

    random_seed.set_global_seed(None)  # a seeded op's numbers depend on the global seed too (as in TensorFlow)
    context.enable_eager_execution()
    tensor_shape.enable_v2_tensorshape()
    tensor.enable_tensor_equality()
    if not context.graph_stack():
        context.reset_global_default_graph()
    from webflow.framework import default_session

    default_session._sessions.stack.clear()
    _reset_process_state()


def _reset_process_state() -> None:
    """Process-wide state an earlier test FILE may have left (xdist runs many files in one worker): each test
    starts as in a fresh process. Modules not loaded yet are not imported (nothing of theirs to reset)."""
    from webflow.backends import selection

    if selection.get_backend() != _SESSION_BACKEND:   # a test that forced a backend and restored "auto"
        selection.set_backend(_SESSION_BACKEND)
    summary = sys.modules.get("webflow.summary.summary_v2")
    if summary is not None:   # this thread's default writer, step and record_if condition
        summary._STATE.writer = summary._STATE.step = summary._STATE.is_recording = None
    keras_backend = sys.modules.get("webflow.keras.backend")
    if keras_backend is not None:
        keras_backend.clear_session()   # layer names count from `dense` again, as in tf_keras after clear_session
    policy = sys.modules.get("webflow.keras.mixed_precision")
    if policy is not None:
        policy.set_global_policy(None)
    shell = sys.modules.get("IPython.core.interactiveshell")
    if shell is not None and shell.InteractiveShell.initialized():
        shell.InteractiveShell.clear_instance()   # get_ipython() is None again: no kernel, as in a plain process
    _restore_ctrl_c()


def _restore_ctrl_c() -> None:
    """Ctrl-C raises KeyboardInterrupt again if a test left it ignored or handled elsewhere. Why: with SIGINT at
    SIG_IGN (as an app of Jupyter's installs it), `_thread.interrupt_main()` does nothing, so a later interrupt test
    waits forever: a CI worker once hung in tests/queues' Ctrl-C test with SIGINT ignored (/proc's SigIgn). The
    warning names the test that left it, for whoever finds it in the output."""
    if threading.current_thread() is not threading.main_thread():
        return
    handler = signal.getsignal(signal.SIGINT)
    if handler is not signal.default_int_handler:
        warnings.warn(f"Ctrl-C's handler was left as {handler!r}: Python's default restored",
                      RuntimeWarning, stacklevel=2)
        signal.signal(signal.SIGINT, signal.default_int_handler)
