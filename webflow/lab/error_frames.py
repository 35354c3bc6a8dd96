"""A failed op's traceback as a learner reads it: their own frames, named as IPython names cells.

`where(file, line)` gives `Cell In[3], line 3` for a notebook cell (IPython's own label, from its compiler's
cell map) and `File "train.py", line 12` elsewhere. `traceback_frames(exc)` lists every frame, each marked
`engine` when it is webflow's, the standard library's (also Pyodide's `/lib/python314.zip/...`) or an installed
package's (IPython's `run_code` ...): the notebook panel shows the learner's frames and folds the others behind
a toggle; `learner_traceback(exc)` is the same as text.
"""

from __future__ import annotations

import linecache
import os
import re
import sys
import sysconfig
from typing import Any

_WEBFLOW_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_STDLIB_DIR = sysconfig.get_paths()["stdlib"] + os.sep
_ZIPPED_STDLIB = re.compile(r"[/\\]python\d+\.zip[/\\]")  # Pyodide's standard library: /lib/python314.zip/


def is_stdlib(file: str) -> bool:
    """The standard library (a site-/dist-packages folder inside it is not)."""
    path = os.path.abspath(file)
    return (path.startswith(_STDLIB_DIR) or _ZIPPED_STDLIB.search(path) is not None) and "-packages" not in path


def is_engine_file(file: str) -> bool:
    """webflow's own files, the standard library and installed packages: not the learner's code."""
    path = os.path.abspath(file)
    return path.startswith(_WEBFLOW_DIR) or is_stdlib(path) or "-packages" + os.sep in path


def cell_label(file: str) -> str | None:
    """`Cell In[3]` when `file` is a cell IPython compiled (its temporary file name), else None."""
    module = sys.modules.get("IPython")
    shell = module.get_ipython() if module is not None else None
    if shell is None or not hasattr(shell, "compile") or not hasattr(shell.compile, "format_code_name"):
        return None
    named = shell.compile.format_code_name(file)
    return f"{named[0]} {named[1]}" if named else None


def where(file: str, line: int) -> str:
    """`Cell In[3], line 3` for a notebook cell, `File "train.py", line 12` otherwise (IPython's style)."""
    cell = cell_label(file)
    return f"{cell}, line {line}" if cell else f'File "{file}", line {line}'


def traceback_frames(exc: BaseException) -> list[dict]:
    """Every frame of exc's traceback, outermost first: {where, function, code, engine}."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        frames.append({"where": where(code.co_filename, tb.tb_lineno), "function": code.co_name,
                       "code": linecache.getline(code.co_filename, tb.tb_lineno).strip(),
                       "engine": is_engine_file(code.co_filename)})
        tb = tb.tb_next
    return frames


def learner_traceback(exc: BaseException) -> str:
    """The traceback as text with the learner's frames only (how many engine frames were left out is said)."""
    frames = traceback_frames(exc)
    shown = [f for f in frames if not f["engine"]]
    lines = ["Traceback (most recent call last):"]
    for frame in shown:
        function = "" if frame["function"] == "<module>" else f", in {frame['function']}"
        lines.append(f"  {frame['where']}{function}")
        if frame["code"]:
            lines.append(f"    {frame['code']}")
    hidden = len(frames) - len(shown)
    if hidden:
        lines.append(f"  ({hidden} engine frame{'s' if hidden != 1 else ''} not shown)")
    lines.append(f"{type(exc).__name__}: {exc}")
    return "\n".join(lines)


def user_frame_of(frames: list) -> Any:
    """The innermost (frame, lasti, lineno) outside webflow and the standard library: the learner's line."""
    for frame, lasti, lineno in reversed(frames):
        file = os.path.abspath(frame.f_code.co_filename)
        if not file.startswith(_WEBFLOW_DIR) and not is_stdlib(file):
            return frame, lasti, lineno
    return None


__all__ = ["where", "cell_label", "traceback_frames", "learner_traceback", "is_engine_file", "is_stdlib",
           "user_frame_of"]
