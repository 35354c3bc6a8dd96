"""The pytest side of pyodide_server.mjs: one Node + Pyodide process per test session.

    session = PyodideSession.start(package_dir)     # raises PyodideUnavailable with a reason
    results, outputs = session.run(job)              # a kernel_jobs.Job, run by the wasm module
    session.evaluate("import sys; 'numpy' in sys.modules")
    session.close()

    session = PyodideSession.start(wheel=webflow_whl, micropip=micropip_whl)   # installed with micropip
    session = PyodideSession.start(package_dir, node_flags=["--experimental-wasm-relaxed-simd"])
    session = PyodideSession.start(package_dir, extra_wheels=[protobuf_whl])   # loadPackage'd before webflow

Buffers travel as files in a temporary exchange folder that the server mounts at /exchange; only the
job description and the results go through the pipe (one JSON line each way).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time

from kernel_jobs import Buffer, Job

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "pyodide_server.mjs")
NODE_MODULES = os.path.join(HERE, "node_modules", "pyodide")
ROOT = os.path.dirname(os.path.dirname(HERE))
SITE_WHEELS = os.path.join(os.environ.get("WEBFLOW_SITE", os.path.join(ROOT, "site", "_build")), "wheels")


def site_protobuf_wheel() -> str:
    """The protobuf wheel of the built site (site/build.py downloads it from PyPI; no test downloads), which the
    browser pages load beside webflow's; skips (fails under `make test`) when the site is not built."""
    from conftest import require_or_skip

    index = os.path.join(SITE_WHEELS, "index.json")
    if not os.path.exists(index):
        require_or_skip(f"no built site at {SITE_WHEELS} (make site): it holds the protobuf wheel")
    with open(index) as file:
        name = json.load(file).get("protobuf")
    if not name:
        require_or_skip(f"{index} names no protobuf wheel: rebuild the site (make site)")
    return os.path.join(SITE_WHEELS, name)


class PyodideUnavailable(RuntimeError):
    """Node or the npm `pyodide` package is missing (run `npm ci` in tests/pyodide)."""


class PyodideError(RuntimeError):
    """Python code inside Pyodide raised (the message holds its traceback)."""


class PyodideSession:
    name = "pyodide"

    def __init__(self, process: subprocess.Popen, exchange: str, hello: dict) -> None:
        self.process = process
        self.exchange = exchange
        self.boot_seconds = hello["boot_ms"] / 1000       # loadPyodide() alone
        self.setup_seconds = hello["setup_ms"] / 1000     # copying webflow in + importing the runner
        # wheel sessions only: micropip.install of the webflow wheel, then `import webflow`
        self.install_seconds = hello.get("install_ms", 0.0) / 1000
        self.import_seconds = hello.get("import_ms", 0.0) / 1000
        self.extra_wheels_seconds = hello.get("extra_wheels_ms", 0.0) / 1000   # loadPackage of extra_wheels
        self._jobs = 0

    @classmethod
    def start(cls, package_dir: str | None = None, timeout: float = 300.0, wheel: str | None = None,
              micropip: str | None = None, node_flags: list[str] | None = None,
              extra_wheels: list[str] | None = None) -> PyodideSession:
        """webflow copied in from `package_dir`, or (with `wheel` and `micropip`) installed from its wheel.
        `node_flags` go to node itself (V8 options such as --experimental-wasm-relaxed-simd); `extra_wheels`
        (pure-Python wheel files, e.g. protobuf's) are installed with `loadPackage` before webflow."""
        if shutil.which("node") is None:
            raise PyodideUnavailable("node is not installed")
        if not os.path.isdir(NODE_MODULES):
            raise PyodideUnavailable(f"npm package pyodide not installed: run `npm ci` in {HERE}")
        exchange = tempfile.mkdtemp(prefix="wf-pyodide-")
        where = ["--wheel", wheel, "--micropip", micropip] if wheel else [package_dir]
        if extra_wheels:
            where = ["--extra-wheels", ",".join(os.path.abspath(path) for path in extra_wheels), *where]
        command = ["node", *(node_flags or []), SERVER, *where, exchange]
        process = subprocess.Popen(command, cwd=HERE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                   bufsize=1)
        started = time.monotonic()
        line = process.stdout.readline()
        if not line:
            process.wait(timeout=timeout - (time.monotonic() - started))
            shutil.rmtree(exchange, ignore_errors=True)
            raise PyodideUnavailable(f"pyodide_server.mjs exited with status {process.returncode} (see stderr)")
        return cls(process, exchange, json.loads(line))

    def _request(self, request: dict) -> object:
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise PyodideError(f"the Pyodide process died (status {self.process.poll()})")
        answer = json.loads(line)
        if not answer["ok"]:
            raise PyodideError(answer["error"])
        return answer["value"]

    def evaluate(self, code: str) -> object:
        """Runs Python `code` inside Pyodide; the value of its last expression (JSON types)."""
        return self._request({"eval": code})

    def run(self, job: Job) -> tuple[list, dict]:
        """Runs the job's calls in the wasm module inside Pyodide: (return values, {handle: array})."""
        self._jobs += 1
        prefix = f"job{self._jobs}"
        entries = []
        for i, (data, returned) in enumerate(zip(job.buffers, job.outputs, strict=True)):
            name = f"{prefix}-{i}.bin"
            data.tofile(os.path.join(self.exchange, name))
            entries.append({"file": name, "nbytes": int(data.size), "out": returned is not None})
        with open(os.path.join(self.exchange, prefix + ".json"), "w") as handle:
            json.dump({"buffers": entries, "calls": job.spec()}, handle)
        try:
            answer = self._request({"run": prefix + ".json"})
            outputs = {}
            for i, entry in enumerate(entries):
                if entry["out"]:
                    with open(os.path.join(self.exchange, entry["file"] + ".out"), "rb") as handle:
                        outputs[Buffer(i)] = job.decode(i, handle.read())
            return answer["results"], outputs
        finally:
            for name in os.listdir(self.exchange):
                if name.startswith(prefix + "-") or name == prefix + ".json":
                    os.remove(os.path.join(self.exchange, name))

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.exchange, ignore_errors=True)
