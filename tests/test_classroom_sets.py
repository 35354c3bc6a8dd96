"""The classroom exercise sets (lessons/classroom/*.ipynb) through the grader (lessons/grade.py).

Each set, handed in blank, grades "blank" everywhere; with every blank replaced by the reference solution kept in
tests/test_lesson_checks_NN.py (the same substitution tests/test_grader.py makes for the chapters), "passed"
everywhere. The sets are also what lessons/classroom/make_sets.py writes (a set never drifts from its chapter),
and a set run as a student runs it — in Jupyter, from the classroom folder — finds its checkers.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

import test_grader

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LESSONS = os.path.join(ROOT, "lessons")
CLASSROOM = os.path.join(LESSONS, "classroom")
sys.path[:0] = [LESSONS, CLASSROOM]

import grade  # noqa: E402
import make_sets  # noqa: E402


def set_path(exercise_set: make_sets.ExerciseSet) -> str:
    return os.path.join(CLASSROOM, exercise_set.file)


def filled(path: str, answers: dict[str, str], out: str) -> None:
    """The set at `path` with the cell defining each answered function replaced by its answer (check calls
    kept, as a student's notebook would have them), written to `out`."""
    with open(path, encoding="utf-8") as file:
        notebook = json.load(file)
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        for name, answer in answers.items():
            if cell["cell_type"] == "code" and grade.defines(source, name):
                checks = [line for line in source.splitlines() if grade.CHECK_CALL.match(line)]
                cell["source"] = answer + ("\n" + "\n".join(checks) if checks else "")
    with open(out, "w", encoding="utf-8") as file:
        json.dump(notebook, file)


def test_the_sets_are_what_make_sets_writes() -> None:
    """Up to date with their chapters: re-run lessons/classroom/make_sets.py if this fails."""
    assert len(make_sets.SETS) == 3
    for exercise_set in make_sets.SETS:
        with open(set_path(exercise_set), encoding="utf-8") as file:
            assert file.read() == make_sets.notebook_text(exercise_set), exercise_set.file


def test_each_set_holds_its_chapters_exercises_with_blanks() -> None:
    for exercise_set in make_sets.SETS:
        cells = grade.code_cells(set_path(exercise_set))
        assert grade.chapter_of(cells) == exercise_set.chapter
        exercises = grade.exercises_of(exercise_set.chapter, LESSONS)
        calls = [match.group(1, 3) for source in cells for match in grade.CHECK_CALL.finditer(source)]
        assert calls == [(e.checker, e.name) for e in exercises], exercise_set.file
        for exercise in exercises:  # each exercise's cell is still the student's blank
            [blank] = [source for source in cells if grade.defines(source, exercise.name)]
            assert blank.rstrip().endswith("..."), blank


def test_sets_grade_passed_with_the_references_and_blank_as_handed_out(tmp_path) -> None:
    folder = tmp_path / "submissions"
    folder.mkdir()
    expected = {}
    for exercise_set in make_sets.SETS:
        stem = exercise_set.file[:-len(".ipynb")]
        answers = test_grader.references_for(exercise_set.chapter)
        assert answers, exercise_set.chapter
        filled(set_path(exercise_set), answers, str(folder / f"right_{stem}.ipynb"))
        filled(set_path(exercise_set), {}, str(folder / f"blank_{stem}.ipynb"))
        numbers = [e.number for e in grade.exercises_of(exercise_set.chapter, LESSONS)]
        expected[f"right_{stem}"] = {n: "passed" for n in numbers}
        expected[f"blank_{stem}"] = {n: "blank" for n in numbers}
    rows = grade.grade_folder(str(folder), time_limit=300, jobs=2)
    got = {row.student: {n: r.status for n, r in row.results.items()} for row in rows}
    assert got == expected, [(row.student, {n: r.message for n, r in row.results.items()}) for row in rows]
    table = grade.table(rows)
    assert table[0] == ["student", "chapter", "4.1", "4.2", "4.3", "5.1", "5.2", "5.3", "9.1", "9.2", "9.3",
                        "passed"]
    assert sorted(line[-1] for line in table[1:]) == ["0/3"] * 3 + ["3/3"] * 3


def test_a_blank_set_runs_in_jupyter_from_the_classroom_folder(tmp_path) -> None:
    """The student's view: every cell of a blank set runs without an error (the checks print "not started"),
    the kernel's working folder being lessons/classroom/, as when the notebook is opened there."""
    import nbclient
    import nbformat

    exercise_set = make_sets.SETS[0]
    notebook = nbformat.read(set_path(exercise_set), as_version=4)
    # The sets' kernelspec is JupyterLite's ("python", Pyodide); in CPython the kernel is ipykernel's python3.
    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": CLASSROOM}})
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    asyncio.run(client.async_execute(env=env))
    printed = "".join(output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", []))
    assert printed.count("not started") == 3, printed
