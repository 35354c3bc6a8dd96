"""The lessons' links to the engine resolve inside Pyodide (Node, no NumPy) to the lines CPython finds.

In JupyterLite the links are made by lessons/source_links.py in the Pyodide kernel: webflow is installed there
(site-packages), NumPy is absent, and some linked modules need NumPy to be imported (backends/numpy/), so a link
is found by reading the module's file, and an op's stanza by its `@register_op("Type")` decorator. Every link of
every chapter (tests/test_source_links.py collects them) must land on the same file and line as in CPython.
Needs node + `npm ci` in tests/pyodide; skips without them.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable  # noqa: E402
from test_source_links import ALL_SYMBOLS, source_links  # noqa: E402

PROGRAM = """
import sys
for name in [n for n in sys.modules if n == "webflow" or n.startswith("webflow.")]:
    del sys.modules[name]   # the runner's bare package: import the real one
import os
os.makedirs("/tmp/lessons", exist_ok=True)
with open("/tmp/lessons/source_links.py", "w") as file:   # as JupyterLite's file system holds the lessons
    file.write(SOURCE)
sys.path.insert(0, "/tmp/lessons")
import source_links
spots = [source_links.locate(symbol) for symbol in SYMBOLS]
{"spots": [[spot.relative, spot.line, spot.definition] for spot in spots], "platform": sys.platform,
 "numpy": sys.modules.get("numpy") is not None,
 "page": source_links.page_href(spots[0]), "file": source_links.file_href(spots[0])}
"""


def test_every_chapter_link_lands_on_the_same_line_in_pyodide() -> None:
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        pytest.skip("node or tests/pyodide/node_modules (npm ci) missing: cannot run Pyodide")
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"))
    except PyodideUnavailable as error:
        pytest.skip(str(error))
    with open(os.path.join(ROOT, "lessons", "source_links.py"), encoding="utf-8") as file:
        source = file.read()
    try:
        got = session.evaluate(f"SOURCE = {source!r}\nSYMBOLS = {ALL_SYMBOLS!r}\n" + PROGRAM)
    finally:
        session.close()
    assert got["platform"] == "emscripten" and got["numpy"] is False
    expected = [[spot.relative, spot.line, spot.definition] for spot in map(source_links.locate, ALL_SYMBOLS)]
    assert got["spots"] == expected
    assert got["page"] is None and got["file"] is None   # Node has no page URL to link from, nor a file browser
