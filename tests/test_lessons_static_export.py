"""Every chapter exported to static HTML (nbconvert, as `jupyter nbconvert --to html` does) shows its figures as
real images, shows its links to the engine's source, and holds no ASCII-art figure.

The chapters are not executed again: tests/test_lessons_nbclient.py (which runs first) leaves each executed
notebook in pytest's cache (tests/executed_lessons.py); a chapter whose saved run is missing or stale (the
notebook or a lessons/*.py changed since) is executed here, once, in the same way.

Checked per chapter, on nbconvert's HTML (the "lab" template, nbconvert's default):
- figures: every output of the executed notebook that carries an image (image/png, image/jpeg, image/svg+xml:
  lessons/plots.py's pictures are SVG) appears in the HTML as one image, an `<img src="data:image/...">` whose
  bytes decode to that format (or an inline `<svg>`), and the counts match;
- links: each link cell's output (lessons/source_links.py) is in the HTML with its hrefs, which, relative to the
  notebook's folder (where `jupyter nbconvert` writes the export), name the source file and its site page
  (`site/_build/source/<file>.html#L<line>`, written by `make site`) at the line that defines the symbol;
- no ASCII art: no text output draws a picture with characters (`ascii_art_lines`, defined below).
"""

from __future__ import annotations

import base64
import glob
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

import executed_lessons
import nbformat
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS_DIR = os.path.join(ROOT, "lessons")
CHAPTERS = sorted(glob.glob(os.path.join(LESSONS_DIR, "[0-9][0-9]_*.ipynb")))
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml")
_DATA_IMAGE = re.compile(r'<img[^>]*\ssrc="data:(image/(?:png|jpeg|svg\+xml));base64,([^"]+)"')
_INLINE_SVG = re.compile(r"<svg[\s>]")
_SCRIPT = re.compile(r"<script\b.*?</script>", re.S | re.I)
_LINK = re.compile(r'<div class="webflow-source-link">(.*?)</div>', re.S)
_HREF = re.compile(r'href="([^"]+)"')
_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}

# --- what counts as ASCII art -----------------------------------------------------------------------------
# A picture drawn with characters: block elements (U+2580-U+259F: ▀ ▄ █ ▌ ░ ▒ ▓ ...) in a run of 3 or more, or
# 3 consecutive lines made mostly (80 %+ of their non-blank characters, 6+ in all) of "ink" characters —
# block elements, '#', '*', '@', '%' — the way a digit or a bar chart used to be printed.
BLOCKS = "".join(chr(code) for code in range(0x2580, 0x25A0))
INK = set(BLOCKS + "#*@%")
_BLOCK_RUN = re.compile(f"[{BLOCKS}]{{3,}}")


def _ink(line: str) -> int:
    """How many ink characters a line has when 80 %+ of its non-blank characters are ink; else 0."""
    marks = [char for char in line if not char.isspace()]
    inked = sum(char in INK for char in marks)
    return inked if marks and inked >= 0.8 * len(marks) else 0


def ascii_art_lines(text: str) -> list[str]:
    """The lines of `text` that belong to a picture drawn with characters (empty when there is none)."""
    lines = text.splitlines()
    found = {i for i, line in enumerate(lines) if _BLOCK_RUN.search(line)}
    for start in range(len(lines) - 2):
        window = [_ink(line) for line in lines[start:start + 3]]
        if all(window) and sum(window) >= 6:
            found.update(range(start, start + 3))
    return [lines[i] for i in sorted(found)]


def text_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    """Every text a learner reads as output: streams, text/plain results without a richer picture, errors."""
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                texts.append(output.get("text", ""))
            elif "data" in output and not any(kind in output["data"] for kind in IMAGE_TYPES):
                texts.append(output["data"].get("text/plain", ""))
    return texts


def image_outputs(notebook: nbformat.NotebookNode) -> list[str]:
    """The MIME type of the image each output carries (the one nbconvert shows: SVG before PNG before JPEG)."""
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            kinds = [kind for kind in ("image/svg+xml", "image/png", "image/jpeg") if kind in output.get("data", {})]
            if kinds:
                found.append(kinds[0])
    return found


def html_images(html: str) -> list[str]:
    """The MIME type of each image of the exported page, after checking that its bytes are that format."""
    body = _SCRIPT.sub("", html[html.find("<body"):])   # not the widget state's JSON (a slider's SVG value)
    found = []
    for kind, payload in _DATA_IMAGE.findall(body):
        data = base64.b64decode(payload)
        if kind == "image/svg+xml":
            assert ElementTree.fromstring(data).tag.endswith("svg"), data[:200]
        else:
            assert data.startswith(_MAGIC[kind]), (kind, data[:16])
        found.append(kind)
    return found + ["image/svg+xml"] * len(_INLINE_SVG.findall(body))


def executed(path: str, config) -> nbformat.NotebookNode:
    """The chapter as tests/test_lessons_nbclient.py executed it, or executed now when that run is not saved."""
    notebook = executed_lessons.load(config, path)
    if notebook is None:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from test_lessons_nbclient import BUDGETS, DEFAULT_BUDGET, execute

        stamp = executed_lessons.fingerprint(path)
        notebook = execute(path, BUDGETS.get(os.path.basename(path), DEFAULT_BUDGET))
        executed_lessons.save(config, path, notebook, stamp)
    return notebook


def export_html(notebook: nbformat.NotebookNode) -> str:
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    return html


def test_the_ascii_art_check_sees_pictures_and_spares_tables() -> None:
    digit = "\n".join(["   ####   ", "  #    #  ", "      #   ", "     #    ", "  ######  "])
    assert len(ascii_art_lines(digit)) == 5
    assert ascii_art_lines("loss  ▇▆▅▃▂▁ falling") == ["loss  ▇▆▅▃▂▁ falling"]
    assert ascii_art_lines("3: ████████ 0.93\n7: ███ 0.31") == ["3: ████████ 0.93", "7: ███ 0.31"]
    keras = ("Epoch 1/3\n50/50 ━━━━━━━━━━━━━━━━━━━━ 0s 2ms/step - loss: 0.52\n"
             "Model: \"sequential\"\n_________________________________\n Layer (type)   Output Shape   Param #\n"
             "=================================\n dense (Dense)  (None, 64)     50240\n# a comment\n# another\n")
    assert ascii_art_lines(keras) == []
    assert ascii_art_lines("[[0. 1.]\n [1. 0.]]\nacc 97.1 %") == []


@pytest.mark.parametrize("path", CHAPTERS, ids=[os.path.basename(path) for path in CHAPTERS])
def test_chapter_exports_with_real_images_links_and_no_ascii_art(path: str, request, capsys) -> None:
    notebook = executed(path, request.config)
    html = export_html(notebook)
    wanted, shown = image_outputs(notebook), html_images(html)
    assert sorted(shown) == sorted(wanted), f"{len(wanted)} image outputs, {len(shown)} images in the HTML"
    art = [line for text in text_outputs(notebook) for line in ascii_art_lines(text)]
    assert art == [], "ASCII-art figure in an output:\n" + "\n".join(art[:20])
    links = _LINK.findall(html)
    assert len(links) >= 2
    for link in links:
        _check_link(link)
    with capsys.disabled():
        print(f"\n{os.path.basename(path)}: {len(shown)} images ({', '.join(sorted(set(shown))) or '-'}), "
              f"{len(links)} source links, {len(html) // 1000} kB of HTML")


def _check_link(link: str) -> None:
    """A link's hrefs, resolved from the notebook's folder: the source file, and its page at the right line."""
    from html import unescape

    hrefs = [unescape(href) for href in _HREF.findall(link)]
    page = next(href for href in hrefs if ".html#L" in href)
    file = next(href for href in hrefs if href.endswith(".py"))
    assert page.startswith("../site/_build/source/"), page
    relative, line = page[len("../site/_build/source/"):].split(".html#L")
    assert os.path.normpath(os.path.join(LESSONS_DIR, file)) == os.path.join(ROOT, relative)
    with open(os.path.join(ROOT, relative), encoding="utf-8") as source:
        text = source.read().splitlines()[int(line) - 1]
    definition = re.search(r"<code>(.*?)</code>", link).group(1)
    assert unescape(definition) in text, (page, text)


def test_a_tensorboard_panel_carries_its_curves_as_a_picture(tmp_path) -> None:
    """lessons/plots.py's fallback for a figure only webflow's JupyterLab extension draws: the panel's own MIME
    type stays (JupyterLab and JupyterLite draw it), an SVG of its scalar curves is added, and the export shows it."""
    import webflow.compat.v1 as tf

    sys.path.insert(0, LESSONS_DIR)
    import plots

    losses, accuracies = [2.3, 1.1, 0.6, 0.4], [0.1, 0.7, 0.9]
    with tf.Graph().as_default():
        value = tf.placeholder(tf.float32, [])
        loss, accuracy = tf.summary.scalar("loss", value), tf.summary.scalar("accuracy", value)
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(str(tmp_path / "train"))
            for step, number in enumerate(losses):
                writer.add_summary(sess.run(loss, {value: number}), step)
            for step, number in enumerate(accuracies):
                writer.add_summary(sess.run(accuracy, {value: number}), step)
            writer.close()
    shown = plots.tensorboard(str(tmp_path))
    bundle = shown._repr_mimebundle_()
    assert set(bundle) == {"application/vnd.webflow.tensorboard+json", "image/svg+xml", "text/plain"}
    picture = ElementTree.fromstring(bundle["image/svg+xml"])
    polylines = [node for node in picture.iter() if node.tag.endswith("polyline")]
    assert sorted(len(node.get("points").split()) for node in polylines) == [len(accuracies), len(losses)]
    assert "loss [train]" in repr(shown)   # the panel's text form, outside a notebook
    cell = nbformat.v4.new_code_cell("plots.tensorboard(logdir)")
    cell.outputs = [nbformat.v4.new_output("execute_result", data=bundle, execution_count=1)]
    html = export_html(nbformat.v4.new_notebook(cells=[cell]))
    assert html_images(html) == ["image/svg+xml"]
