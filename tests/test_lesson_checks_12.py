"""Lesson 12's exercise checkers (lessons/checks_12.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
"""

from __future__ import annotations

import copy
import os
import re
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_12 as lesson12  # noqa: E402


def blank(*args): ...


# --- 12.1 federated averaging ----------------------------------------------------------------------------------------
def reference_federated_average(client_weights, client_sizes):
    total = sum(client_sizes)
    average = [[0.0] * len(layer) for layer in client_weights[0]]
    for client, size in zip(client_weights, client_sizes):
        for layer, values in zip(average, client):
            for i, value in enumerate(values):
                layer[i] += size / total * value
    return average


def plain_mean(client_weights, client_sizes):
    return reference_federated_average(client_weights, [1] * len(client_sizes))


def divides_by_clients(client_weights, client_sizes):
    return [[v * sum(client_sizes) / len(client_sizes) for v in layer]
            for layer in reference_federated_average(client_weights, client_sizes)]


def adds_into_first_client(client_weights, client_sizes):
    total, result = sum(client_sizes), client_weights[0]
    for layer in result:
        for i in range(len(layer)):
            layer[i] *= client_sizes[0] / total
    for client, size in zip(client_weights[1:], client_sizes[1:]):
        for layer, values in zip(result, client):
            for i, value in enumerate(values):
                layer[i] += size / total * value
    return result


def test_12_1_federated_average() -> None:
    assert lesson12.exercise_1(reference_federated_average, quiet=True).passed
    fails_with(lesson12.exercise_1, blank, "not started")
    fails_with(lesson12.exercise_1, plain_mean, "plain mean")
    fails_with(lesson12.exercise_1, divides_by_clients, "total number of examples")
    fails_with(lesson12.exercise_1, adds_into_first_client, "changed the clients' weights")
    fails_with(lesson12.exercise_1, lambda w, n: [v for layer in reference_federated_average(w, n) for v in layer],
               "same structure")
    fails_with(lesson12.exercise_1, lambda w, n: w[n.index(max(n))], "your average is")


def test_the_checkers_average_agrees_with_numpy() -> None:
    np = pytest.importorskip("numpy")
    stacked = np.array([np.concatenate([np.array(layer) for layer in client]) for client in lesson12.CLIENTS])
    want = np.average(stacked, axis=0, weights=lesson12.SIZES)
    got = [v for layer in lesson12.weighted_average(lesson12.CLIENTS, lesson12.SIZES) for v in layer]
    assert np.allclose(got, want, rtol=1e-12)


# --- 12.2 one round -----------------------------------------------------------------------------------------------
def reference_fedavg_round(global_weights, clients, local_train):
    trained = [local_train(copy.deepcopy(global_weights), data) for data in clients]
    return reference_federated_average(trained, [len(data) for data in clients])


def chained(global_weights, clients, local_train):
    weights = global_weights
    trained = []
    for data in clients:
        weights = copy.deepcopy(local_train(weights, data))
        trained.append(weights)
    return reference_federated_average(trained, [len(data) for data in clients])


def no_copy(global_weights, clients, local_train):
    trained = [copy.deepcopy(local_train(global_weights, data)) for data in clients]
    return reference_federated_average(trained, [len(data) for data in clients])


def equal_weights(global_weights, clients, local_train):
    trained = [local_train(copy.deepcopy(global_weights), data) for data in clients]
    return plain_mean(trained, [len(data) for data in clients])


def test_12_2_fedavg_round() -> None:
    assert lesson12.exercise_2(reference_fedavg_round, quiet=True).passed
    fails_with(lesson12.exercise_2, blank, "not started")
    fails_with(lesson12.exercise_2, chained, "same global weights")
    fails_with(lesson12.exercise_2, no_copy, "own copy")
    fails_with(lesson12.exercise_2, equal_weights, "equal weights")
    fails_with(lesson12.exercise_2, lambda g, c, t: reference_fedavg_round(g, c[:2], t), "every client trains once")
    fails_with(lesson12.exercise_2, lambda g, c, t: [reference_fedavg_round(g, c, t)], "not the weighted average")


# --- 12.3 the imports -------------------------------------------------------------------------------------------
def reference_tensorflow_version(source):
    lines = []
    for line in source.splitlines(keepends=True):
        if line.lstrip().startswith(("import ", "from ")):
            line = re.sub(r"\bwebflow\b", "tensorflow", line.split("#")[0]) + (
                "#" + line.split("#", 1)[1] if "#" in line else "")
        lines.append(line)
    return "".join(lines)


def test_12_3_tensorflow_version() -> None:
    assert lesson12.exercise_3(reference_tensorflow_version, quiet=True).passed
    fails_with(lesson12.exercise_3, blank, "not started")
    fails_with(lesson12.exercise_3, lambda s: s.replace("webflow", "tensorflow"), "not an import")
    fails_with(lesson12.exercise_3, lambda s: s.replace("import webflow.compat.v1 as tf",
                                                        "import tensorflow.compat.v1 as tf"), "whatever its form")
    fails_with(lesson12.exercise_3, lambda s: s.replace("import webflow.compat.v1 as tf", "import tensorflow as tf")
               .replace("import webflow as wf", "import tensorflow as wf")
               .replace("from webflow", "from tensorflow"), "keep each alias")
    fails_with(lesson12.exercise_3, lambda s: s.replace("import webflow", "import tensorflow("), "not Python")
    fails_with(lesson12.exercise_3, lambda s: s.splitlines(), "return the new source")


def test_12_3_the_reference_program_is_the_lessons_rewrite() -> None:
    """The one line the lesson changes by hand is changed the same way by the reference rewrite."""
    source = "import json\nimport webflow.compat.v1 as tf\n"
    assert reference_tensorflow_version(source) == "import json\nimport tensorflow.compat.v1 as tf\n"


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson12.exercise_1, plain_mean), (lesson12.exercise_2, chained),
                            (lesson12.exercise_3, lambda s: s.replace("webflow", "tensorflow"))):
        message = checker(answer, quiet=True).message
        for code in ("size / total", "copy.deepcopy(global", "re.sub", "tensorflow.compat.v1 as tf"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
