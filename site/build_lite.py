"""The JupyterLite site of the lessons: JupyterLab in the browser, Python by Pyodide, webflow preinstalled, offline.

    python site/build_lite.py WEBFLOW_WHEEL [--out site/_build/lite]

`build(out_dir, webflow_wheel)` stages a JupyterLite project folder (a temporary folder) and runs
`jupyter lite build` (jupyterlite-core + jupyterlite-pyodide-kernel 0.8.6) on it:

- static/pyodide/: the offline Pyodide distribution of build_pyodide.py (made first if missing), plus
  webflow's wheel and protobuf's pure-Python wheel listed in its pyodide-lock.json, webflow's entry depending
  on protobuf's. The kernel calls `pyodide.loadPackagesFromImports` before every cell, so a cell that says
  `import webflow` loads both wheels on its own (webflow imports protobuf lazily, inside the functions that
  read or write TensorFlow's files, which the kernel's import scan cannot see: hence the dependency): no
  install cell, and nothing is loaded at kernel start for notebooks that do not use it. protobuf's entry
  replaces the lock's own (Pyodide's wasm build of an older protobuf, which only its CDN has). The jupyterlite
  build copies this well-known folder into the site and points the kernel's `pyodideUrl` at it.
- piplite wheels: `comm`, which the kernel installs at start-up and which Pyodide's lock does not have
  (ipykernel, piplite and pyodide-kernel come inside the kernel extension's own wheel index), and webflow's
  and protobuf's wheels again, so `%pip install webflow` (piplite, which resolves webflow's requirement on
  protobuf) also works offline.
- ipywidgets (the lessons' knobs, Keras `fit`'s live progress bar): its wheel in the Pyodide lock too, and webflow's
  entry depends on it, so `import webflow` loads it (webflow imports it lazily, where the kernel's scan cannot see);
  the widget manager (@jupyter-widgets/jupyterlab-manager, from jupyterlab_widgets' wheel) as a federated
  extension; ipywidgets' and jupyterlab_widgets' wheels in the piplite index as well (the kernel's own index has
  the widgetsnbextension shim ipywidgets requires), for a `%pip install ipywidgets` offline (not tested).
- jupyter-lite.json: `disablePyPIFallback` so a `%pip install` of something we do not ship fails at once
  with a clear message instead of trying pypi.org.
- contents: the lessons/ notebooks; federated extensions: the Pyodide kernel's, and webflow's JupyterLab
  extension when webflow's wheel carries one (share/jupyter/labextensions/ inside the wheel).
  `--ignore-sys-prefix` keeps whatever else is installed in this Python out of the site.
Nothing in the built site refers to another origin: the browser test checks every request.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import build_pyodide  # noqa: E402
import lite_policy  # noqa: E402

LESSONS = os.path.join(REPO, "lessons")
DEFAULT_OUT = os.path.join(HERE, "_build", "lite")
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
KERNEL_EXTENSION = "@jupyterlite/pyodide-kernel-extension"
# Installed by the kernel at start-up (`piplite.install("comm")`) and absent from Pyodide's lock.
PIPLITE_REQUIREMENTS = ("comm==0.2.3",)
# The widgets of the lessons and of `fit`: ipywidgets 8 with the manager extension of jupyterlab_widgets 3.
WIDGETS = {"name": "ipywidgets", "version": "8.1.9", "file_name": "ipywidgets-8.1.9-py3-none-any.whl"}
WIDGETS_MANAGER = {"name": "jupyterlab_widgets", "version": "3.0.17",
                   "file_name": "jupyterlab_widgets-3.0.17-py3-none-any.whl"}
# JupyterLab settings of the site. Lessons are short: render every cell ("none") instead of only those in
# view, so the browser's find (and the browser test) sees the whole notebook with its outputs.
SETTINGS_OVERRIDES = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}


class LiteBuildFailed(RuntimeError):
    """jupyter lite build (or one of its inputs) failed."""


def kernel_extension_dir() -> str:
    """The installed Pyodide kernel labextension (shipped by the jupyterlite-pyodide-kernel wheel)."""
    from jupyter_core.paths import jupyter_path

    for root in [os.path.join(sys.prefix, "share", "jupyter", "labextensions"), *jupyter_path("labextensions")]:
        candidate = os.path.join(root, KERNEL_EXTENSION)
        if os.path.exists(os.path.join(candidate, "package.json")):
            return candidate
    raise LiteBuildFailed("jupyterlite-pyodide-kernel is not installed (pip install '.[browser]')")


def wheel_labextensions(wheel: str) -> list[str]:
    """Names of the prebuilt JupyterLab extensions a wheel carries (its data/share/jupyter/labextensions/)."""
    marker = "/data/share/jupyter/labextensions/"
    with zipfile.ZipFile(wheel) as archive:
        names = {name.split(marker, 1)[1].rsplit("/package.json", 1)[0]
                 for name in archive.namelist() if marker in name and name.endswith("/package.json")}
    return sorted(name for name in names if name.count("/") <= 1)  # "pkg" or "@scope/pkg", not nested files


def _piplite_wheels(folder: str) -> None:
    """The extra piplite wheels, from the same PyPI cache as the Pyodide distribution's."""
    os.makedirs(folder, exist_ok=True)
    os.makedirs(build_pyodide.CACHE, exist_ok=True)
    for requirement in PIPLITE_REQUIREMENTS:
        name, version = requirement.split("==")
        entry = {"name": name, "version": version, "file_name": f"{name}-{version}-py3-none-any.whl"}
        shutil.copy2(build_pyodide.download_wheels([entry])[name], folder)
    for path in _widget_wheels().values():
        shutil.copy2(path, folder)


def _widget_wheels() -> dict[str, str]:
    """{name: cached wheel} of ipywidgets and jupyterlab_widgets (which carries the widget manager extension)."""
    return build_pyodide.download_wheels([WIDGETS, WIDGETS_MANAGER])


def _config() -> dict:
    """jupyter-lite.json of the staging folder; the build adds pyodideUrl, pipliteUrls and the extensions."""
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        "appName": "webflow lessons",
        "litePluginSettings": {KERNEL_PLUGIN: {"disablePyPIFallback": True}}}}


def _build_config(extensions: list[str], wheels: str) -> dict:
    """jupyter_lite_config.json: the build's options (the CLI has no flag for federated_extensions)."""
    return {
        "LiteBuildConfig": {
            "contents": [LESSONS],
            "federated_extensions": extensions,
            "ignore_sys_prefix": True,  # only the extensions named here, not whatever this Python has installed
            "no_sourcemaps": True,  # ~50 MB of .map files a learner's browser never needs
            "settings_overrides": ["overrides.json"],
        },
        "PipliteAddon": {"piplite_urls": [wheels]},  # a folder: every wheel in it is indexed
    }


def build(out_dir: str = DEFAULT_OUT, webflow_wheel: str = "", pyodide_dir: str | None = None,
          protobuf_wheel: str | None = None) -> None:
    """Builds the JupyterLite site into out_dir (pyodide_dir: an offline distribution, default the
    `pyodide/` folder next to out_dir, made there if missing; protobuf_wheel: protobuf's pure-Python wheel,
    default tools/wheels.py's pinned one, downloaded into the PyPI cache when missing).

    The JupyterLite project folder is staged in a temporary folder, so nothing but the site lands in out_dir."""
    if not os.path.isfile(webflow_wheel):
        raise LiteBuildFailed(f"no webflow wheel at {webflow_wheel!r}")
    # The site's layout (site/build.py): <site>/pyodide/ next to <site>/lite/; built here if it is not there yet.
    pyodide_dir = pyodide_dir or os.path.join(os.path.dirname(os.path.abspath(out_dir)), "pyodide")
    if not os.path.exists(os.path.join(pyodide_dir, "pyodide-lock.json")):
        build_pyodide.build(pyodide_dir)
    protobuf_wheel = protobuf_wheel or _tools_wheels().protobuf_wheel(build_pyodide.CACHE)
    with tempfile.TemporaryDirectory(prefix="webflow-lite-") as staging:
        _stage(staging, webflow_wheel, pyodide_dir, protobuf_wheel)
        if os.path.isdir(out_dir):
            shutil.rmtree(out_dir)
        command = [sys.executable, "-m", "jupyter", "lite", "build", "--lite-dir", staging,
                   "--output-dir", os.path.abspath(out_dir)]
        done = subprocess.run(command, cwd=staging, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise LiteBuildFailed(f"jupyter lite build failed:\n{(done.stdout + done.stderr)[-4000:]}")
    lite_policy.protect(out_dir)   # every page: its Content-Security-Policy (lite_policy.py)


def _tools_wheels() -> ModuleType:
    """tools/wheels.py (a script folder, not a package), for protobuf's pinned wheel."""
    spec = importlib.util.spec_from_file_location("webflow_tools_wheels", os.path.join(REPO, "tools", "wheels.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stage(staging: str, webflow_wheel: str, pyodide_dir: str, protobuf_wheel: str) -> None:
    """The JupyterLite project folder: Pyodide (+ webflow and protobuf in its lock), piplite wheels, the configs."""
    # The well-known place the kernel addon copies Pyodide from: <lite dir>/static/pyodide/.
    staged_pyodide = os.path.join(staging, "static", "pyodide")
    shutil.copytree(pyodide_dir, staged_pyodide)
    protobuf_version = os.path.basename(protobuf_wheel).split("-")[1]
    build_pyodide.add_wheel_to_lock(staged_pyodide, protobuf_wheel, "protobuf", ["google"], protobuf_version)
    widgets = _widget_wheels()
    # ipywidgets needs traitlets and IPython (in the lock) and comm (piplite-installed at kernel start-up).
    build_pyodide.add_wheel_to_lock(staged_pyodide, widgets["ipywidgets"], "ipywidgets", ["ipywidgets"],
                                    WIDGETS["version"], depends=("traitlets", "ipython"))
    version = os.path.basename(webflow_wheel).split("-")[1]
    build_pyodide.add_wheel_to_lock(staged_pyodide, webflow_wheel, "webflow", ["webflow"], version,
                                    depends=("protobuf", "ipywidgets"))
    _piplite_wheels(os.path.join(staging, "wheels"))
    for wheel in (webflow_wheel, protobuf_wheel):  # also for `%pip install webflow`, offline
        shutil.copy2(wheel, os.path.join(staging, "wheels"))
    with open(os.path.join(staging, "jupyter-lite.json"), "w") as file:
        json.dump(_config(), file, indent=2)
    with open(os.path.join(staging, "overrides.json"), "w") as file:
        json.dump(SETTINGS_OVERRIDES, file, indent=2)
    extensions = [kernel_extension_dir(), widgets["jupyterlab_widgets"]]   # the widget manager, from its wheel
    if wheel_labextensions(webflow_wheel):
        extensions.append(os.path.abspath(webflow_wheel))
    with open(os.path.join(staging, "jupyter_lite_config.json"), "w") as file:
        json.dump(_build_config(extensions, os.path.join(staging, "wheels")), file, indent=2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", help="webflow's wheel (tests/pyodide/wheels.py builds one)")
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder to write the site into")
    args = parser.parse_args()
    build(args.out, args.wheel)
    total = sum(os.path.getsize(os.path.join(root, name)) for root, _, names in os.walk(args.out) for name in names)
    print(f"{args.out}: {total / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
