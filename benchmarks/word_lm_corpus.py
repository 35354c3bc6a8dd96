"""The word LM's data: Shakespeare's plays as PTB-style word ids, and initial weights two engines can share.

Tokens: each non-empty line lower-cased, its words (letters with inner apostrophes: "o'er", "countess's") followed
by `<eos>`, as the PTB reader turns newlines into `<eos>`. Split: the last 5% of the tokens are held out; training
uses the first `train_words` tokens, validation the first `valid_words` held-out tokens. Vocabulary: the training
tokens' `vocab - 1` most frequent words (ties in alphabetical order) and `<unk>` for every other word.
The corpus file is `$WEBFLOW_DATA/text/shakespeare_plays.txt.gz` (read here, so the TensorFlow and PyTorch workers
need no webflow import).
"""

from __future__ import annotations

import collections
import gzip
import os
import re
import zlib
from typing import Any, NamedTuple

WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")
UNKNOWN, END = "<unk>", "<eos>"


class Corpus(NamedTuple):
    train: list[int]
    valid: list[int]
    vocabulary: list[str]


def tokens(text: str) -> list[str]:
    result = []
    for line in text.lower().splitlines():
        words = WORD.findall(line)
        if words:
            result.extend(words)
            result.append(END)
    return result


def vocabulary(words: list[str], size: int) -> list[str]:
    counts = collections.Counter(words)
    ranked = sorted(counts, key=lambda word: (-counts[word], word))
    return ranked[:size - 1] + [UNKNOWN]


def load(train_words: int, valid_words: int, vocab: int, valid_fraction: float = 0.05) -> Corpus:
    path = os.path.join(os.environ["WEBFLOW_DATA"], "text", "shakespeare_plays.txt.gz")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        words = tokens(handle.read())
    cut = len(words) - int(len(words) * valid_fraction)
    train, valid = words[:cut][:train_words], words[cut:][:valid_words]
    names = vocabulary(train, vocab)
    ids = {word: i for i, word in enumerate(names)}
    unknown = ids[UNKNOWN]
    return Corpus([ids.get(w, unknown) for w in train], [ids.get(w, unknown) for w in valid], names)


def initial_values(names_and_shapes: list[tuple[str, list[int]]], init_scale: float, seed: int = 0) -> dict:
    """{name: float32 array}: uniform in [-init_scale, init_scale) (the tutorial's initializer) from a RandomState
    seeded by the variable's name, so every engine starts from the same numbers."""
    import numpy as np

    values = {}
    for name, shape in names_and_shapes:
        rng = np.random.RandomState((zlib.crc32(name.encode()) + seed) % 2**32)
        values[name] = rng.uniform(-init_scale, init_scale, shape).astype(np.float32)
    return values


def describe(corpus: Corpus) -> dict[str, Any]:
    unknown = corpus.vocabulary.index(UNKNOWN)
    return {"train_words": len(corpus.train), "valid_words": len(corpus.valid), "vocab": len(corpus.vocabulary),
            "valid_unk_fraction": round(corpus.valid.count(unknown) / max(1, len(corpus.valid)), 4)}
