"""The README and the site's front page list the chapters, one line each, and agree with lessons/.

site/chapters.py makes both lists from lessons/README.md's table and the notebooks' titles; site/build.py fills
the front page's list when it builds. Here: the table names every notebook and says honestly which chapters are
not written; README.md and site/index.html hold exactly what site/chapters.py makes now (if not: run
`python site/chapters.py --write`); the built front page does too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = os.path.join(ROOT, "lessons")


def load_chapters():
    spec = importlib.util.spec_from_file_location("site_chapters", os.path.join(ROOT, "site", "chapters.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # before running it: its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


chapters = load_chapters()
NOTEBOOKS = sorted(name for name in os.listdir(LESSONS) if re.match(r"\d\d_.*\.ipynb$", name))


def read(*parts: str) -> str:
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as file:
        return file.read()


def test_the_lessons_table_has_the_twelve_chapters_and_every_notebook() -> None:
    rows = chapters.table_rows()
    assert sorted(rows) == list(range(1, 13))
    for name in NOTEBOOKS:
        assert f"[{name}]({name})" in rows[int(name[:2])], f"lessons/README.md's row {int(name[:2])} lacks {name}"
    for number, cell in rows.items():
        if not chapters.LINK.search(cell):
            assert "coming" in cell or "not yet written" in cell, (number, cell)


def test_each_notebook_is_titled_with_its_number() -> None:
    for name in NOTEBOOKS:
        number, title = chapters.notebook_title(os.path.join(LESSONS, name))
        assert number == int(name[:2]) and title and "\n" not in title, (name, number, title)


def test_the_lists_have_one_line_per_chapter() -> None:
    items = chapters.chapters()
    assert [c.number for c in items] == list(range(1, 13))
    assert [c.notebook for c in items if c.notebook] == NOTEBOOKS
    markdown = chapters.markdown_list(items).splitlines()
    assert len(markdown) == 12 and all(line.startswith(f"{i}. ") for i, line in enumerate(markdown, start=1))
    assert sum(line.strip().startswith("<li ") for line in chapters.html_list(items).splitlines()) == 12


def test_an_unwritten_chapter_says_so(tmp_path) -> None:
    (tmp_path / "README.md").write_text("| # | lesson | what |\n|---|---|---|\n| 1 | [01_a.ipynb](01_a.ipynb) | a |\n"
                                        "| 2 | convolutional network *(coming)* | b |\n")
    (tmp_path / "01_a.ipynb").write_text(json.dumps({"cells": [{"cell_type": "markdown",
                                                                "source": ["# Lesson 1 — Graphs and `run`\n", "x"]}]}))
    items = chapters.chapters(str(tmp_path))
    assert chapters.markdown_list(items) == ("1. [Graphs and `run`](lessons/01_a.ipynb)\n"
                                             "2. Convolutional network — not yet written")
    assert chapters.html_list(items) == (
        '<ol>\n  <li value="1"><a href="lite/lab/index.html?path=01_a.ipynb">Graphs and <code>run</code></a></li>\n'
        '  <li value="2">Convolutional network — <em>not yet written</em></li>\n</ol>')


def test_the_readme_and_the_front_page_are_up_to_date() -> None:
    items = chapters.chapters()
    assert chapters.between_markers(read("README.md")) == chapters.markdown_list(items), \
        "README.md's chapter list is stale: python site/chapters.py --write"
    assert chapters.between_markers(read("site", "index.html")) == chapters.html_list(items), \
        "site/index.html's chapter list is stale: python site/chapters.py --write"


def test_the_built_front_page_lists_the_chapters(tmp_path) -> None:
    target = tmp_path / "index.html"
    chapters.write_front_page(str(target))
    page = target.read_text(encoding="utf-8")
    assert chapters.between_markers(page) == chapters.html_list(chapters.chapters())
    for name in NOTEBOOKS:
        assert f'href="lite/lab/index.html?path={name}"' in page
    assert page.replace(chapters.between_markers(page), "") == \
        read("site", "index.html").replace(chapters.between_markers(read("site", "index.html")), "")
