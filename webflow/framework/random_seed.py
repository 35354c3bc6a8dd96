"""Where a random op's two seeds come from: TensorFlow's `get_seed(op_seed)` rules.

Every stateful random op carries two integer attrs, `seed` and `seed2`, which key its Philox
generator (see framework/philox.py). They are derived from a *global* seed and an *op* seed:

| global seed | op seed | (seed, seed2)                                                        |
| ----------- | ------- | -------------------------------------------------------------------- |
| set         | given   | (global, op)                                                         |
| set         | None    | (global, a per-graph counter 0, 1, 2 ...); eagerly: the next number   |
|             |         | from `random.Random(global_seed)` (so each call gets its own stream)  |
| unset       | given   | (DEFAULT_GRAPH_SEED, op)                                             |
| unset       | None    | (0, 0): the kernel picks truly random seeds (nondeterministic)        |

In graph mode the global seed is the default graph's `seed` (`tf.set_random_seed`); eagerly it is a
process-wide value (`tf.random.set_seed`), which also forgets every eager op's generator state, as
TensorFlow clears its eager kernel cache (traced functions' random kernels too: `seed_epoch`). A graph traced
from eager code (`wf.function`, a tf.data function) takes the global seed of the moment as its graph seed
(framework/func_graph.py), so its seedless ops get (global, 0), (global, 1) ... counted per traced graph.
"""

from __future__ import annotations

import random
import weakref
from typing import Any

from webflow.framework import context

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1

# graph -> how many ops have taken an implicit op seed from it (TF's `_graph_to_seed_dict`).
_graph_op_seed_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _EagerSeedState:
    """The eager global seed, the generator of implicit op seeds, and each eager op's Philox state."""

    def __init__(self) -> None:
        self.global_seed: int | None = None
        self.op_seed_source: random.Random | None = None
        # (op type, attrs...) -> PhiloxGenerator: TF's eager kernel cache keeps one kernel (and so one
        # generator) per distinct op + attrs, so two `normal([3], seed=1)` calls continue one stream.
        self.generators: dict = {}
        # Bumped by every `set_seed`: traced functions' random kernels made before it are dropped (TF clears its
        # caches, so a function's next call instantiates fresh kernels that start again from their seeds).
        self.epoch = 0


_eager = _EagerSeedState()


def _truncate_seed(seed: int) -> int:
    """Seeds must fit a 32-bit attr: TF reduces them modulo 2**31 - 1."""
    return int(seed) % _MAXINT32


def get_seed(op_seed: int | None) -> tuple:
    """(seed, seed2) for a random op created now, from the global seed and `op_seed` (table above)."""
    eager = context.executing_eagerly()
    global_seed = _eager.global_seed if eager else context.get_default_graph().seed
    if global_seed is not None:
        if op_seed is None:
            op_seed = _eager_op_seed() if eager else _next_graph_op_seed(context.get_default_graph())
        seeds = (_truncate_seed(global_seed), _truncate_seed(op_seed))
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, _truncate_seed(op_seed))
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        # (0, 0) would mean "nondeterministic" to the kernel; the user asked for seed 0, so avoid it.
        return (0, _MAXINT32)
    return seeds


def _next_graph_op_seed(graph: Any) -> int:
    graph = getattr(graph, "op_seed_graph", None) or graph  # a TF1 cond/while body counts in its outer graph
    count = _graph_op_seed_counters.get(graph, 0)
    _graph_op_seed_counters[graph] = count + 1
    return count


def _eager_op_seed() -> int:
    if _eager.op_seed_source is None:
        _eager.op_seed_source = random.Random(_eager.global_seed)
    return _eager.op_seed_source.randint(0, _MAXINT32)


def set_random_seed(seed: int | None) -> None:
    """TF1 `tf.set_random_seed`: the default graph's seed, or the eager global seed when eager."""
    if context.executing_eagerly():
        set_global_seed(seed)
    else:
        context.get_default_graph().seed = seed


def set_seed(seed: int | None) -> None:
    """TF2 `tf.random.set_seed`: same rule as `set_random_seed`."""
    set_random_seed(seed)


def set_global_seed(seed: int | None) -> None:
    """Sets the eager global seed, restarts implicit op seeds and forgets every eager op's state."""
    if seed is not None:
        seed = int(seed)
    _eager.global_seed = seed
    _eager.op_seed_source = random.Random(seed)
    _eager.generators.clear()
    _eager.epoch += 1


def global_seed() -> int | None:
    return _eager.global_seed


def seed_epoch() -> int:
    """How many times the global seed has been set (see `_EagerSeedState.epoch`)."""
    return _eager.epoch


def eager_generators() -> dict:
    """The eager ops' Philox generators, keyed by (op type, seed attrs, dtype attrs)."""
    return _eager.generators


__all__ = ["DEFAULT_GRAPH_SEED", "get_seed", "set_random_seed", "set_seed", "set_global_seed", "global_seed"]
