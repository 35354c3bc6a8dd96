"""What the lesson-checker tests share."""

from __future__ import annotations


def fails_with(checker, answer, *words: str) -> None:
    """The checker rejects `answer` with a hint naming each of `words`."""
    result = checker(answer, quiet=True)
    assert not result.passed, result.message
    assert "not yet" in result.message or "not started" in result.message, result.message
    for word in words:
        assert word in result.message, (word, result.message)
