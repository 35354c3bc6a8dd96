"""Executed lesson notebooks handed from one test to the next, so CI runs each chapter once.

tests/test_lessons_nbclient.py executes every chapter in a real kernel; it saves each executed notebook here
(pytest's cache folder, `.pytest_cache/d/executed_lessons/`); tests/test_lessons_static_export.py, which runs
after it, exports those to HTML instead of executing the chapters again. A saved notebook is used only while it
is current: it records a fingerprint of what produced it (the notebook file and every lessons/*.py it may import:
plots.py, source_links.py, the checkers), and any change to those makes it stale. Without pytest's cache
(`-p no:cacheprovider`) nothing is saved and the export test executes the chapters itself.
"""

from __future__ import annotations

import glob
import hashlib
import os
from typing import Any

import nbformat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS_DIR = os.path.join(ROOT, "lessons")
FOLDER = "executed_lessons"


def fingerprint(path: str) -> str:
    """sha256 of the notebook and of the lessons' Python modules, which is what its outputs depend on here."""
    digest = hashlib.sha256()
    for name in [path, *sorted(glob.glob(os.path.join(LESSONS_DIR, "*.py")))]:
        with open(name, "rb") as file:
            digest.update(os.path.basename(name).encode() + b"\0" + file.read() + b"\0")
    return digest.hexdigest()


def _folder(config: Any) -> str | None:
    cache = getattr(config, "cache", None)
    return str(cache.mkdir(FOLDER)) if cache is not None else None


def save(config: Any, path: str, notebook: nbformat.NotebookNode, fingerprint_before: str) -> None:
    """Keeps an executed notebook for later tests, stamped with the fingerprint taken before it ran."""
    folder = _folder(config)
    if folder is None:
        return
    notebook.metadata["webflow_executed_from"] = fingerprint_before
    target = os.path.join(folder, os.path.basename(path))
    temporary = target + ".tmp"
    nbformat.write(notebook, temporary)
    os.replace(temporary, target)   # never a half-written notebook


def load(config: Any, path: str) -> nbformat.NotebookNode | None:
    """The executed notebook saved for `path`, if there is one and it is current; else None."""
    folder = _folder(config)
    saved = os.path.join(folder, os.path.basename(path)) if folder else None
    if not saved or not os.path.exists(saved):
        return None
    notebook = nbformat.read(saved, as_version=4)
    return notebook if notebook.metadata.get("webflow_executed_from") == fingerprint(path) else None
