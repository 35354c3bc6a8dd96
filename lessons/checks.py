"""Exercise checkers for the lessons: a right answer gets "correct", a wrong one gets a hint, never the answer.

A lesson's exercise cell holds a blank for the learner (a function whose body is `...`); the cell after it calls
a checker from the chapter's module (checks_07.py, checks_08.py, ...):

    check.exercise_1(parse_record)      # prints "✔ Exercise 7.1: correct." or "✘ Exercise 7.1, not yet. Hint: <hint>"

A checker is a function decorated with `@exercise("7.1")` whose body tests the answer and calls
`hint_unless(condition, "what to look at")` (or `raise Hint(...)`) where a typical mistake shows. The decorator
turns a Hint, or any exception the learner's code raised, into a printed message and returns a `Verdict` (true
when correct), so "Run All" never stops at an exercise left blank. tests/test_lesson_checks.py runs every
checker both ways: with the reference solution (kept there, not here, so learners do not read it) and with a
blank or a typical wrong answer, whose hint it checks.
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Hint(Exception):
    """The answer is not right yet; the message says where to look."""


@dataclass
class Verdict:
    """What a checker decided: `passed`, and the message the learner saw."""
    exercise: str
    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return self.message

    def _ipython_display_(self) -> None:
        """Shows nothing: the checker printed the message already (a cell ending in a check would say it twice)."""


def hint_unless(condition: Any, hint: str) -> None:
    """Raises Hint(hint) unless `condition` holds."""
    if not condition:
        raise Hint(hint)


def flat_numbers(values: Any) -> list:
    """Any nest of numbers (an eager tensor, a NumPy array or CArray, lists) as one flat list of floats."""
    values = values.numpy() if hasattr(values, "numpy") else values  # an eager tensor: its array (or CArray)
    values = values.tolist() if hasattr(values, "tolist") else values
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in flat_numbers(v)]
    return [float(values)]


def all_close(got: list, want: list, tolerance: float = 1e-6) -> bool:
    """Same length, and each number within `tolerance` (relative above 1, absolute below)."""
    return len(got) == len(want) and all(abs(a - b) <= tolerance * max(1.0, abs(b)) for a, b in zip(got, want))


def is_blank(function: Any) -> bool:
    """True for a function the learner has not written yet: its body is `...` or `pass` (it returns None
    without doing anything). Compared on the code object: same bytecode as `def f(): ...`. A decorated function
    (`@tf.custom_gradient`) is judged by the function it wraps."""
    code = getattr(getattr(function, "__wrapped__", function), "__code__", None)
    return code is not None and code.co_code == _blank.__code__.co_code and code.co_consts in ((None,), ())


def _blank(*args: Any) -> None:
    ...


def exercise(number: str) -> Callable:
    """Decorator: the checker of exercise `number` (e.g. "7.1"), printing and returning a Verdict."""
    def decorate(checker: Callable) -> Callable:
        @functools.wraps(checker)
        def run(*answer: Any, quiet: bool = False) -> Verdict:
            verdict = _judge(number, checker, answer)
            if not quiet:
                print(verdict.message)
            return verdict
        return run
    return decorate


def _judge(number: str, checker: Callable, answer: tuple) -> Verdict:
    if any(callable(part) and is_blank(part) for part in answer):
        return Verdict(number, False, f"○ Exercise {number}: not started yet — replace the `...` with your code.")
    try:
        checker(*answer)
    except Hint as hint:
        return Verdict(number, False, f"✘ Exercise {number}, not yet. Hint: {hint}")
    except Exception as error:  # the learner's code raised: say what and where, as a hint
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Verdict(number, False, f"✘ Exercise {number}, not yet. Hint: your code raised {type(error).__name__}: "
                                      f"{error} (line {where.lineno}: {where.line})")
    return Verdict(number, True, f"✔ Exercise {number}: correct.")
