"""The losses a layer collects (`layer.losses`, `add_loss`), as tf_keras keeps them.

- `add_loss(tensor)` inside `call`: an "eager" loss of this call; the outermost layer call clears those of every
  layer inside it first, so `model.losses` after a forward pass holds that pass's losses only.
- `add_loss(callable)`: re-evaluated on every read of `losses` (weight regularizers are such callables, so the
  penalty follows the weight as it trains).
- An `activity_regularizer` adds `regularizer(output) / batch size` per output after each call.

`losses` walks the layer and its sublayers depth first (tf_keras's `_flatten_layers`): each one's eager losses,
then its callable losses' values. After a traced `fit` the eager losses are that trace's graph tensors until the
next eager call (tf_keras similarly holds symbolic ones).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from webflow.ops.array_ops import shape
from webflow.ops.math_ops import cast

_CALL_DEPTH = [0]


def init(layer: Any) -> None:
    object.__setattr__(layer, "_eager_losses", [])
    object.__setattr__(layer, "_callable_losses", [])


def flatten_layers(layer: Any) -> list:
    """The layer, then its sublayers depth first, each once."""
    found: list = []

    def visit(item: Any) -> None:
        if any(item is seen for seen in found):
            return
        found.append(item)
        for sub in item._sublayers():
            visit(sub)
    visit(layer)
    return found


@contextlib.contextmanager
def call_context(layer: Any) -> Iterator[None]:
    """Around one `__call__`: the outermost call clears the eager losses of every layer inside."""
    if _CALL_DEPTH[0] == 0:
        for item in flatten_layers(layer):
            item.__dict__.get("_eager_losses", []).clear()
    _CALL_DEPTH[0] += 1
    try:
        yield
    finally:
        _CALL_DEPTH[0] -= 1


def add_loss(layer: Any, losses: Any) -> None:
    for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
        if loss is None:
            continue
        (layer._callable_losses if callable(loss) else layer._eager_losses).append(loss)


def collect(layer: Any) -> list:
    collected = []
    for item in flatten_layers(layer):
        collected.extend(item.__dict__.get("_eager_losses", []))
        for loss in item.__dict__.get("_callable_losses", []):
            value = loss()
            if value is not None:
                collected.append(value)
    return collected


def weight_regularization(variable: Any, regularizer: Any) -> Any:
    """The callable loss a regularized weight adds: regularizer(variable), read afresh each time."""
    return lambda: regularizer(variable)


def add_activity_regularization(layer: Any, outputs: Any) -> None:
    """regularizer(output) / batch size for each output (tf_keras's _handle_activity_regularization)."""
    regularizer = getattr(layer, "activity_regularizer", None)
    if regularizer is None:
        return
    for output in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
        batch = cast(shape(output)[0], output.dtype)
        layer._eager_losses.append(regularizer(output) / batch)
