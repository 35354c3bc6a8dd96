"""`make site`: builds the whole static site into site/_build/, ready to be served by any static file server.

    python site/build.py [--out site/_build] [--skip-lite]

The steps, in order (each step's folder is replaced, the rest of out_dir is left alone):
1. wheels/: webflow's wheel, built once from the current sources (tools/wheels.py: webflow_kernels.wasm
   rebuilt if stale and shipped inside), protobuf's pure-Python wheel (pinned in tools/wheels.py, pip-downloaded
   from PyPI into site/_cache/pypi/ on the first build: the runtime of webflow's _pb2 modules, for checkpoints,
   GraphDefs, event files and tf.train.Example), plus wheels/index.json naming both
   ({"webflow": "<file name>", "protobuf": "<file name>"}), which is how the pages find the wheels without
   hard-coding their versions.
2. pyodide/: the offline Pyodide distribution (site/build_pyodide.py `build(out_dir)`: npm `pyodide`'s
   core files and the pure-Python wheels of its lock, with a rewritten lock). Pages load Pyodide from
   here, never from a CDN.
3. index.html, demo/ and playground/: the site's front page, the "Train MNIST in your browser" page
   (site/demo/, with its conv net's 20,000 training images from $WEBFLOW_DATA/mnist in demo/mnist_cnn/),
   the char-RNN page (site/demo/char_rnn.*, with a Shakespeare slice from $WEBFLOW_DATA)
   and the "Graph playground" (site/playground/, with its examples/ and the graph renderer's
   standalone bundle labextension/dist/webflow-graph.{js,css}, which `make labext` builds; the build stops
   at once if it is missing), and source/: webflow's source as read-only pages with line anchors, where the
   lessons' links to the engine land (site/source_pages.py).
4. lite/: JupyterLite with the lessons (site/build_lite.py `build(out_dir, wheel_path)`), when that file
   exists and --skip-lite is not given.
Serve it with `python -m http.server -d site/_build -b 127.0.0.1` (or tests/browser/static_server.py).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import shutil
import sys
import time
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(HERE, "_build")
DEMO_FILES = (".html", ".js", ".css", ".py")   # what site/demo/ ships (not __pycache__ or editor files)
RENDERER = os.path.join(REPO, "labextension", "dist")   # the JupyterLab extension's renderer for plain pages
RENDERER_FILES = ("webflow-graph.js", "webflow-graph.css")
PYPI_CACHE = os.path.join(HERE, "_cache", "pypi")   # wheels from PyPI, kept between builds (git-ignored)
CHAR_RNN_CHARS = 100_000   # the char-RNN page's Shakespeare slice (the corpus' first characters, 74 distinct)
CNN_TRAIN_IMAGES = 20_000  # the conv net's training set: MNIST's first images (the wheel's sample has 6,000)


def _load(path: str, name: str) -> ModuleType:
    """Imports a build script by its path (site/ and tools/ are folders of scripts, not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def build_wheels(out_dir: str) -> dict[str, str]:
    """Step 1: webflow's and protobuf's wheels in out_dir/wheels/ (old ones removed) and index.json naming them;
    returns {"webflow": path, "protobuf": path}."""
    wheels = _load(os.path.join(REPO, "tools", "wheels.py"), "webflow_tools_wheels")
    folder = os.path.join(out_dir, "wheels")
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    paths = {"webflow": wheels.build_webflow_wheel(folder)}
    paths["protobuf"] = shutil.copy2(wheels.protobuf_wheel(PYPI_CACHE), folder)
    with open(os.path.join(folder, "index.json"), "w") as file:
        json.dump({name: os.path.basename(path) for name, path in paths.items()}, file)
    return paths


def build_pages(out_dir: str) -> None:
    """Step 3: index.html, demo/ and common/ copied from site/ (static files; only index.html's chapter list is
    made afresh from lessons/ by site/chapters.py, so the front page always lists the chapters there are)."""
    chapters = _load(os.path.join(HERE, "chapters.py"), "webflow_site_chapters")
    chapters.write_front_page(os.path.join(out_dir, "index.html"))
    target = os.path.join(out_dir, "demo")
    if os.path.isdir(target):
        shutil.rmtree(target)
    os.makedirs(target)
    for name in sorted(os.listdir(os.path.join(HERE, "demo"))):
        if name.endswith(DEMO_FILES):
            shutil.copy2(os.path.join(HERE, "demo", name), target)
    build_char_rnn_files(target)
    build_cnn_mnist_files(target)
    common = os.path.join(out_dir, "common")  # the workers' shared boot (Pyodide + webflow's wheel)
    if os.path.isdir(common):
        shutil.rmtree(common)
    shutil.copytree(os.path.join(HERE, "common"), common)


def build_char_rnn_files(demo_dir: str) -> None:
    """The char-RNN page's data and shared model code: the first CHAR_RNN_CHARS characters of
    $WEBFLOW_DATA/text/shakespeare_plays.txt.gz (default ../shared/data, as the Makefile's) as
    demo/char_rnn_text.txt, and benchmarks/char_lm_model.py beside char_rnn_model.py, which imports it."""
    data = os.environ.get("WEBFLOW_DATA") or os.path.join(REPO, "..", "shared", "data")
    shakespeare = _load(os.path.join(REPO, "webflow", "datasets", "shakespeare.py"), "webflow_site_shakespeare")
    text = shakespeare.load_text(data, max_chars=CHAR_RNN_CHARS)
    temporary = os.path.join(demo_dir, "char_rnn_text.txt.tmp")
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, os.path.join(demo_dir, "char_rnn_text.txt"))
    shutil.copy2(os.path.join(REPO, "benchmarks", "char_lm_model.py"), demo_dir)


def build_cnn_mnist_files(demo_dir: str) -> None:
    """The conv net's training set: the first CNN_TRAIN_IMAGES images and labels of $WEBFLOW_DATA/mnist as
    gzip IDX files in demo/mnist_cnn/ (about 3 MB, fetched only by mnist.html?model=cnn). On the wheel's 6,000
    images this model stops near 97 % (in TensorFlow too); on 20,000 it passes 98 %."""
    data = os.environ.get("WEBFLOW_DATA") or os.path.join(REPO, "..", "shared", "data")
    target = os.path.join(demo_dir, "mnist_cnn")
    os.makedirs(target, exist_ok=True)
    for name, item_bytes in (("train-images-idx3-ubyte.gz", 28 * 28), ("train-labels-idx1-ubyte.gz", 1)):
        with gzip.open(os.path.join(data, "mnist", name)) as file:
            payload = file.read()
        ndim = payload[3]   # IDX: magic 00 00 08 ndim, ndim big-endian sizes, then the bytes
        header = payload[:4] + CNN_TRAIN_IMAGES.to_bytes(4, "big") + payload[8:4 + 4 * ndim]
        body = payload[4 + 4 * ndim: 4 + 4 * ndim + CNN_TRAIN_IMAGES * item_bytes]
        temporary = os.path.join(target, name + ".tmp")
        with open(temporary, "wb") as file:   # mtime 0: the same input gives the same bytes
            file.write(gzip.compress(header + body, mtime=0))
        os.replace(temporary, os.path.join(target, name))


def check_renderer() -> None:
    """The graph playground draws with the labextension's standalone bundle: stop early if it is not built."""
    missing = [name for name in RENDERER_FILES if not os.path.exists(os.path.join(RENDERER, name))]
    if missing:
        raise SystemExit(f"site: the graph renderer bundle is missing ({', '.join(missing)} in {RENDERER}): "
                         "run `make labext` first (npm builds labextension/dist/)")


def build_playground(out_dir: str) -> None:
    """playground/ (its pages and examples/) plus the renderer bundle beside them."""
    source, target = os.path.join(HERE, "playground"), os.path.join(out_dir, "playground")
    if os.path.isdir(target):
        shutil.rmtree(target)

    def skipped(folder: str, names: list[str]) -> list[str]:   # keep sub-folders (examples/) and page files
        return [name for name in names if name == "__pycache__"
                or not (os.path.isdir(os.path.join(folder, name)) or name.endswith(DEMO_FILES))]

    shutil.copytree(source, target, ignore=skipped)
    for name in RENDERER_FILES:
        shutil.copy2(os.path.join(RENDERER, name), target)


def build(out_dir: str = DEFAULT_OUT, lite: bool = True) -> dict:
    """Builds every part of the site into out_dir; returns {step: seconds}."""
    check_renderer()
    os.makedirs(out_dir, exist_ok=True)
    seconds, mark = {}, time.perf_counter()

    def timed(step: str) -> None:
        nonlocal mark
        seconds[step] = round(time.perf_counter() - mark, 1)
        mark = time.perf_counter()
        print(f"site: {step} done ({seconds[step]} s)", flush=True)

    wheels = build_wheels(out_dir)
    timed("wheels")
    _load(os.path.join(HERE, "build_pyodide.py"), "webflow_site_build_pyodide").build(os.path.join(out_dir, "pyodide"))
    timed("pyodide")
    build_pages(out_dir)
    build_playground(out_dir)
    _load(os.path.join(HERE, "source_pages.py"), "webflow_site_source_pages").build(out_dir)  # source/*.html#L<n>
    timed("pages")
    lite_script = os.path.join(HERE, "build_lite.py")
    if lite and os.path.exists(lite_script):
        _load(lite_script, "webflow_site_build_lite").build(os.path.join(out_dir, "lite"), wheels["webflow"],
                                                             protobuf_wheel=wheels["protobuf"])
        timed("lite")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DEFAULT_OUT, help="folder to build the site into (default site/_build)")
    parser.add_argument("--skip-lite", action="store_true", help="leave out the JupyterLite lessons (faster)")
    args = parser.parse_args()
    build(args.out, lite=not args.skip_lite)
    print(f"site built in {args.out}: serve it with  python -m http.server -d {args.out} -b 127.0.0.1")


if __name__ == "__main__":
    main()
