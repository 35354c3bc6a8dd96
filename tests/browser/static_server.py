"""A static file server for the browser tests and benchmarks: 127.0.0.1 only, a free port, a thread.

    with serve({"/": "site/_build", "/tfjs/": "benchmarks/wasm/node_modules/@tensorflow/"}) as origin:
        page.goto(origin + "/demo/mnist.html")          # origin is "http://127.0.0.1:<port>"

`mounts` maps URL prefixes (ending in "/") to folders; the longest matching prefix wins. Files get the
MIME types browsers insist on (application/wasm for instantiateStreaming, text/javascript for modules).
Run as a script to browse the built site by hand: `python tests/browser/static_server.py [folder]`.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import posixpath
import sys
import threading
import urllib.parse
from collections.abc import Iterator

TYPES = {".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
         ".whl": "application/octet-stream", ".json": "application/json", ".py": "text/plain; charset=utf-8",
         ".zip": "application/zip", ".ipynb": "application/json"}


class MountedHandler(http.server.SimpleHTTPRequestHandler):
    """SimpleHTTPRequestHandler that looks files up in one of several folders, by URL prefix."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def __init__(self, *args, mounts: dict[str, str], **kwargs) -> None:
        self.mounts = sorted(mounts.items(), key=lambda item: -len(item[0]))
        super().__init__(*args, directory=self.mounts[-1][1], **kwargs)

    def translate_path(self, path: str) -> str:
        path = posixpath.normpath(urllib.parse.unquote(urllib.parse.urlsplit(path).path))
        for prefix, folder in self.mounts:
            if (path + "/").startswith(prefix):
                rest = path[len(prefix):].lstrip("/")
                parts = [part for part in rest.split("/") if part not in ("", ".", "..")]
                return os.path.join(folder, *parts) + ("/" if self.path.split("?")[0].endswith("/") else "")
        return os.path.join(self.mounts[-1][1], "__no_such_file__")

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")   # every test run sees the files just built
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@contextlib.contextmanager
def serve(mounts: dict[str, str] | str) -> Iterator[str]:
    """Serves `mounts` (or one folder at "/") on 127.0.0.1 and a free port; yields the origin URL."""
    if isinstance(mounts, str):
        mounts = {"/": mounts}
    mounts = {prefix: os.path.abspath(folder) for prefix, folder in mounts.items()}
    handler = functools.partial(MountedHandler, mounts=mounts)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "site", "_build")
    with serve(root) as origin:
        print(f"serving {os.path.abspath(root)} at {origin}/ (Ctrl-C to stop)", flush=True)
        threading.Event().wait()
