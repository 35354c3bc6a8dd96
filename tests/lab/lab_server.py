"""A throwaway JupyterLab server for browser tests: 127.0.0.1, free port, no token, a temp root folder.

(Not named jupyterlab_server.py: that would shadow the jupyterlab_server package JupyterLab imports.)

    with jupyterlab_server(root_dir) as url:      # url = "http://127.0.0.1:PORT"
        page.goto(url + "/lab/tree/graph.ipynb")

webflow's built extension (webflow/lab/labextension) is added with --LabApp.extra_labextensions_path, so
the server shows it whether or not webflow is pip-installed in this environment. Notebooks are written to
disk (PUT /api/contents without a token fails the XSRF check, PLATFORM.md).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILT = os.path.join(REPO, "webflow", "lab", "labextension")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab_server(root_dir: str, timeout: float = 180.0, extra_env: dict | None = None) -> Iterator[str]:
    """Start `jupyter lab` serving `root_dir`; yields its URL; stops it (this process only) on exit.

    extra_env: extra environment variables for the server and so its kernels (e.g. JUPYTER_PATH to a kernelspec)."""
    port = _free_port()
    with tempfile.TemporaryDirectory(prefix="wf-lab-") as work:
        extensions = os.path.join(work, "labextensions")
        os.makedirs(extensions)
        os.symlink(BUILT, os.path.join(extensions, "webflow-lab"))
        env = {**os.environ, "JUPYTER_CONFIG_DIR": os.path.join(work, "config"),
               "JUPYTER_RUNTIME_DIR": os.path.join(work, "runtime"),
               "JUPYTERLAB_WORKSPACES_DIR": os.path.join(work, "ws"), **(extra_env or {})}
        command = [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", f"--ServerApp.port={port}",
                   "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
                   f"--ServerApp.root_dir={root_dir}", f"--LabApp.extra_labextensions_path={extensions}",
                   "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        log_path = os.path.join(work, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=root_dir)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    with urllib.request.urlopen(url + "/api/status", timeout=5) as response:
                        if response.status == 200:
                            break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not start: {open(log_path).read()[-3000:]}")
                time.sleep(0.5)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
