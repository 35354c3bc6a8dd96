"""The engine's source as read-only pages: `source/webflow/ops/math_ops.py.html#L123` (`make site`, site/build.py).

The lessons link to the line that does the work (lessons/source_links.py finds it by inspection when the cell runs);
in JupyterLite and in a static export such a link lands here. One page per source file of the webflow package
(Python, and the C kernels in webflow/wasm/), each line an anchor `L<n>` (the line is highlighted when it is
the link's target, by CSS `:target`), plus `source/index.html` listing the files. Every character of the source is
escaped (`<` is `&lt;`), and a page has no script at all: it carries the site's Content-Security-Policy `<meta>`
(copied from site/index.html, so the policy is written once) and links one stylesheet, `source/source.css`.

    python site/source_pages.py [--out site/_build]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from html import escape

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PACKAGE = os.path.join(REPO, "webflow")
FOLDER = "source"   # lessons/source_links.py's SITE_SOURCE_FOLDER
EXTENSIONS = (".py", ".c", ".h")
SKIPPED = ("__pycache__", "_build", "labextension")
_POLICY_META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="[^"]+">')
STYLE = """body { font-family: system-ui, sans-serif; margin: 0; color: #222; }
header { padding: 0.5rem 1rem; background: #f3f5f8; border-bottom: 1px solid #dde; }
pre { margin: 0; font: 13px/1.45 ui-monospace, monospace; }
.line { display: block; padding-right: 1rem; }
.line:target { background: #fff3b0; }
.line a { display: inline-block; width: 4.5em; padding-right: 1em; text-align: right; color: #99a;
          text-decoration: none; user-select: none; }
ul { font: 14px/1.6 ui-monospace, monospace; }
"""


def site_policy_meta() -> str:
    """The site's Content-Security-Policy <meta>, as site/index.html carries it."""
    with open(os.path.join(HERE, "index.html"), encoding="utf-8") as file:
        found = _POLICY_META.search(file.read())
    if not found:
        raise SystemExit("site/index.html has no Content-Security-Policy meta to copy")
    return found.group(0)


def source_files(package: str = PACKAGE) -> list[str]:
    """The package's source files, relative to the repository (`webflow/ops/math_ops.py`), sorted."""
    found = []
    for folder, subfolders, names in os.walk(package):
        subfolders[:] = sorted(name for name in subfolders if name not in SKIPPED)
        found += [os.path.relpath(os.path.join(folder, name), os.path.dirname(package)).replace(os.sep, "/")
                  for name in names if name.endswith(EXTENSIONS)]
    return sorted(found)


def page(relative: str, text: str, meta: str) -> str:
    """One file's page: every line escaped, inside its own anchor target `L<n>`."""
    depth = relative.count("/")
    up = "../" * depth
    rows = "".join(f'<span class="line" id="L{number}"><a href="#L{number}">{number}</a>'
                   f"{escape(line, quote=False)}</span>" for number, line in enumerate(text.splitlines(), start=1))
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" + meta + "\n"
            f"<title>{escape(relative)}</title>\n<link rel=\"stylesheet\" href=\"{up}source.css\">\n</head>\n<body>\n"
            f"<header><a href=\"{up}index.html\">webflow source</a> / <strong>{escape(relative)}</strong> "
            "(read-only; the lessons link here)</header>\n"
            f"<pre>{rows}</pre>\n</body>\n</html>\n")


def index_page(files: list[str], meta: str) -> str:
    items = "".join(f'<li><a href="{escape(name)}.html">{escape(name)}</a></li>' for name in files)
    return ("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" + meta + "\n"
            "<title>webflow source</title>\n<link rel=\"stylesheet\" href=\"source.css\">\n</head>\n<body>\n"
            "<header><strong>webflow source</strong>: every file of the engine, read-only</header>\n"
            f"<ul>{items}</ul>\n</body>\n</html>\n")


def _write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(temporary, path)   # never a half-written page


def build(out_dir: str, package: str = PACKAGE) -> int:
    """Writes out_dir/source/ afresh (a page per source file, index.html, source.css); returns the page count."""
    target = os.path.join(out_dir, FOLDER)
    if os.path.isdir(target):
        shutil.rmtree(target)
    meta = site_policy_meta()
    files = source_files(package)
    for relative in files:
        with open(os.path.join(os.path.dirname(package), relative), encoding="utf-8") as file:
            text = file.read()
        _write(os.path.join(target, relative + ".html"), page(relative, text, meta))
    _write(os.path.join(target, "index.html"), index_page(files, meta))
    _write(os.path.join(target, "source.css"), STYLE)
    return len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(HERE, "_build"), help="the site's folder (default site/_build)")
    args = parser.parse_args()
    print(f"{build(args.out)} source pages in {os.path.join(args.out, FOLDER)}")


if __name__ == "__main__":
    main()
