"""Dashboard: live curves in one output, and hints diagnosed from synthetic curves with known shapes."""

from __future__ import annotations

import json
import math

from webflow.lab import Dashboard, diagnose
from webflow.lab.dashboard import MIME_TYPE


def _curve(values: list) -> list:
    return [[step, value] for step, value in enumerate(values)]


def test_overfitting_when_training_loss_falls_and_validation_rises() -> None:
    loss = [2.0 * 0.9 ** i for i in range(20)]
    val_loss = [1.0 + 0.01 * max(0, i - 5) ** 1.5 for i in range(20)]
    hints = diagnose({"loss": _curve(loss), "val_loss": _curve(val_loss)})
    assert len(hints) == 1 and "overfitting" in hints[0] and "rising" in hints[0]


def test_overfitting_when_validation_is_flat() -> None:
    hints = diagnose({"loss": _curve([2.0 * 0.9 ** i for i in range(20)]), "val_loss": _curve([1.0] * 20)})
    assert len(hints) == 1 and "overfitting" in hints[0] and "flat" in hints[0]


def test_both_flat_from_the_start_suggests_a_lower_learning_rate() -> None:
    wobble = [2.3 + 0.01 * (-1) ** i for i in range(20)]
    hints = diagnose({"loss": _curve(wobble), "val_loss": _curve(wobble)})
    assert len(hints) == 1 and "lower learning rate" in hints[0]


def test_a_converged_flat_loss_is_not_flagged() -> None:
    loss = [2.0 * 0.5 ** i for i in range(8)] + [0.01] * 12
    assert diagnose({"loss": _curve(loss), "val_loss": _curve(loss)}) == []


def test_nan_or_exploding_loss_means_the_learning_rate_is_too_high() -> None:
    assert "too high" in diagnose({"loss": _curve([2.0, 5.0, math.nan])})[0]
    exploding = diagnose({"loss": _curve([1.0, 3.0, 9.0, 27.0])})
    assert len(exploding) == 1 and "exploding" in exploding[0]


def test_accuracy_at_chance_points_at_labels_and_inputs() -> None:
    accuracy = [0.1 + 0.01 * (-1) ** i for i in range(20)]
    hints = diagnose({"accuracy": _curve(accuracy)}, classes=10)
    assert len(hints) == 1 and "chance" in hints[0] and "labels" in hints[0]
    assert diagnose({"accuracy": _curve([0.1 + 0.04 * i for i in range(20)])}, classes=10) == []


def test_healthy_training_gives_no_hints() -> None:
    loss = [2.0 * 0.9 ** i for i in range(20)]
    assert diagnose({"loss": _curve(loss), "val_loss": _curve([v * 1.1 for v in loss])}) == []


class FakeDisplay:
    def __init__(self) -> None:
        self.calls: list = []

    def __call__(self, data: dict, raw: bool = False, display_id: bool = False):
        self.calls.append(("display", data))
        return self

    def update(self, data: dict, raw: bool = False) -> None:
        self.calls.append(("update", data))


def test_dashboard_logs_into_one_live_output() -> None:
    fake = FakeDisplay()
    with Dashboard(title="fit", every=0.0, display=fake) as board:
        for step in range(3):
            board.log(step, loss=1.0 / (step + 1), accuracy=0.5)
        board.log(3, loss=math.nan)
    assert [kind for kind, _ in fake.calls] == ["display", "update", "update", "update", "update"]  # + close
    document = fake.calls[-1][1][MIME_TYPE]
    json.dumps(document, allow_nan=False)  # NaN is sent as null
    assert document["series"]["loss"] == [[0, 1.0], [1, 0.5], [2, 1.0 / 3], [3, None]]
    assert document["series"]["accuracy"] == [[0, 0.5], [1, 0.5], [2, 0.5]]
    assert "too high" in document["hints"][0]
    assert "loss: nan at step 3" in fake.calls[-1][1]["text/plain"]


def test_dashboard_throttles_updates() -> None:
    fake = FakeDisplay()
    board = Dashboard(every=3600.0, display=fake)
    for step in range(50):
        board.log(step, loss=1.0)
    board.close()
    assert [kind for kind, _ in fake.calls] == ["display", "update"]
    assert len(fake.calls[-1][1][MIME_TYPE]["series"]["loss"]) == 50


def test_keras_style_callback_feeds_epochs_and_batches() -> None:
    from webflow.lab import DashboardCallback

    fake = FakeDisplay()
    callback = DashboardCallback(Dashboard(every=0.0, display=fake), per_batch=True)
    epoch_logs = [{"loss": 0.9, "val_loss": 1.0, "accuracy": 0.6}, {"loss": 0.5, "val_loss": 0.7, "accuracy": 0.8}]
    callback.on_train_begin()  # hooks with nothing to do exist, as Keras calls them all
    for epoch, logs in enumerate(epoch_logs):
        for batch in range(2):
            callback.on_train_batch_end(batch, {"batch_loss": logs["loss"] + batch})
        callback.on_epoch_end(epoch, logs)
    callback.on_train_end()
    series = fake.calls[-1][1][MIME_TYPE]["series"]
    assert series["val_loss"] == [[epoch, logs["val_loss"]] for epoch, logs in enumerate(epoch_logs)]
    assert series["batch_loss"] == [[1, 0.9], [2, 1.9], [3, 0.5], [4, 1.5]]  # running batch count on x
