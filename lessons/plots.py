"""Small pictures for the lessons, as SVG: bar charts, line charts, grey-scale images and tables of numbers.

No plotting library: matplotlib is not in the lessons' browser site, and a lesson's picture is a few rectangles
and lines. Each function returns an `Svg`, which Jupyter shows as a picture (`_repr_svg_`: JupyterLab,
JupyterLite, nbconvert's HTML export) when it is a cell's last value or passed to `display`, and whose text
form (`repr`, outside a notebook) is a one-line summary. Values can be lists, NumPy arrays or webflow CArrays
(anything with `.tolist()`). Where a picture is drawn by webflow's JupyterLab extension (a TensorBoard panel:
`tensorboard(logdir)`), `with_picture` adds an SVG of the same data for front ends without the extension
(nbconvert's HTML export).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any

WIDTH, HEIGHT, MARGIN = 480, 240, 48
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd")
_SIZE = re.compile(r'<svg [^>]*?width="([0-9.]+)" height="([0-9.]+)"')


class Svg:
    """An SVG picture; `summary` is what a text-only front end shows."""

    def __init__(self, markup: str, summary: str):
        self.markup = markup
        self.summary = summary

    def _repr_svg_(self) -> str:
        return self.markup

    def __repr__(self) -> str:
        return f"<picture: {self.summary}>"


def _plain(values: Any) -> list:
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    heading = f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="14">{escape(title)}</text>'
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
            + heading + "".join(body) + "</svg>")


def bars(labels: Sequence[str], values: Any, title: str = "", unit: str = "") -> Svg:
    """Horizontal bars, one per label, longest = largest value; each bar is labelled with its value."""
    values = [float(v) for v in _plain(values)]
    top = max(values + [1e-12])
    row, left = 28, 190
    body = []
    for i, (label, value) in enumerate(zip(labels, values)):
        y = 28 + i * row
        length = (WIDTH - left - 80) * value / top
        body.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end">{escape(label)}</text>'
                    f'<rect x="{left}" y="{y}" width="{length:.1f}" height="20" fill="{COLOURS[i % 5]}"/>'
                    f'<text x="{left + length + 4:.1f}" y="{y + 15}">{value:.3g} {escape(unit)}</text>')
    height = 36 + row * len(values)
    return Svg(_svg(WIDTH, height, body, title), f"bar chart {title!r}: " +
               ", ".join(f"{label} {value:.3g} {unit}".strip() for label, value in zip(labels, values)))


def lines(series: dict, title: str = "", xlabel: str = "step") -> Svg:
    """One line per entry of `series` (name -> y values, or name -> (x values, y values)), on shared axes."""
    curves = {}
    for name, data in series.items():
        if isinstance(data, tuple):
            curves[name] = ([float(x) for x in _plain(data[0])], [float(y) for y in _plain(data[1])])
        else:
            ys = [float(y) for y in _plain(data)]
            curves[name] = (list(range(len(ys))), ys)
    xs = [x for xs, _ in curves.values() for x in xs]
    ys = [y for _, ys in curves.values() for y in ys]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)

    def point(x: float, y: float) -> str:
        px = MARGIN + (WIDTH - 2 * MARGIN) * (x - x0) / (x1 - x0)
        py = HEIGHT - MARGIN - (HEIGHT - 2 * MARGIN + 24) * (y - y0) / (y1 - y0)  # y0 on the x axis, y1 at the top
        return f"{px:.1f},{py:.1f}"

    body = [f'<line x1="{MARGIN}" y1="{HEIGHT - MARGIN}" x2="{WIDTH - MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#888"/>',
            f'<line x1="{MARGIN}" y1="{MARGIN - 24}" x2="{MARGIN}" y2="{HEIGHT - MARGIN}" stroke="#888"/>',
            f'<text x="{MARGIN - 4}" y="{HEIGHT - MARGIN}" text-anchor="end">{y0:.3g}</text>',
            f'<text x="{MARGIN - 4}" y="{MARGIN - 20}" text-anchor="end">{y1:.3g}</text>',
            f'<text x="{MARGIN}" y="{HEIGHT - MARGIN + 14}">{x0:g}</text>',
            f'<text x="{WIDTH - MARGIN}" y="{HEIGHT - MARGIN + 14}" text-anchor="end">{x1:g}</text>',
            f'<text x="{WIDTH / 2}" y="{HEIGHT - 12}" text-anchor="middle">{escape(xlabel)}</text>']
    for i, (name, (cx, cy)) in enumerate(curves.items()):
        colour = COLOURS[i % 5]
        body.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                    f'points="{" ".join(point(x, y) for x, y in zip(cx, cy))}"/>'
                    f'<text x="{WIDTH - MARGIN + 4}" y="{MARGIN - 8 + 14 * i}" fill="{colour}">{escape(name)}</text>')
    return Svg(_svg(WIDTH + 60, HEIGHT, body, title),
               f"line chart {title!r}: " + ", ".join(f"{name} {cy[0]:.3g} → {cy[-1]:.3g}"
                                                     for name, (_, cy) in curves.items()))


def images(pictures: Sequence[Any], captions: Sequence[str] = (), scale: int = 3, title: str = "") -> Svg:
    """Grey-scale images side by side (each a 2-D array of 0..255, 0 drawn white, 255 black), with captions."""
    grids = [[[float(v) for v in row] for row in _plain(p)] for p in pictures]
    body, x = [], 4
    for i, grid in enumerate(grids):
        rows, cols = len(grid), len(grid[0])
        for r, row in enumerate(grid):
            for c, value in enumerate(row):
                if value > 0:  # white paper is the background: draw only the ink
                    grey = 255 - int(max(0.0, min(255.0, value)))
                    body.append(f'<rect x="{x + c * scale}" y="{24 + r * scale}" width="{scale}" height="{scale}" '
                                f'fill="rgb({grey},{grey},{grey})"/>')
        body.append(f'<rect x="{x}" y="24" width="{cols * scale}" height="{rows * scale}" fill="none" stroke="#ccc"/>')
        if i < len(captions):
            body.append(f'<text x="{x + cols * scale / 2}" y="{rows * scale + 38}" text-anchor="middle">'
                        f'{escape(str(captions[i]))}</text>')
        x += cols * scale + 8
    height = 24 + max(len(g) for g in grids) * scale + 20
    return Svg(_svg(max(x, 200), height, body, title),
               f"{len(grids)} image(s) {title!r}" + (f": {', '.join(map(str, captions))}" if captions else ""))


def grids(tables: Sequence[Any], captions: Sequence[str] = (), copies: Sequence[Any] = (), title: str = "") -> Svg:
    """Small tables of numbers side by side (each a 2-D array), e.g. the operands and result of a broadcast.
    `copies[i]` (a 2-D array of booleans, like tables[i]) marks cells that are repeated copies, drawn faded."""
    cell, body, x = 34, [], 8
    for i, table in enumerate(tables):
        rows = [[float(v) for v in row] for row in _plain(table)]
        faded = [[bool(v) for v in row] for row in _plain(copies[i])] if i < len(copies) else []
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                copy = bool(faded) and faded[r][c]
                fill, ink = ("#eef3fa", "#9aa7b8") if copy else ("#cfe0f5", "#000")
                body.append(f'<rect x="{x + c * cell}" y="{28 + r * cell}" width="{cell}" height="{cell}" '
                            f'fill="{fill}" stroke="#567" stroke-dasharray="{"3,2" if copy else "none"}"/>'
                            f'<text x="{x + c * cell + cell / 2}" y="{28 + r * cell + cell / 2 + 4}" '
                            f'text-anchor="middle" fill="{ink}">{value:g}</text>')
        width = max(len(row) for row in rows) * cell
        if i < len(captions):
            body.append(f'<text x="{x + width / 2}" y="{28 + len(rows) * cell + 16}" text-anchor="middle">'
                        f'{escape(str(captions[i]))}</text>')
        x += width + 40
    height = 28 + max(len(_plain(t)) for t in tables) * cell + 26
    return Svg(_svg(max(x, 200), height, body, title),
               f"{len(tables)} table(s) {title!r}" + (f": {', '.join(map(str, captions))}" if captions else ""))


def stack(pictures: Sequence[Svg], title: str = "") -> Svg:
    """Pictures one above the other, as one picture (each kept as it was drawn, in a nested <svg>)."""
    body, y, width = [], 24 if title else 0, 200
    for picture in pictures:
        size = _SIZE.search(picture.markup)
        w, h = float(size.group(1)), float(size.group(2))
        body.append(picture.markup.replace("<svg ", f'<svg x="0" y="{y:g}" ', 1))
        y, width = y + h + 8, max(width, w)
    return Svg(_svg(int(width), int(y), body, title), "; ".join(picture.summary for picture in pictures))


def tensorboard_scalars(panel: Any, title: str = "") -> Svg:
    """The scalar curves of a webflow.lab TensorBoard panel (`webflow.lab.tensorboard(logdir)`), one line chart
    per tag with a line per run, stacked: the same curves the panel draws, as a picture."""
    document = panel.document() if hasattr(panel, "document") else panel
    charts = []
    for tag, runs in document.get("scalars", {}).items():
        numbers = {run: [(step, value) for step, _, value in points if isinstance(value, (int, float))]
                   for run, points in runs.items()}   # NaN and ±inf travel as null: not drawn
        series = {run: ([step for step, _ in kept], [value for _, value in kept])
                  for run, kept in numbers.items() if kept}
        if series:
            charts.append(lines(series, title=tag))
    return stack(charts, title=title)


class WithPicture:
    """An object drawn by webflow's JupyterLab extension (its own MIME type: a TensorBoard panel, a dashboard)
    together with a picture of the same data, for front ends without the extension: JupyterLab and JupyterLite
    rank the extension's renderer first and draw it; nbconvert's HTML (and nbviewer, GitHub) show the picture."""

    def __init__(self, shown: Any, picture: Svg):
        self.shown = shown
        self.picture = picture

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        bundle = self.shown._repr_mimebundle_()
        data = dict(bundle[0] if isinstance(bundle, tuple) else bundle)   # (data, metadata) or data
        data["image/svg+xml"] = self.picture.markup
        return data

    def __repr__(self) -> str:   # outside a notebook: the shown object's own text form
        return str(self._repr_mimebundle_().get("text/plain", repr(self.shown)))


def with_picture(shown: Any, picture: Svg) -> WithPicture:
    """`shown` as its extension draws it, plus `picture` where the extension is absent (see WithPicture)."""
    return WithPicture(shown, picture)


def tensorboard(logdir: str) -> WithPicture:
    """What `webflow.lab.tensorboard(logdir)` shows (its panel: curves, histograms, the graph), as a cell's value,
    with its scalar curves as a picture for a static export."""
    from webflow.lab import TensorBoardPanel

    panel = TensorBoardPanel(logdir)
    return with_picture(panel, tensorboard_scalars(panel))
