"""The classroom grader (lessons/grade.py) on a folder of sample submissions: right, wrong, crashing, endless loop.

The submissions are made here, in tmp_path, from the real chapter notebooks: each exercise's blank (`...`) is
replaced by the reference solution kept in tests/test_lesson_checks*.py (read from its source text, the
`reference_` prefix dropped), or by a wrong, crashing or looping answer. The grader runs each in a child Python
with a time limit; the table it prints and writes (CSV, HTML) is asserted cell by cell.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = os.path.join(ROOT, "lessons")
TESTS = os.path.join(ROOT, "tests")
sys.path.insert(0, LESSONS)

import grade  # noqa: E402

TIME_LIMIT = 60  # per notebook; the endless loop costs this much, the others take a few seconds


def reference(test_file: str, name: str) -> str:
    """The source of `reference_<name>` (or class `Reference<Name>`) in tests/<test_file>, decorators included,
    renamed to `name`; other references it uses are renamed too (they are the student's earlier answers)."""
    path = os.path.join(TESTS, test_file)
    with open(path, encoding="utf-8") as file:
        text = file.read()
    alias = ALIASES.get(name, name)
    for node in ast.parse(text).body:
        if (isinstance(node, ast.FunctionDef) and node.name == f"reference_{alias}") or \
                (isinstance(node, ast.ClassDef) and node.name == f"Reference{alias}"):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            source = "\n".join(text.splitlines()[first - 1:node.end_lineno])
            source = re.sub(r"\breference_|\bReference(?=[A-Z])", "", source) + "\n"
            return source + (f"{name} = {alias}\n" if alias != name else "")
    raise LookupError(f"reference_{alias} not in {test_file}")


# An exercise's function whose reference has another name in its test file.
ALIASES = {"functional_version": "functional"}


def module_imports(test_file: str) -> str:
    """The test file's plain `import x` lines (copy, math, ...): what its references need, as a student's cell
    would import it."""
    with open(os.path.join(TESTS, test_file), encoding="utf-8") as file:
        tree = ast.parse(file.read())
    names = [alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names]
    return "".join(f"import {name}\n" for name in names if name not in ("pytest", "sys", "os")
                   and not name.startswith("checks"))


def references_for(chapter: str) -> dict[str, str] | None:
    """Each exercise's reference answer for `chapter` (imports included), or None when a reference is not
    named `reference_<the exercise's function>` in its test file."""
    test_file = "test_lesson_checks.py" if chapter in ("07", "08") else f"test_lesson_checks_{chapter}.py"
    if not os.path.exists(os.path.join(TESTS, test_file)):
        return None
    answers = {}
    for exercise in grade.exercises_of(chapter, LESSONS):
        try:
            answers[exercise.name] = module_imports(test_file) + reference(test_file, exercise.name)
        except LookupError:
            return None
    return answers


def submission(chapter: str, answers: dict[str, str], path: str) -> None:
    """The chapter's notebook with the cell defining each answered function replaced by `answers[name]` (the
    cell's check call kept); written to `path`."""
    with open(grade.chapter_notebook(chapter, LESSONS), encoding="utf-8") as file:
        notebook = json.load(file)
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        for name, answer in answers.items():
            if cell["cell_type"] == "code" and grade.defines(source, name):
                checks = [line for line in source.splitlines() if grade.CHECK_CALL.match(line)]
                cell["source"] = answer + ("\n" + "\n".join(checks) if checks else "")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as file:
        json.dump(notebook, file)


def ref3(name: str) -> str:
    return reference("test_lesson_checks_03.py", name)


def make_submissions(folder: str) -> None:
    right_3 = {name: ref3(name) for name in ("gradient_by_hand", "numerical_gradient", "clip_gradient")}
    submission("03", right_3, os.path.join(folder, "alice.ipynb"))
    submission("03", {  # wrong: the partial derivatives swapped, 3.2 not started, 3.3 right
        "gradient_by_hand": "def gradient_by_hand(x, y):\n"
                            "    return x * x + x * math.cos(x * y), 2 * x * y + y * math.cos(x * y)\n",
        "clip_gradient": right_3["clip_gradient"]}, os.path.join(folder, "bob.ipynb"))
    submission("03", {  # crashing: inside the function, in the cell itself, and the whole process
        "gradient_by_hand": "def gradient_by_hand(x, y):\n    return 1 / 0\n",
        "numerical_gradient": right_3["numerical_gradient"] + "raise RuntimeError('unfinished cell')\n",
        "clip_gradient": "import os\n\ndef clip_gradient(x):\n    os._exit(3)\n"}, os.path.join(folder, "carol.ipynb"))
    submission("03", {  # an endless loop in 3.2: 3.1 still counts, the rest times out
        "gradient_by_hand": right_3["gradient_by_hand"],
        "numerical_gradient": "def numerical_gradient(f, xs, h):\n    while True:\n        pass\n"},
        os.path.join(folder, "dave.ipynb"))
    # lesson 7's exercise cells define the function and call the checker in the same cell; in a student subfolder
    right_7 = {name: reference("test_lesson_checks.py", name)
               for name in ("make_example", "parse_record", "make_dataset")}
    submission("07", right_7, os.path.join(folder, "erin", "07_input_pipelines.ipynb"))


EXPECTED = [
    ["student", "chapter", "3.1", "3.2", "3.3", "7.1", "7.2", "7.3", "passed"],
    ["alice", "03", "passed", "passed", "passed", "", "", "", "3/3"],
    ["bob", "03", "hint", "blank", "passed", "", "", "", "1/3"],
    ["carol", "03", "error", "error", "error", "", "", "", "0/3"],
    ["dave", "03", "passed", "timeout", "timeout", "", "", "", "1/3"],
    ["erin/07_input_pipelines", "07", "", "", "", "passed", "passed", "passed", "3/3"],
]


def test_the_grade_table_of_sample_submissions(tmp_path) -> None:
    folder = tmp_path / "submissions"
    make_submissions(str(folder))
    out, page = tmp_path / "grades.csv", tmp_path / "grades.html"
    done = subprocess.run([sys.executable, os.path.join(LESSONS, "grade.py"), str(folder), "--out", str(out),
                           "--html", str(page), "--time-limit", str(TIME_LIMIT), "--jobs", "2"],
                          capture_output=True, text=True, timeout=10 * TIME_LIMIT, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out, newline="", encoding="utf-8") as file:
        assert list(csv.reader(file)) == EXPECTED
    assert done.stdout.strip() == grade.printed(EXPECTED)
    text = page.read_text(encoding="utf-8")
    assert text.count("<tr>") == len(EXPECTED)
    assert "Hint: your code raised ZeroDivisionError" in text          # carol's 3.1: the checker's message
    assert "RuntimeError: unfinished cell" in text                      # carol's 3.2: her cell's own error
    assert "exit code 3" in text                                        # carol's 3.3: her code ended the process
    assert f"time limit ({TIME_LIMIT} s)" in text                       # dave's 3.2 and 3.3
    assert "wrong order" in text                                        # bob's 3.1: the hint he would have seen


def test_every_chapter_with_checks_has_its_exercises_found() -> None:
    """The grader finds each chapter's exercises from its notebook, and each names a checker of checks_NN.py."""
    chapters = sorted({name[:2] for name in os.listdir(LESSONS) if re.match(r"\d\d_.*\.ipynb$", name)})
    graded = 0
    for chapter in chapters:
        if grade.chapter_of(grade.code_cells(grade.chapter_notebook(chapter, LESSONS))) != chapter:
            continue  # a chapter without exercises (yet)
        with open(os.path.join(LESSONS, f"checks_{chapter}.py"), encoding="utf-8") as file:
            checkers = {node.name for node in ast.parse(file.read()).body if isinstance(node, ast.FunctionDef)}
        exercises = grade.exercises_of(chapter, LESSONS)
        assert len(exercises) >= 3, chapter
        assert [e.number for e in exercises] == [f"{int(chapter)}.{i}" for i in range(1, len(exercises) + 1)]
        assert all(e.checker in checkers for e in exercises), (chapter, exercises)
        graded += 1
    assert graded >= 8


def test_every_chapters_reference_answers_pass_the_grader(tmp_path) -> None:
    """For each chapter whose references are named after its exercises: the notebook with them graded all
    passed (the chapter's set-up runs in the grader's child: a fresh folder, memory-limited)."""
    chapters = sorted({name[:2] for name in os.listdir(LESSONS) if re.match(r"\d\d_.*\.ipynb$", name)})
    answered = {chapter: references_for(chapter) for chapter in chapters}
    answered = {chapter: answers for chapter, answers in answered.items() if answers}
    assert len(answered) >= 8, sorted(answered)
    for chapter, answers in answered.items():
        submission(chapter, answers, str(tmp_path / f"student_{chapter}.ipynb"))
    rows = grade.grade_folder(str(tmp_path), time_limit=300, jobs=2)
    assert {row.chapter: {n: r.status for n, r in row.results.items()} for row in rows} == {
        chapter: {e.number: "passed" for e in grade.exercises_of(chapter, LESSONS)} for chapter in answered}, \
        [(row.student, {n: r.message for n, r in row.results.items() if r.status != "passed"}) for row in rows]


def test_the_memory_limit_stops_a_greedy_answer(tmp_path) -> None:
    """3 GB asked for under a 1.5 GB address-space limit: a MemoryError, reported as the student's error; the
    rest of the notebook is still graded."""
    submission("03", {"gradient_by_hand": "def gradient_by_hand(x, y):\n    return len(bytearray(3 << 30)), 0\n"},
               str(tmp_path / "greedy.ipynb"))
    [row] = grade.grade_folder(str(tmp_path), time_limit=120, memory_mb=1536)
    assert {n: r.status for n, r in row.results.items()} == {"3.1": "error", "3.2": "blank", "3.3": "blank"}
    assert "MemoryError" in row.results["3.1"].message


def test_a_notebook_without_a_chapter_is_an_error_row(tmp_path) -> None:
    (tmp_path / "x.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": "1 + 1"}]}))
    (tmp_path / "y.ipynb").write_text("not json")
    unknown = {"cells": [{"cell_type": "code", "source": "import checks_99 as check"}]}
    (tmp_path / "z.ipynb").write_text(json.dumps(unknown))
    rows = grade.grade_folder(str(tmp_path), time_limit=5)
    assert [(row.student, row.results["?"].status) for row in rows] == [("x", "error"), ("y", "error"), ("z", "error")]
    assert "no lesson notebook 99_*.ipynb" in rows[2].results["?"].message
    assert "import checks_NN" in rows[0].results["?"].message
    assert "not a readable notebook" in rows[1].results["?"].message
