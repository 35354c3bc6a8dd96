"""Runs TF1 acceptance programs under one framework and writes their results as JSON.

    python runner.py --framework tensorflow --out results.json [program ids...]
    python runner.py --framework webflow    --out results.json [program ids...]

A program is a function `program(tf)` (or `program_<part>(tf)`) in a module of this folder. It builds
graphs with the module it is given, runs them and returns a dict of results. Every program runs in a
fresh default graph, one after another in this one process (so TensorFlow starts only once); the
runner records a program's exception instead of its results, and times out a program that hangs.
The same file runs under TensorFlow's interpreter, so it imports nothing from webflow or the tests.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import math
import os
import signal
import sys
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM_TIMEOUT_S = 60


def program_modules() -> list[str]:
    return sorted(name[:-3] for name in os.listdir(HERE)
                  if name.endswith(".py") and not name.startswith("_") and name != "runner.py")


def discover() -> dict[str, tuple[str, str]]:
    """{program id: (module, function)}: `program_x` in module m has id `m.x`, `program` has id `m`.

    Read from the source (no import), so pytest can list the programs without running them.
    """
    found = {}
    for module_name in program_modules():
        with open(os.path.join(HERE, module_name + ".py")) as handle:
            tree = ast.parse(handle.read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "program":
                found[module_name] = (module_name, node.name)
            elif isinstance(node, ast.FunctionDef) and node.name.startswith("program_"):
                found[f"{module_name}.{node.name[len('program_'):]}"] = (module_name, node.name)
    return found


def load_framework(framework: str) -> Any:
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.compat.v1.layers needs tf-keras (Keras 2)
        import tensorflow.compat.v1 as tf
        tf.logging.set_verbosity(tf.logging.ERROR)
    elif framework == "webflow":
        import webflow.compat.v1 as tf
    else:
        raise SystemExit(f"unknown framework {framework!r}")
    tf.disable_v2_behavior()
    return tf


def to_json(value: Any) -> Any:
    """Results as JSON: arrays keep dtype and shape; floats keep non-finite values as strings."""
    import numpy as np

    if isinstance(value, dict):
        return {"__dict__": [[to_json(k), to_json(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return {"__seq__": type(value).__name__ if type(value) in (list, tuple) else "namedtuple",
                "items": [to_json(v) for v in value]}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind in "SUO":
            items = [v.decode() if isinstance(v, bytes) else str(v) for v in array.ravel().tolist()]
            return {"__array__": "string", "shape": list(array.shape), "values": items}
        flat = [_float_json(v) if array.dtype.kind in "fc" else v for v in array.ravel().tolist()]
        return {"__array__": array.dtype.name, "shape": list(array.shape), "values": flat}
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return {"__float__": _float_json(value)}
    if isinstance(value, bytes):
        return {"__bytes__": value.decode("latin-1")}
    return {"__repr__": f"{type(value).__name__}: {value!r}"}


def _float_json(v: Any) -> Any:
    if isinstance(v, complex):
        return [_float_json(v.real), _float_json(v.imag)]
    return v if math.isfinite(v) else str(v)


def run_program(tf: Any, module_name: str, function_name: str) -> dict:
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    tf.reset_default_graph()
    started = time.perf_counter()
    outcome: dict = {"tolerances": {}}
    signal.alarm(PROGRAM_TIMEOUT_S)
    try:
        module = importlib.import_module(module_name)
        # {result key pattern: [rtol, atol]} where a program justifies a looser float comparison
        outcome["tolerances"] = {key: list(value) for key, value in getattr(module, "TOLERANCES", {}).items()}
        outcome["results"] = to_json(getattr(module, function_name)(tf))
    except Exception as error:  # noqa: BLE001 - the report says which exception a framework raised
        outcome["error"] = f"{type(error).__name__}: {error}"
        outcome["traceback"] = traceback.format_exc(limit=-8)
    finally:
        signal.alarm(0)
    outcome["seconds"] = round(time.perf_counter() - started, 3)
    return outcome


class ProgramTimeout(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise ProgramTimeout(f"program did not finish within {PROGRAM_TIMEOUT_S} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--framework", required=True, choices=["tensorflow", "webflow"])
    parser.add_argument("--out", required=True)
    parser.add_argument("ids", nargs="*", help="program ids (default: all)")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _on_alarm)
    programs = discover()
    ids = args.ids or list(programs)
    tf = load_framework(args.framework)
    report = {"framework": args.framework, "programs": {}}
    for program_id in ids:
        report["programs"][program_id] = run_program(tf, *programs[program_id])
    with open(args.out + ".tmp", "w") as handle:
        json.dump(report, handle)
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
