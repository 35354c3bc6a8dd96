"""Grades a folder of submitted lesson notebooks: every exercise through its chapter's checker, into a table.

    python lessons/grade.py SUBMISSIONS [--out grades.csv] [--html grades.html] [--time-limit 120] [--memory-mb 4096]

SUBMISSIONS is a folder of students' notebooks (`alice.ipynb`, or `alice/03_automatic_differentiation.ipynb`:
the student is the path without `.ipynb`). A submission's chapter is the one its first cell imports
(`import checks_03 as check`); its exercises are those of that chapter's notebook in this folder (the cells that
call `check.exercise_N(name)`), so a student who deleted a check cell is still graded on it.

Each submission runs in a child Python of its own, never in this process: the child runs the chapter's first
code cell (the imports), then, exercise by exercise, the student's cells that define the exercise's function and
the chapter's checker on it. The child has a wall-clock limit (--time-limit, for the whole notebook) and, where
the OS allows, an address-space limit (--memory-mb); its working folder is a fresh temporary one. It writes one
JSON line per checked exercise, so a notebook stopped by its time limit keeps what it had finished.

Each cell of the table is one of:
    passed   the checker said ✔
    hint     the checker gave a hint (the answer is not right yet)
    blank    the exercise was not started (its body is still `...`), or no cell defines its function
    error    the student's code raised (in its cell, or when the checker called it) or killed its process
    timeout  the notebook's time limit ran out before this exercise was checked (an endless loop, say)
The table is printed, written as CSV (--out) and, with --html, as a page whose cells show the checker's message.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import csv
import html
import importlib
import io
import json
import linecache
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
STATUSES = ("passed", "hint", "blank", "error", "timeout")
CHAPTER_IMPORT = re.compile(r"^import\s+checks_(\d+)\s+as\s+check\b", re.MULTILINE)
CHECK_CALL = re.compile(r"^check\.(exercise_(\d+))\((\w+)\)\s*$", re.MULTILINE)
RAISED = "Hint: your code raised"   # how checks.py words a learner's exception (an error, not a hint)


@dataclass
class Exercise:
    """One exercise of a chapter: its number ("3.1"), its checker in checks_NN ("exercise_1"), the function
    the learner writes ("gradient_by_hand")."""
    number: str
    checker: str
    name: str


@dataclass
class Result:
    status: str
    message: str


@dataclass
class Row:
    """One submission's grades: exercise number -> Result."""
    student: str
    chapter: str
    results: dict[str, Result] = field(default_factory=dict)


# --- reading notebooks -----------------------------------------------------------------------------------------------
def code_cells(path: str) -> list[str]:
    """The source of each code cell, in order."""
    with open(path, encoding="utf-8") as file:
        notebook = json.load(file)
    return ["".join(cell.get("source", "")) for cell in notebook.get("cells", []) if cell.get("cell_type") == "code"]


def chapter_of(cells: list[str]) -> str | None:
    """"03" for a notebook whose cells import checks_03, None if none does."""
    for source in cells:
        found = CHAPTER_IMPORT.search(source)
        if found:
            return found.group(1)
    return None


def chapter_notebook(chapter: str, lessons_dir: str = HERE) -> str:
    names = sorted(name for name in os.listdir(lessons_dir) if name.startswith(chapter + "_") and
                   name.endswith(".ipynb"))
    if not names:
        raise FileNotFoundError(f"no lesson notebook {chapter}_*.ipynb in {lessons_dir}")
    return os.path.join(lessons_dir, names[0])


def exercises_of(chapter: str, lessons_dir: str = HERE) -> list[Exercise]:
    """The chapter's exercises, from the check calls of its notebook (the teacher's copy, not the student's)."""
    found = []
    for source in code_cells(chapter_notebook(chapter, lessons_dir)):
        for match in CHECK_CALL.finditer(source):
            found.append(Exercise(f"{int(chapter)}.{match.group(2)}", match.group(1), match.group(3)))
    return found


def defines(source: str, name: str) -> bool:
    """True if the cell defines `name` at its top level (def, class or assignment)."""
    pattern = rf"^(?:async\s+def|def|class)\s+{re.escape(name)}\b|^{re.escape(name)}\s*=[^=]"
    return re.search(pattern, source, re.MULTILINE) is not None


def plan_for(cells: list[str], chapter: str, exercises: list[Exercise]) -> dict[str, Any]:
    """What the child runs: the cells up to the chapter's import (the set-up), then per exercise the
    submission's cells defining its function (check calls removed: the grader calls the checker itself)."""
    first = next(i for i, source in enumerate(cells) if CHAPTER_IMPORT.search(source))
    used = set(range(first + 1))
    steps = []
    for exercise in exercises:
        mine = [i for i, source in enumerate(cells) if i not in used and defines(source, exercise.name)]
        used.update(mine)
        steps.append({"number": exercise.number, "checker": exercise.checker, "name": exercise.name,
                      "cells": [CHECK_CALL.sub("", cells[i]) for i in mine]})
    return {"module": f"checks_{chapter}", "setup": cells[:first + 1], "exercises": steps}


# --- the child: runs one submission --------------------------------------------------------------------------------
def status_of(verdict: Any) -> str:
    if verdict.passed:
        return "passed"
    if verdict.message.startswith("○"):
        return "blank"
    return "error" if RAISED in verdict.message else "hint"


def describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def run_child(plan_path: str, results_path: str, lessons_dir: str, memory_mb: int) -> None:
    """Runs a plan (plan_for) and appends one JSON line per exercise to results_path, flushed at once."""
    limit_memory(memory_mb)
    with open(plan_path, encoding="utf-8") as file:
        plan = json.load(file)
    sys.path.insert(0, lessons_dir)
    namespace: dict[str, Any] = {"__name__": "__main__"}
    with open(results_path, "a", encoding="utf-8") as results, open(os.devnull, "w") as quiet:
        def report(number: str, status: str, message: str) -> None:
            results.write(json.dumps({"number": number, "status": status, "message": message}) + "\n")
            results.flush()

        with contextlib.redirect_stdout(quiet):   # the student's prints are not the grader's business
            try:
                for number, source in enumerate(plan["setup"], start=1):
                    run_cell(source, f"set-up cell {number}", namespace)
                check = importlib.import_module(plan["module"])
            except BaseException as error:  # noqa: BLE001 - a broken set-up fails every exercise, says why
                for step in plan["exercises"]:
                    report(step["number"], "error", f"the notebook's set-up cells raised {describe(error)}")
                return
            for step in plan["exercises"]:
                report(step["number"], *grade_step(step, check, namespace))


def run_cell(source: str, name: str, namespace: dict[str, Any]) -> None:
    """Runs a cell's source; its lines are registered with linecache so a traceback (and a checker's hint,
    which quotes the failing line) shows the student's code."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)  # noqa: S102 - running the submission is the point


def grade_step(step: dict[str, Any], check: Any, namespace: dict[str, Any]) -> tuple[str, str]:
    try:
        for number, source in enumerate(step["cells"], start=1):
            run_cell(source, f"exercise {step['number']} cell {number}", namespace)
    except BaseException as error:  # noqa: BLE001 - SystemExit too: the student's cell, not the grader, ended
        return "error", f"the exercise's cell raised {describe(error)}"
    if step["name"] not in namespace:
        return "blank", f"no cell defines `{step['name']}`"
    try:
        verdict = getattr(check, step["checker"])(namespace[step["name"]], quiet=True)
    except BaseException as error:  # noqa: BLE001 - e.g. sys.exit() inside the student's function
        return "error", f"checking it raised {describe(error)}"
    return status_of(verdict), verdict.message


# --- the parent: one child per submission ------------------------------------------------------------------------
def limit_memory(megabytes: int) -> None:
    """Caps this process's address space (the child calls it before running any submitted code; a no-op where
    the resource module is missing, e.g. on Windows)."""
    try:
        import resource
    except ImportError:
        return
    limit = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def run_submission(plan: dict[str, Any], time_limit: float, memory_mb: int,
                   lessons_dir: str) -> tuple[list[dict], bool, int, str]:
    """Runs the plan in a child Python; returns (result lines, timed out?, exit code, its last stderr line)."""
    with tempfile.TemporaryDirectory(prefix="grade-") as workdir:
        plan_path, results_path = os.path.join(workdir, "plan.json"), os.path.join(workdir, "results.jsonl")
        with open(plan_path, "w", encoding="utf-8") as file:
            json.dump(plan, file)
        open(results_path, "w").close()
        cwd = os.path.join(workdir, "cwd")
        os.mkdir(cwd)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        command = [sys.executable, os.path.abspath(__file__), "--child", plan_path, results_path,
                   "--lessons", lessons_dir, "--memory-mb", str(memory_mb)]
        with open(os.path.join(workdir, "stderr.txt"), "wb") as stderr:
            child = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)
        timed_out = False
        try:
            child.wait(timeout=time_limit)
        except subprocess.TimeoutExpired:
            timed_out = True
        with contextlib.suppress(ProcessLookupError):  # also whatever the student's code started
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        with open(results_path, encoding="utf-8") as file:
            lines = [parsed for parsed in map(_result_line, file) if parsed]
        with open(os.path.join(workdir, "stderr.txt"), encoding="utf-8", errors="replace") as file:
            last_words = (file.read().strip().splitlines() or [""])[-1][:300]
    return lines, timed_out, child.returncode, last_words


def _result_line(line: str) -> dict | None:
    """A child's result line, or None for anything else (a half-written last line, stray text)."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    ok = isinstance(parsed, dict) and parsed.get("status") in STATUSES and isinstance(parsed.get("number"), str)
    return parsed if ok and isinstance(parsed.get("message"), str) else None


def grade_notebook(path: str, student: str, time_limit: float = 120, memory_mb: int = 4096,
                   lessons_dir: str = HERE) -> Row:
    """One submission's row of the table."""
    try:
        cells = code_cells(path)
    except (OSError, ValueError) as error:
        return Row(student, "?", {"?": Result("error", f"not a readable notebook: {describe(error)}")})
    chapter = chapter_of(cells)
    if chapter is None:
        return Row(student, "?", {"?": Result("error", "no cell imports a chapter's checks (import checks_NN)")})
    try:
        exercises = exercises_of(chapter, lessons_dir)
    except FileNotFoundError as error:
        return Row(student, chapter, {"?": Result("error", str(error))})
    plan = plan_for(cells, chapter, exercises)
    lines, timed_out, code, last_words = run_submission(plan, time_limit, memory_mb, lessons_dir)
    row = Row(student, chapter)
    expected = {exercise.number for exercise in exercises}
    for line in lines:
        if line["number"] in expected and line["number"] not in row.results:
            row.results[line["number"]] = Result(line["status"], line["message"])
    for exercise in exercises:
        if exercise.number not in row.results:
            row.results[exercise.number] = (
                Result("timeout", f"the notebook's time limit ({time_limit:g} s) ran out") if timed_out else
                Result("error", f"the notebook's process ended (exit code {code}) before this exercise"
                                + (f": {last_words}" if last_words else "")))
    return row


def submissions_in(folder: str) -> list[tuple[str, str]]:
    """(student, path) for each notebook under `folder` (Jupyter's checkpoint copies skipped)."""
    found = []
    for parent, folders, files in os.walk(folder):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(files):
            if name.endswith(".ipynb"):
                path = os.path.join(parent, name)
                found.append((os.path.relpath(path, folder)[:-len(".ipynb")], path))
    return sorted(found)


def grade_folder(folder: str, time_limit: float = 120, memory_mb: int = 4096, jobs: int = 1,
                 lessons_dir: str = HERE) -> list[Row]:
    """Every submission under `folder`, graded (`jobs` at a time), in the students' order."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(grade_notebook, path, student, time_limit, memory_mb, lessons_dir)
                   for student, path in submissions_in(folder)]
        return [future.result() for future in futures]


# --- the table -------------------------------------------------------------------------------------------------------
def columns_of(rows: list[Row]) -> list[str]:
    numbers = {number for row in rows for number in row.results}
    return sorted(numbers, key=lambda n: [int(p) if p.isdigit() else -1 for p in n.split(".")])


def table(rows: list[Row]) -> list[list[str]]:
    """Header + one line per student: student, chapter, each exercise's status, passed count."""
    columns = columns_of(rows)
    lines = [["student", "chapter", *columns, "passed"]]
    for row in rows:
        passed = sum(result.status == "passed" for result in row.results.values())
        lines.append([row.student, row.chapter, *(row.results[n].status if n in row.results else "" for n in columns),
                      f"{passed}/{len(row.results)}"])
    return lines


def printed(lines: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() for line in lines)


def write_atomically(path: str, text: str) -> None:
    """Writes via a temporary file and a rename: a reader never sees half a table."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".grade-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
        file.write(text)
    os.replace(temporary, path)


def csv_text(lines: list[list[str]]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(lines)
    return buffer.getvalue()


COLOURS = {"passed": "#d8f5d0", "hint": "#fff3c4", "blank": "#eeeeee", "error": "#ffd6d6", "timeout": "#ffd6d6"}


def html_text(rows: list[Row]) -> str:
    """A page with the table; each cell's tooltip is the checker's message (the hint the student saw)."""
    columns = columns_of(rows)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ["student", "chapter", *columns, "passed"])
    body = []
    for row, line in zip(rows, table(rows)[1:]):
        cells = [f"<td>{html.escape(row.student)}</td><td>{html.escape(row.chapter)}</td>"]
        for number in columns:
            result = row.results.get(number)
            if result is None:
                cells.append("<td></td>")
                continue
            cells.append(f'<td style="background:{COLOURS[result.status]}" title="{html.escape(result.message)}">'
                         f"{html.escape(result.status)}</td>")
        cells.append(f"<td>{html.escape(line[-1])}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Grades</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2rem .5rem}</style>"
            f"</head><body><table><tr>{head}</tr>\n" + "\n".join(body) + "\n</table></body></html>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", nargs="?", help="folder of submitted notebooks")
    parser.add_argument("--out", default="grades.csv", help="the CSV table (default grades.csv)")
    parser.add_argument("--html", help="also write the table as an HTML page, with the checkers' messages")
    parser.add_argument("--time-limit", type=float, default=120, help="seconds per notebook (default 120)")
    parser.add_argument("--memory-mb", type=int, default=4096, help="address space per notebook (default 4096)")
    parser.add_argument("--jobs", type=int, default=1, help="notebooks graded at once (default 1)")
    parser.add_argument("--lessons", default=HERE, help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=2, metavar=("PLAN", "RESULTS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_child(*args.child, args.lessons, args.memory_mb)
        return 0
    if not args.submissions:
        parser.error("the folder of submitted notebooks is missing")
    rows = grade_folder(args.submissions, args.time_limit, args.memory_mb, args.jobs, args.lessons)
    lines = table(rows)
    write_atomically(args.out, csv_text(lines))
    if args.html:
        write_atomically(args.html, html_text(rows))
    print(printed(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
