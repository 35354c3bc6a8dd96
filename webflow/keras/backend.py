"""`keras.backend`: the ops keras layers are built from (one import point), layer-name counters, the learning phase.

tf_keras numbers layers per snake-case class name (`dense`, `dense_1` ...) for the whole session, until
`clear_session()`; the training flag a layer sees when called without `training=` is the innermost one set by
its caller (`Model.__call__(training=True)` reaches every layer inside).
"""

from __future__ import annotations

import contextlib
import re
import struct
from collections.abc import Iterator
from typing import Any

from webflow.ops.array_ops import identity, ones, reshape, shape, stop_gradient, zeros  # noqa: F401
from webflow.ops.constants import constant  # noqa: F401
from webflow.ops.convert import convert_to_tensor  # noqa: F401
from webflow.ops.math_ops import add, cast, multiply, subtract  # noqa: F401
from webflow.ops.matmul_ops import matmul  # noqa: F401
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum  # noqa: F401

_UIDS: dict[str, int] = {}
_LEARNING_PHASE: list[bool] = []
_NAME_SCOPES: list[str] = []   # the layers being called: weights made inside are named `outer/inner/kernel:0`
FLOATX = "float32"
EPSILON = 1e-7


def get_uid(prefix: str = "") -> int:
    """1 for the first `prefix` of the session, then 2, 3 ... (tf_keras's backend.get_uid)."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


def unique_object_name(base: str) -> str:
    """`dense`, then `dense_1`, `dense_2` ... as tf_keras names layers and models."""
    uid = get_uid(base)
    return base if uid == 1 else f"{base}_{uid - 1}"


def clear_session() -> None:
    """Forgets the layer-name counters (the next Dense is `dense` again)."""
    _UIDS.clear()


def to_snake_case(name: str) -> str:
    """tf_keras's class-name -> layer-name rule: `MaxPooling2D` -> `max_pooling2d`."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def floatx() -> str:
    return FLOATX


def cast_to_floatx(value: float) -> float:
    """A Python number rounded to float32 (floatx), as tf_keras keeps layer and regularizer factors."""
    return struct.unpack("f", struct.pack("f", float(value)))[0]


def epsilon() -> float:
    return EPSILON


def image_data_format() -> str:
    return "channels_last"


def learning_phase() -> bool:
    """The training flag of the innermost call that set one; False (inference) otherwise."""
    return _LEARNING_PHASE[-1] if _LEARNING_PHASE else False


@contextlib.contextmanager
def learning_phase_scope(training: bool) -> Iterator[None]:
    _LEARNING_PHASE.append(bool(training))
    try:
        yield
    finally:
        _LEARNING_PHASE.pop()


def scoped_name(name: str) -> str:
    scopes = _NAME_SCOPES
    if "" in scopes:   # a layer named '' opens TF2's name_scope(''): back to the root
        scopes = scopes[len(scopes) - scopes[::-1].index(""):]
    return "/".join([*scopes, name])


@contextlib.contextmanager
def layer_name_scope(name: str | None) -> Iterator[None]:
    """Inside: weights get `name/` in front (None: a fresh, empty stack, as tf_keras's init_scope)."""
    global _NAME_SCOPES
    saved = _NAME_SCOPES
    _NAME_SCOPES = [*saved, name] if name is not None else []
    try:
        yield
    finally:
        _NAME_SCOPES = saved


def int_shape(x: Any) -> tuple:
    return tuple(x.shape.as_list()) if hasattr(x.shape, "as_list") else tuple(x.shape)


def get_value(x: Any) -> Any:
    """The value of a variable or tensor as NumPy (`keras.backend.get_value(optimizer.lr)`)."""
    return x.numpy() if hasattr(x, "numpy") else x


def set_value(x: Any, value: Any) -> None:
    """Assigns `value` to the variable `x` (`keras.backend.set_value(optimizer.lr, 0.01)`)."""
    x.assign(value)
