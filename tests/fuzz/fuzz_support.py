"""Shared pieces of the fuzzed-reader tests: byte mutations, the errors a reader may raise, a hang guard.

A reader of outside bytes must answer a damaged file with its documented error (DataLossError,
InvalidArgumentError, ... or ValueError where TensorFlow raises one) and never with an exception leaking from
deep inside (IndexError, struct.error, zlib.error, KeyError, UnicodeDecodeError, MemoryError, a NumPy error),
nor hang. `expect_clean` checks one call; the strategies below make the damaged inputs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from webflow.framework import errors

CORPUS = Path(__file__).parent / "corpus"

# `make fuzz` runs the same tests with HYPOTHESIS_PROFILE=fuzz (many more examples); `make test` the default.
settings.register_profile("fuzz-default", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("fuzz", max_examples=3000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fuzz-default"))

# Subclasses of ValueError that still mean "a bug leaked": a reader must name the file and what is wrong.
LEAKS = (UnicodeDecodeError, MemoryError, IndexError, KeyError, struct.error, zlib.error, OverflowError, RecursionError)
SECONDS_PER_CALL = 10


class Hang(Exception):
    """A reader took longer than SECONDS_PER_CALL on a small input."""


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def _raise(*_: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def expect_clean(call: Callable[[], Any], allowed: tuple = (errors.OpError,)) -> Any:
    """Runs `call`; a result or one of the `allowed` errors passes, anything else (a leak) fails the test."""
    try:
        with _time_limit(SECONDS_PER_CALL):
            return call()
    except LEAKS as error:
        raise AssertionError(f"leaked {type(error).__name__}: {error}") from error
    except allowed:
        return None


# --- damaged bytes ---------------------------------------------------------------------------------------------
FORGED_LENGTHS = [2**40, 2**62, 2**63 - 1, 2**64 - 1, 2**31, 2**32 - 1, 0xFFFFFFFF, 10**12]


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


@st.composite
def mutated(draw: Any, seed: bytes) -> bytes:
    """`seed` damaged by a few of: bit flips, truncation, a forged length written somewhere, random bytes
    inserted or appended; or plain random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=200))
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "truncate", "forge", "insert", "byte"]))
        if not data:
            data = bytearray(draw(st.binary(max_size=64)))
            continue
        where = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[where] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte":
            data[where] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[where:]
        elif kind == "insert":
            data[where:where] = draw(st.binary(min_size=1, max_size=16))
        else:
            data[where:where + 8] = _forged(draw)
    return bytes(data)


def _forged(draw: Any) -> bytes:
    value = draw(st.sampled_from(FORGED_LENGTHS))
    layout = draw(st.sampled_from(["<Q", ">Q", "<I", ">I", "varint"]))
    if layout == "varint":
        return varint(value)
    return struct.pack(layout, value & (0xFFFFFFFF if layout[1] == "I" else 2**64 - 1))


def corpus_files(reader: str) -> list[Path]:
    """The saved inputs that once crashed `reader` (tests/fuzz/corpus/<reader>/*), rerun every time."""
    folder = CORPUS / reader
    return sorted(folder.iterdir()) if folder.is_dir() else []
