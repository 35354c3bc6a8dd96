"""The lessons' links to the engine's source (lessons/source_links.py) and the site's source pages
(site/source_pages.py) they land on.

Every chapter links at least twice to the code that does what its text explains. Each link is found by inspection
when the cell runs (no line number is written in a notebook), so here every link of every chapter is resolved and
checked: the file exists, the line it anchors holds the `def`/`class` the link's text names, that name is the
symbol's own (the last part of `module:Qual.name`, or the def under `@register_op("Type")` /
`@register_gradient("Type")` for `op:Type[/grad]`), and the built page of that file has the same line under the
anchor `L<n>`. Also checked: the same links resolve where NumPy is absent (JupyterLite), the hrefs a CPython
kernel writes point at the file and the page, the pages escape the source and carry the site's
Content-Security-Policy with no script, and the JupyterLite kernel finds the site's root from its worker's URL.
"""

from __future__ import annotations

import ast
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys
from html import escape, unescape

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS_DIR = os.path.join(ROOT, "lessons")
CHAPTERS = sorted(glob.glob(os.path.join(LESSONS_DIR, "[0-9][0-9]_*.ipynb")))
sys.path.insert(0, LESSONS_DIR)
import source_links  # noqa: E402


def _load_source_pages():
    spec = importlib.util.spec_from_file_location("webflow_site_source_pages",
                                                  os.path.join(ROOT, "site", "source_pages.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


source_pages = _load_source_pages()


def chapter_symbols(path: str) -> list[str]:
    """The string arguments of every source_link(...) / source_links(...) call in a notebook's code cells."""
    with open(path, encoding="utf-8") as file:
        cells = json.load(file)["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if "source_link" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("source_link", "source_links"):
                found += [arg.value for arg in node.args if isinstance(arg, ast.Constant)]
    return found


ALL_SYMBOLS = sorted({symbol for chapter in CHAPTERS for symbol in chapter_symbols(chapter)})


@pytest.fixture(scope="module")
def built_pages(tmp_path_factory) -> str:
    """The source pages, built as `make site` builds them, into a temporary site folder; returns source/."""
    out = tmp_path_factory.mktemp("site")
    count = source_pages.build(str(out))
    assert count > 100
    return os.path.join(str(out), source_pages.FOLDER)


def test_there_are_twelve_chapters() -> None:
    assert len(CHAPTERS) == 12, CHAPTERS


@pytest.mark.parametrize("path", CHAPTERS, ids=[os.path.basename(path) for path in CHAPTERS])
def test_every_chapter_links_at_least_twice(path: str) -> None:
    assert len(chapter_symbols(path)) >= 2


def _expected_name(symbol: str) -> str | None:
    """The name a module symbol's def must carry (op symbols are checked by their decorator instead)."""
    return None if symbol.startswith("op:") else symbol.partition(":")[2].rpartition(".")[2]


@pytest.mark.parametrize("symbol", ALL_SYMBOLS)
def test_link_lands_on_the_line_that_defines_it(symbol: str, built_pages: str) -> None:
    spot = source_links.locate(symbol)
    assert os.path.isfile(spot.path) and spot.relative.startswith("webflow/")
    with open(spot.path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    line = lines[spot.line - 1]
    assert line.lstrip().startswith((spot.definition + "(", spot.definition + ":", "async " + spot.definition)), line
    if _expected_name(symbol):
        assert spot.name == _expected_name(symbol)
    elif "/portable" not in symbol:   # op:Type is the def right under its stanza's decorator naming "Type"
        decorators = []
        for above in reversed(lines[:spot.line - 1]):
            if above.lstrip().startswith(("def ", "class ")) or not above.strip():
                break
            decorators.append(above)
        wanted = "@register_gradient" if symbol.endswith("/grad") else "@register_op"
        assert any(wanted in text for text in decorators), decorators
        assert any(f'"{symbol[3:].split("/")[0]}"' in text for text in decorators), decorators
    link = source_links.SourceLink(symbol)
    assert escape(spot.definition) in link.html() and spot.definition in repr(link)
    page = os.path.join(built_pages, spot.relative + ".html")
    with open(page, encoding="utf-8") as file:
        html = file.read()
    anchored = re.search(rf'<span class="line" id="L{spot.line}"><a href="#L{spot.line}">{spot.line}</a>(.*?)</span>',
                         html)
    assert anchored and unescape(anchored.group(1)) == line


def test_links_resolve_without_numpy() -> None:
    """As in JupyterLite: NumPy cannot be imported, and every chapter's link still resolves to the same line."""
    program = ("import sys, json\nsys.modules['numpy'] = None\n"
               f"sys.path.insert(0, {LESSONS_DIR!r})\nimport source_links\n"
               f"symbols = {ALL_SYMBOLS!r}\n"
               "spots = [source_links.locate(s) for s in symbols]\n"
               "print(json.dumps({s: [spot.relative, spot.line] for s, spot in zip(symbols, spots)}))")
    env = dict(os.environ, PYTHONPATH=ROOT)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    there = json.loads(done.stdout.strip().splitlines()[-1])
    here = {s: [source_links.locate(s).relative, source_links.locate(s).line] for s in ALL_SYMBOLS}
    assert there == here


def test_cpython_hrefs_point_at_the_file_and_the_page(monkeypatch, built_pages: str) -> None:
    """In a checkout's lessons/ folder: the file relative to the notebook, and the page at its line (here a served
    site named by WEBFLOW_SOURCE_URL; by default the checkout's site/_build/source/)."""
    monkeypatch.chdir(LESSONS_DIR)
    spot = source_links.locate("webflow.runtime.session:BaseSession.run")
    assert source_links.file_href(spot) == "../webflow/runtime/session.py"
    assert os.path.samefile(os.path.join(LESSONS_DIR, source_links.file_href(spot)), spot.path)
    monkeypatch.delenv("WEBFLOW_SOURCE_URL", raising=False)
    assert source_links.page_href(spot) == f"../site/_build/source/webflow/runtime/session.py.html#L{spot.line}"
    monkeypatch.setenv("WEBFLOW_SOURCE_URL", "http://127.0.0.1:8000/source/")
    href = source_links.page_href(spot)
    assert href == f"http://127.0.0.1:8000/source/webflow/runtime/session.py.html#L{spot.line}"
    page = os.path.join(built_pages, href.split("/source/", 1)[1].split("#")[0])
    assert f'id="L{spot.line}"' in open(page, encoding="utf-8").read()
    html = source_links.source_links("webflow.runtime.session:BaseSession.run")._repr_html_()
    assert f'href="{escape(href)}"' in html and 'href="../webflow/runtime/session.py"' in html


def test_jupyterlite_finds_the_site_root_from_its_worker() -> None:
    worker = "http://127.0.0.1:8000/lite/extensions/@jupyterlite/pyodide-kernel-extension/static/comlink.worker.js"
    assert source_links.site_root_of(worker) == "http://127.0.0.1:8000"
    assert source_links.site_root_of("https://a.example/class/lite/extensions/x/y.js") == "https://a.example/class"
    assert source_links.site_root_of("http://127.0.0.1:8000/worker.js") is None
    assert source_links.site_root_of("http://127.0.0.1:8000/extensions/x/worker.js") is None   # lite alone


def test_an_unknown_symbol_is_an_error_not_a_wrong_link() -> None:
    with pytest.raises((LookupError, AttributeError, ModuleNotFoundError)):
        source_links.locate("webflow.runtime.session:NoSuchThing")
    with pytest.raises(KeyError):
        source_links.locate("op:NoSuchOp")


def test_source_pages_escape_the_source_and_run_no_script(tmp_path) -> None:
    package = tmp_path / "webflow"
    package.mkdir()
    (package / "tricky.py").write_text('x = "<script>alert(1)</script>" if a < b && c > d else \'&amp;\'\n')
    source_pages.build(str(tmp_path / "out"), package=str(package))
    html = (tmp_path / "out" / "source" / "webflow" / "tricky.py.html").read_text()
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "a &lt; b &amp;&amp; c &gt; d" in html and "&amp;amp;" in html
    line = re.search(r'id="L1"><a href="#L1">1</a>(.*?)</span>', html).group(1)
    assert unescape(line) == (package / "tricky.py").read_text().rstrip("\n")


def test_every_source_page_carries_the_site_policy_and_no_script(built_pages: str) -> None:
    meta = source_pages.site_policy_meta()
    assert "script-src 'self'" in meta and "'unsafe-inline'" not in meta.split("script-src")[1].split(";")[0]
    pages = glob.glob(os.path.join(built_pages, "**", "*.html"), recursive=True)
    assert len(pages) == len(source_pages.source_files()) + 1   # + index.html
    for page in pages:
        with open(page, encoding="utf-8") as file:
            html = file.read()
        head = html.split("</head>", 1)[0]
        assert head.count(meta) == 1 and html.count("Content-Security-Policy") == 1, page
        assert "<script" not in html.lower() and " on" not in re.sub(r"<pre>.*</pre>", "", html, flags=re.S), page
