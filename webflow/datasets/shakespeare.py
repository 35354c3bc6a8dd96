"""The Shakespeare corpus for character- and word-level language models: `<data>/text/shakespeare_plays.txt.gz`.

The folder is an argument or the environment variable `WEBFLOW_DATA` (see ../shared/data/README.md); nothing
is downloaded. Characters are numbered in sorted order, so the vocabulary is the same on every machine, and the
split is fixed: the last `valid_fraction` of the text is held out.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

CORPUS = Path("text") / "shakespeare_plays.txt.gz"


def corpus_path(data_dir: str | os.PathLike | None = None) -> Path:
    """The corpus file under data_dir (or $WEBFLOW_DATA); FileNotFoundError saying where it looked."""
    base = data_dir if data_dir is not None else os.environ.get("WEBFLOW_DATA")
    if base is None:
        raise FileNotFoundError(f"No data folder: pass data_dir or set WEBFLOW_DATA to the folder holding {CORPUS}")
    path = Path(base) / CORPUS
    if not path.is_file():
        raise FileNotFoundError(f"The Shakespeare corpus is not at {path}")
    return path


def load_text(data_dir: str | os.PathLike | None = None, max_chars: int | None = None) -> str:
    """The plays as one string (the first max_chars characters if given)."""
    with gzip.open(corpus_path(data_dir), "rt", encoding="utf-8") as corpus:
        return corpus.read() if max_chars is None else corpus.read(max_chars)


class CharVocabulary:
    """Characters <-> ids, ids given in sorted character order."""

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        self.ids = {char: i for i, char in enumerate(self.chars)}

    def __len__(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> list[int]:
        return [self.ids[char] for char in text]

    def decode(self, ids: list[int]) -> str:
        return "".join(self.chars[i] for i in ids)


def split(ids: list[int], valid_fraction: float = 0.05) -> tuple[list[int], list[int]]:
    """(train, valid): the last valid_fraction of the ids is the held-out part."""
    cut = len(ids) - int(len(ids) * valid_fraction)
    return ids[:cut], ids[cut:]


__all__ = ["corpus_path", "load_text", "CharVocabulary", "split"]
