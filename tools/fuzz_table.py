"""`make fuzz-table`: every reader of outside bytes fed N damaged inputs; prints a table of what happened.

    python tools/fuzz_table.py --iterations 100000 --seconds 60          # each reader: N inputs or S seconds
    python tools/fuzz_table.py --iterations 2000 --only tfrecord,graph_def
    python tools/fuzz_table.py --list

Each reader (tools/fuzz_targets.py: MNIST IDX, TFRecord, event files, Example, checkpoints, GraphDef/MetaGraph/
SavedModel, Keras archives and their HDF5 weights, images, audio) runs in its own process, so that a segfault or an
abort is counted as a crash of that reader and the table goes on. The process damages the reader's seed with the
mutations of tests/fuzz/fuzz_support.py (bit flips, truncations, forged lengths, inserted and random bytes),
seeded, so a run can be repeated. An input is
  clean       when the reader returns or raises one of its documented errors;
  unexpected  when anything else escapes (an IndexError, a KeyError, a NumPy error, MemoryError ...);
  a hang      when one call takes longer than fuzz_support.SECONDS_PER_CALL;
  a crash     when the process dies (signal): the input is then the one left in .fuzz-out/table/<reader>/.
The first input of each kind of failure is saved under .fuzz-out/table/<reader>/ with its traceback.
Address space is capped at 4 GiB per reader, so a forged length that makes a reader allocate shows as MemoryError.
Exit status 1 if any reader had a failure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import resource
import struct
import subprocess
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests", "fuzz"), os.path.dirname(os.path.abspath(__file__))]
OUT = os.path.join(ROOT, ".fuzz-out", "table")
ADDRESS_SPACE = 4 << 30


# --- the mutator (fuzz_support's mutations, driven by random.Random instead of hypothesis: 100x faster) ----------
def mutate(seed: bytes, rng: random.Random, forged_lengths: list[int]) -> bytes:
    if rng.randrange(10) == 0:
        return rng.randbytes(rng.randrange(201))
    data = bytearray(seed)
    for _ in range(rng.randint(1, 4)):
        if not data:
            data = bytearray(rng.randbytes(rng.randrange(65)))
            continue
        where, kind = rng.randrange(len(data)), rng.choice(("flip", "byte", "truncate", "insert", "forge"))
        if kind == "flip":
            data[where] ^= 1 << rng.randrange(8)
        elif kind == "byte":
            data[where] = rng.randrange(256)
        elif kind == "truncate":
            del data[where:]
        elif kind == "insert":
            data[where:where] = rng.randbytes(rng.randint(1, 16))
        else:
            data[where:where + 8] = _forged(rng, forged_lengths)
    return bytes(data)


def _forged(rng: random.Random, forged_lengths: list[int]) -> bytes:
    from fuzz_support import varint

    value, layout = rng.choice(forged_lengths), rng.choice(("<Q", ">Q", "<I", ">I", "varint"))
    if layout == "varint":
        return varint(value)
    return struct.pack(layout, value & (0xFFFFFFFF if layout[1] == "I" else 2**64 - 1))


# --- one reader, in its own process ------------------------------------------------------------------------------
def fuzz_one(name: str, iterations: int, seconds: float, seed: int) -> dict:
    """Runs reader `name` on up to `iterations` damaged inputs within `seconds`; returns the counts."""
    import fuzz_support
    import fuzz_targets

    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    target = fuzz_targets.target(name)
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    current = os.path.join(folder, "current.bin")   # the input in flight: what a crash leaves behind
    rng = random.Random(seed)
    counts, failures, done = {"clean": 0, "unexpected": 0, "hang": 0}, {}, 0
    started = time.perf_counter()
    while done < iterations and time.perf_counter() - started < seconds:
        data = mutate(target.seed, rng, fuzz_support.FORGED_LENGTHS)
        with open(current, "wb") as handle:
            handle.write(data)
        kind = _classify(target, data, fuzz_support)
        done += 1
        if kind == "clean":
            counts["clean"] += 1
            continue
        counts["hang" if kind == "Hang" else "unexpected"] += 1
        if kind not in failures:
            failures[kind] = _save(folder, kind, data)
    os.unlink(current)
    return {"reader": name, "iterations": done, **counts, "seconds": round(time.perf_counter() - started, 1),
            "failures": failures}


def _classify(target, data: bytes, fuzz_support) -> str:
    """'clean', or the name of the exception that escaped ('Hang' for a timeout)."""
    try:
        with fuzz_support._time_limit(fuzz_support.SECONDS_PER_CALL):
            target.read(data)
    except fuzz_support.Hang:
        return "Hang"
    except fuzz_support.LEAKS as error:
        return _remember(error)
    except target.allowed:
        return "clean"
    except Exception as error:  # noqa: BLE001 - counting exactly these is the point
        return _remember(error)
    return "clean"


_TRACEBACKS: dict[str, str] = {}


def _remember(error: BaseException) -> str:
    kind = type(error).__name__
    _TRACEBACKS.setdefault(kind, "".join(traceback.format_exception(error))[-4000:])
    return kind


def _save(folder: str, kind: str, data: bytes) -> str:
    stem = os.path.join(folder, f"{kind}-{hashlib.sha1(data).hexdigest()[:12]}")
    with open(stem + ".bin", "wb") as handle:
        handle.write(data)
    with open(stem + ".txt", "w") as handle:
        handle.write(_TRACEBACKS.get(kind, kind))
    return os.path.relpath(stem + ".bin", ROOT)


# --- the table ---------------------------------------------------------------------------------------------------
def run_reader(name: str, options: argparse.Namespace) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--worker", name, "--iterations", str(options.iterations),
               "--seconds", str(options.seconds), "--seed", str(options.seed)]
    started = time.perf_counter()
    finished = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    lines = [line for line in finished.stdout.splitlines() if line.startswith("{")]
    if finished.returncode == 0 and lines:
        return json.loads(lines[-1])
    # the process died: count the input it was reading as a crash
    return {"reader": name, "iterations": None, "clean": None, "unexpected": None, "hang": None,
            "seconds": round(time.perf_counter() - started, 1),
            "crash": f"exit {finished.returncode}: {finished.stderr.strip().splitlines()[-1:] or ''}",
            "failures": {"crash": os.path.relpath(os.path.join(OUT, name, "current.bin"), ROOT)}}


def table(rows: list[dict]) -> str:
    lines = ["| reader | iterations | clean | unexpected exceptions | hangs | crashes | seconds | first failures |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for row in rows:
        failures = ", ".join(f"{kind}: `{path}`" for kind, path in row["failures"].items()) or "-"
        cells = [row["reader"], _number(row["iterations"]), _number(row["clean"]), _number(row["unexpected"]),
                 _number(row["hang"]), "1" if row.get("crash") else "0", f"{row['seconds']:.0f}", failures]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _number(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=100_000, help="damaged inputs per reader (at most)")
    parser.add_argument("--seconds", type=float, default=60.0, help="time per reader (at most)")
    parser.add_argument("--seed", type=int, default=29, help="the mutator's random seed")
    parser.add_argument("--only", help="comma-separated reader names (default: all)")
    parser.add_argument("--list", action="store_true", help="print the reader names and exit")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    import fuzz_targets

    if options.worker:
        print(json.dumps(fuzz_one(options.worker, options.iterations, options.seconds, options.seed)))
        return 0
    names = options.only.split(",") if options.only else list(fuzz_targets.GROUPS)
    if options.list:
        print(" ".join(names))
        return 0
    rows = []
    for name in names:
        rows.append(run_reader(name, options))
        row = rows[-1]
        print(f"{name}: {_number(row['iterations'])} inputs in {row['seconds']:.0f} s, "
              f"{_number(row['unexpected'])} unexpected, {_number(row['hang'])} hangs, "
              f"{'crash: ' + row['crash'] if row.get('crash') else 'no crash'}", file=sys.stderr, flush=True)
    print(table(rows))
    return 1 if any(row.get("crash") or row["unexpected"] or row["hang"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
