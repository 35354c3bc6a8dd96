"""Writes the classroom exercise sets (the students' notebooks in this folder) from the chapters' exercises.

    python lessons/classroom/make_sets.py

A set is a teacher's selection: a short introduction, one set-up cell (the imports, with `import checks_NN as
check`, the line lessons/grade.py reads to know which checker grades the set) and the exercise section of one
chapter, copied cell for cell — the blanks (`...`), the statements and the check cells. Copying, not rewriting,
keeps a set and its chapter in step: re-run this after a chapter's exercises change
(tests/test_classroom_sets.py fails until then). One chapter per set, because the grader grades a notebook
against the exercises of the one chapter it imports.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
LESSONS = os.path.dirname(HERE)

# The set-up cell: the lessons folder (this folder's parent) on the import path, so the chapter's checkers are
# found both in Jupyter and in JupyterLite, where the notebook's working folder is classroom/.
SETUP = """import math
import os
import sys

sys.path[:0] = [os.getcwd(), os.path.dirname(os.getcwd())]  # the lessons folder: the exercise checkers
import checks_{chapter} as check

import webflow.compat.v1 as tf

tf.disable_v2_behavior()
"""


@dataclass
class ExerciseSet:
    file: str      # the student's notebook, in this folder
    chapter: str   # "04": the chapter whose exercises (and checkers) the set uses
    intro: str     # the set's first cell (Markdown)


SETS = [
    ExerciseSet("mnist_1_metrics.ipynb", "04", """# MNIST set, part 1 — accuracy, confusion matrix, precision, recall

Three exercises on measuring a digit classifier, from [lesson 4](../04_mnist.ipynb) (read it first: it trains
softmax regression and an MLP on MNIST and computes these metrics in the graph and by hand).

**How to work.** Run the first code cell once. Then, for each exercise, replace the `...` with your code, run the
cell, and run the check cell after it: it prints ✔, or a hint (never the answer). When you are done, save the
notebook and download it (File → Download) to hand it in; your teacher grades it with the same checks."""),
    ExerciseSet("mnist_2_convolutions.ipynb", "05", """# MNIST set, part 2 — convolutions by hand

Three exercises on the convolution that takes MNIST to 99%, from [lesson 5](../05_convolutions.ipynb) (read it
first: it shows a convolution as im2col + one matrix product and its backprops, with the engine's own kernels).

**How to work.** Run the first code cell once. Then, for each exercise, replace the `...` with your code, run the
cell, and run the check cell after it: it prints ✔, or a hint (never the answer). When you are done, save the
notebook and download it (File → Download) to hand it in; your teacher grades it with the same checks."""),
    ExerciseSet("rnn_language_model.ipynb", "09", """# RNN exercise set — perplexity, the last real output, temperature

Three exercises on recurrent networks and character language models, from
[lesson 9](../09_recurrent_networks.ipynb) (read it first: an LSTM cell by hand, `dynamic_rnn` with
`sequence_length`, and a Shakespeare language model measured by perplexity and sampled at a temperature).

**How to work.** Run the first code cell once. Then, for each exercise, replace the `...` with your code, run the
cell, and run the check cell after it: it prints ✔, or a hint (never the answer). When you are done, save the
notebook and download it (File → Download) to hand it in; your teacher grades it with the same checks."""),
]

EXERCISES_HEADING = "## Exercises"
END_HEADING = "## What to remember"


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(True)}


def code(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
            "source": text.splitlines(True)}


def chapter_path(chapter: str) -> str:
    [name] = [n for n in sorted(os.listdir(LESSONS)) if n.startswith(chapter + "_") and n.endswith(".ipynb")]
    return os.path.join(LESSONS, name)


def exercise_cells(chapter: str) -> list[dict]:
    """The chapter's cells from its "## Exercises" heading (the text before it in that cell dropped) to its
    "## What to remember", outputs cleared."""
    with open(chapter_path(chapter), encoding="utf-8") as file:
        cells = json.load(file)["cells"]
    texts = ["".join(cell["source"]) for cell in cells]
    start = next(i for i, text in enumerate(texts) if EXERCISES_HEADING in text)
    end = next((i for i, text in enumerate(texts) if i > start and text.startswith(END_HEADING)), len(cells))
    chosen = [markdown(texts[start][texts[start].index(EXERCISES_HEADING):])]
    for cell, text in zip(cells[start + 1:end], texts[start + 1:end]):
        chosen.append(code(text) if cell["cell_type"] == "code" else markdown(text))
    return chosen


def notebook_of(exercise_set: ExerciseSet) -> dict:
    cells = [markdown(exercise_set.intro), code(SETUP.format(chapter=exercise_set.chapter)),
             *exercise_cells(exercise_set.chapter)]
    for number, cell in enumerate(cells, start=1):   # nbformat 4.5: every cell has an id
        cell["id"] = f"set{exercise_set.chapter}-{number:02d}"
    # JupyterLite's Pyodide kernel, as the chapters have it (in CPython Jupyter, pick python3).
    metadata = {"kernelspec": {"display_name": "Python (Pyodide)", "language": "python", "name": "python"},
                "language_info": {"name": "python"}, "webflow": {"classroom_set": exercise_set.file}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}


def notebook_text(exercise_set: ExerciseSet) -> str:
    return json.dumps(notebook_of(exercise_set), indent=1, ensure_ascii=False) + "\n"


def write(exercise_set: ExerciseSet, folder: str = HERE) -> None:
    """Writes the set's notebook via a temporary file and a rename (never half-written)."""
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".set-", suffix=".tmp")
    with os.fdopen(handle, "w", encoding="utf-8") as file:
        file.write(notebook_text(exercise_set))
    os.replace(temporary, os.path.join(folder, exercise_set.file))


if __name__ == "__main__":
    for each in SETS:
        write(each)
        print("wrote", os.path.join(HERE, each.file))
