"""The chapter lists of the top-level README.md and of the site's front page, one line per chapter, made from
lessons/README.md's table (which chapters there are, and which are not written yet) and the notebooks' own
titles (their first heading, "# Lesson N — <title>"), so that neither list can drift from the lessons.

    python site/chapters.py           # prints both lists
    python site/chapters.py --write   # rewrites them between their markers in README.md and site/index.html

site/build.py fills the front page's list the same way when it builds the site; tests/test_chapter_lists.py
checks that README.md and site/index.html hold what this script makes.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
LESSONS = os.path.join(REPO, "lessons")
START = "<!-- chapters: made by site/chapters.py from lessons/ (python site/chapters.py --write) -->"
END = "<!-- /chapters -->"
ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*(.+?)\s*\|", re.MULTILINE)
LINK = re.compile(r"\[([^\]]+\.ipynb)\]\(([^)]+\.ipynb)\)")
LESSON_PREFIX = re.compile(r"^#\s*Lesson\s+(\d+)\s*[—:–-]\s*")


@dataclass
class Chapter:
    number: int
    title: str
    notebook: str | None   # the file name in lessons/, None while the chapter is not written


def notebook_title(path: str) -> tuple[int, str]:
    """(N, title) from the notebook's first heading "# Lesson N — title"."""
    with open(path, encoding="utf-8") as file:
        cells = json.load(file)["cells"]
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            first = "".join(cell["source"]).strip().splitlines()[0]
            found = LESSON_PREFIX.match(first)
            if not found:
                raise ValueError(f"{path}: its first heading is not '# Lesson N — title': {first!r}")
            return int(found.group(1)), first[found.end():].strip()
    raise ValueError(f"{path}: no markdown cell")


def table_rows(lessons_dir: str = LESSONS) -> dict[int, str]:
    """lessons/README.md's table: chapter number -> its second cell (a notebook link or a planned name)."""
    with open(os.path.join(lessons_dir, "README.md"), encoding="utf-8") as file:
        return {int(number): cell for number, cell in ROW.findall(file.read())}


def chapters(lessons_dir: str = LESSONS) -> list[Chapter]:
    """Every chapter of the README's table, in order; a written one titled by its notebook, a planned one by its
    name in the table. A notebook missing from the table is listed too (tests/test_chapter_lists.py flags it)."""
    found = {}
    for number, cell in table_rows(lessons_dir).items():
        link = LINK.search(cell)
        if link and os.path.exists(os.path.join(lessons_dir, link.group(2))):
            found[number] = Chapter(number, notebook_title(os.path.join(lessons_dir, link.group(2)))[1],
                                    link.group(2))
        else:
            name = re.sub(r"\*?\((?:coming|not yet written)\)\*?", "", LINK.sub(r"\1", cell)).strip(" *")
            found[number] = Chapter(number, name[:1].upper() + name[1:], None)
    for name in sorted(os.listdir(lessons_dir)):
        if re.match(r"\d\d_.*\.ipynb$", name) and int(name[:2]) not in found:
            found[int(name[:2])] = Chapter(int(name[:2]), notebook_title(os.path.join(lessons_dir, name))[1], name)
    return [found[number] for number in sorted(found)]


def _code_spans(text: str) -> str:
    """Markdown `code` as HTML <code>, the rest escaped."""
    parts = text.split("`")
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part) for i, part in enumerate(parts))


def markdown_list(items: list[Chapter]) -> str:
    lines = []
    for chapter in items:
        if chapter.notebook:
            lines.append(f"{chapter.number}. [{chapter.title}](lessons/{chapter.notebook})")
        else:
            lines.append(f"{chapter.number}. {chapter.title} — not yet written")
    return "\n".join(lines)


def html_list(items: list[Chapter]) -> str:
    lines = ["<ol>"]
    for chapter in items:
        title = _code_spans(chapter.title)
        if chapter.notebook:
            href = html.escape(f"lite/lab/index.html?path={chapter.notebook}")
            lines.append(f'  <li value="{chapter.number}"><a href="{href}">{title}</a></li>')
        else:
            lines.append(f'  <li value="{chapter.number}">{title} — <em>not yet written</em></li>')
    return "\n".join(lines + ["</ol>"])


def fill(text: str, block: str) -> str:
    """`text` with what lies between START and END replaced by `block`."""
    start, end = text.index(START) + len(START), text.index(END)
    return text[:start] + "\n" + block + "\n" + text[end:]


def between_markers(text: str) -> str:
    return text[text.index(START) + len(START):text.index(END)].strip("\n")


def write_filled(source: str, target: str, block: str) -> None:
    """Writes `source` with its list filled to `target` (temporary file + rename: never half-written)."""
    with open(source, encoding="utf-8") as file:
        text = fill(file.read(), block)
    with open(target + ".tmp", "w", encoding="utf-8") as file:
        file.write(text)
    os.replace(target + ".tmp", target)


def write_front_page(target: str, lessons_dir: str = LESSONS) -> None:
    """site/index.html with its chapter list made now: what site/build.py ships."""
    write_filled(os.path.join(HERE, "index.html"), target, html_list(chapters(lessons_dir)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the lists in README.md and site/index.html")
    args = parser.parse_args()
    items = chapters()
    if not args.write:
        sys.stdout.write(markdown_list(items) + "\n\n" + html_list(items) + "\n")
        return
    readme = os.path.join(REPO, "README.md")
    write_filled(readme, readme, markdown_list(items))
    write_front_page(os.path.join(HERE, "index.html"))


if __name__ == "__main__":
    main()
