"""The checkers of lesson 12 (beyond one machine). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable
from typing import Any

from checks import Hint, exercise, hint_unless


def _close(got: Any, want: Any, tolerance: float = 1e-9) -> bool:
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            _close(g, w, tolerance) for g, w in zip(got, want))
    return isinstance(got, (int, float)) and abs(got - want) <= tolerance * max(1.0, abs(want))


def weighted_average(client_weights: list, client_sizes: list) -> list:
    """The FedAvg average, layer by layer and entry by entry: Σ_k n_k · w_k / Σ_k n_k."""
    total = sum(client_sizes)
    return [[sum(size * client[layer][i] for client, size in zip(client_weights, client_sizes)) / total
             for i in range(len(client_weights[0][layer]))] for layer in range(len(client_weights[0]))]


# --- 12.1: federated averaging ---------------------------------------------------------------------------------------
# Three clients, two "layers" each (a weight list of 3 and a bias list of 1); client 2 holds most of the data.
CLIENTS = [[[1.0, 2.0, 3.0], [0.5]], [[3.0, 0.0, -1.0], [1.5]], [[0.0, 1.0, 1.0], [-1.0]]]
SIZES = [100, 300, 600]


@exercise("12.1")
def exercise_1(federated_average: Callable) -> None:
    """federated_average(client_weights, client_sizes) -> the weights averaged, each client weighted by its size."""
    given = copy.deepcopy(CLIENTS)
    got = federated_average(given, list(SIZES))
    hint_unless(got is not None, "federated_average returned None: return the averaged weights.")
    hint_unless(given == CLIENTS, "your function changed the clients' weights it was given: build a new list.")
    want = weighted_average(CLIENTS, SIZES)
    hint_unless(isinstance(got, (list, tuple)) and len(got) == len(want) and all(
        isinstance(layer, (list, tuple)) and len(layer) == len(w) for layer, w in zip(got, want)),
        "return the same structure as one client's weights: a list of layers, each a list of numbers "
        f"(here {len(want)} layers of {[len(w) for w in want]} numbers).")
    unweighted = weighted_average(CLIENTS, [1] * len(SIZES))
    hint_unless(not _close(got, unweighted), "that is the plain mean of the clients: a client with more examples "
                "should count more — weight each client by its number of examples.")
    by_count = [[v * sum(SIZES) / len(SIZES) for v in layer] for layer in want]
    hint_unless(not _close(got, by_count), "you weighted by the sizes but divided by the number of clients: divide "
                "by the total number of examples, so that the weights add up to 1.")
    hint_unless(_close(got, want), f"for the clients {CLIENTS} with sizes {SIZES} your average is {got}: each entry "
                "is the sum over clients of (size × that client's entry), over the total size.")
    single = federated_average([copy.deepcopy(CLIENTS[1])], [7])
    hint_unless(_close(single, CLIENTS[1]), "with a single client the average must be that client's weights.")


# --- 12.2: one round of FedAvg -------------------------------------------------------------------------------------
ROUND_CLIENTS = [[1.0, 1.0], [2.0, 4.0, 6.0], [-3.0]]   # each client's "data": numbers (the client's size is len)
GLOBAL = [[0.5, -0.5], [2.0]]


def _fake_training(calls: list) -> Callable:
    """local_train(weights, data): adds the mean of the data to every entry, *in place* (as training a variable
    does), and returns the same lists; records the weights each client started from."""
    def local_train(weights: list, data: list) -> list:
        calls.append(copy.deepcopy(weights))
        shift = sum(data) / len(data)
        for layer in weights:
            for i in range(len(layer)):
                layer[i] += shift
        return weights
    return local_train


def _expected_round() -> list:
    updated = [[[v + sum(d) / len(d) for v in layer] for layer in GLOBAL] for d in ROUND_CLIENTS]
    return weighted_average(updated, [len(d) for d in ROUND_CLIENTS])


@exercise("12.2")
def exercise_2(fedavg_round: Callable) -> None:
    """fedavg_round(global_weights, clients, local_train) -> the new global weights after one round."""
    calls: list = []
    start = copy.deepcopy(GLOBAL)
    got = fedavg_round(start, copy.deepcopy(ROUND_CLIENTS), _fake_training(calls))
    hint_unless(got is not None, "fedavg_round returned None: return the new global weights.")
    hint_unless(len(calls) == len(ROUND_CLIENTS), f"local_train was called {len(calls)} times for "
                f"{len(ROUND_CLIENTS)} clients: every client trains once per round.")
    hint_unless(all(c == GLOBAL for c in calls[:1]), "the first client did not start from the global weights.")
    hint_unless(all(c == GLOBAL for c in calls), "a client started from weights another client had already "
                "trained: every client starts from the same global weights. local_train changes the lists it "
                "is given, in place — give each client its own copy.")
    hint_unless(start == GLOBAL, "the global weights you were given were changed during the round: the clients "
                "trained on them in place — give each client a copy.")
    want = _expected_round()
    equal_sizes = weighted_average([[[v + sum(d) / len(d) for v in layer] for layer in GLOBAL]
                                    for d in ROUND_CLIENTS], [1] * len(ROUND_CLIENTS))
    hint_unless(not _close(got, equal_sizes), "the clients' results were averaged with equal weights: weight each by "
                "its number of examples, len(data) (your federated_average from 12.1 does that).")
    hint_unless(_close(got, want), f"the round gave {got}, not the weighted average of the clients' trained weights.")


# --- 12.3: the same program on TensorFlow ----------------------------------------------------------------------------
SOURCES = [
    "import webflow.compat.v1 as tf\n\nx = tf.constant(1.0)  # webflow runs this\n",
    "import json\nimport webflow as wf\nfrom webflow.compat import v1 as tf\n\nwebflow_steps = 3\n"
    "print('trained with webflow', webflow_steps)\n",
    "import os\nfrom webflow import keras\nimport webflow.compat.v1 as tf  # TF1 style\nmodel = keras.Sequential()\n",
]


def _imports(source: str) -> list:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, alias.asname) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [(f"{node.module}.{alias.name}", alias.asname) for alias in node.names]
    return sorted(found, key=str)


def _renamed(name: str) -> str:
    return "tensorflow" + name[len("webflow"):] if name == "webflow" or name.startswith("webflow.") else name


@exercise("12.3")
def exercise_3(tensorflow_version: Callable) -> None:
    """tensorflow_version(source) -> the same program importing TensorFlow wherever it imported webflow."""
    for source in SOURCES:
        got = tensorflow_version(source)
        hint_unless(isinstance(got, str), f"tensorflow_version returned {type(got).__name__}: return the new "
                    "source text.")
        try:
            imports = _imports(got)
        except SyntaxError as error:
            raise Hint(f"the text you return is not Python any more ({error.msg}, line {error.lineno}).") from None
        want = sorted(((_renamed(name), alias) for name, alias in _imports(source)), key=str)
        hint_unless(not any(name.startswith("webflow") for name, _ in imports), f"an import of webflow is left in "
                    f"{got!r}: every import of webflow, whatever its form (import …, from … import …), should name "
                    "tensorflow.")
        hint_unless(imports == want, f"the imports of {got!r} are not the original ones with webflow → tensorflow: "
                    "keep each alias (the `as tf`) and the rest of the module path.")
        lines, new_lines = source.splitlines(), got.splitlines()
        hint_unless(len(lines) == len(new_lines), "your program has a different number of lines: change the import "
                    "lines only.")
        changed = [(old, new) for old, new in zip(lines, new_lines) if old != new]
        hint_unless(all(_is_import(old) for old, _ in changed), "you changed lines that are not imports "
                    f"({[old for old, _ in changed if not _is_import(old)]}): a comment, a string or a variable "
                    "that says 'webflow' is not an import — leave it as it is.")


def _is_import(line: str) -> bool:
    return line.lstrip().startswith(("import ", "from "))
