"""Each random op's Philox generator: created from its seed attrs on first use, kept per op and session.

A stateful random op (RandomUniform, RandomStandardNormal, ...) continues one stream of numbers from run to
run, as TensorFlow's kernel keeps its generator: per op instance and session in graph mode (the session's
resource store), per op and traced function graph for a function's ops (TF instantiates each function with its
own kernels), per op type + attrs eagerly (TF's eager kernel cache). Every backend's kernel asks here, so
the NumPy, C and portable kernels draw the same numbers.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import weakref
from collections.abc import Iterator
from typing import Any

from webflow.framework import random_seed
from webflow.framework.philox import PhiloxGenerator

# Blocks reserved per output value and run (TF's ReserveRandomOutputs multiplier).
RESERVE_MULTIPLIER = 256


def generator_for(context_: Any) -> PhiloxGenerator:
    """This op's persistent Philox state, created from its seed attrs on first use."""
    attrs = context_.attrs if context_.op_name is None else context_.op._attrs
    if context_.op_name is None:  # eager: TF keeps one kernel per (op, attrs) in its kernel cache
        store = random_seed.eager_generators()
        key = (context_.opdef.type,) + tuple(sorted((k, str(v)) for k, v in attrs.items()))
    else:
        store, key = _op_store(context_), context_.op_name
    if key not in store:  # setdefault: two threads running the op first keep one generator
        store.setdefault(key, PhiloxGenerator(int(attrs.get("seed", 0)), int(attrs.get("seed2", 0))))
    touched = getattr(_LOOP_STEP, "touched", None)
    if touched is not None:
        touched[key] = store[key]
    fixed = getattr(_LOOP_STEP, "draws", None)
    if fixed and key in fixed:
        return _Fixed(fixed[key])
    if attrs.get(REPLAY_ATTR):
        return _Replay(store[key])
    return store[key]


# A traced function's random ops keep their state per function graph (TF instantiates each function with its own
# kernels): a new function or a retrace starts from its seeds, later calls of one trace continue its streams.
_FUNCTION_STATES = "_function_random_states"


def _op_store(context_: Any) -> dict:
    """Where a graph op's generator lives: the session's resources for a plain graph's op; for an op of a traced
    function (FuncGraph), a table of that graph's own, kept in those resources (a tf.data iterator's layer, the
    eager store; there `set_seed` drops them, as TF clears its caches)."""
    graph = context_.op.graph
    if not getattr(graph, "_building_function", False):
        return context_.resources
    owner = getattr(graph, "random_state_owner", None) or graph   # a gradient graph replays its forward's draws
    resources, epoch = context_.resources, None
    if isinstance(resources, collections.ChainMap):   # a tf.data iterator's layer: its own map, not the one beneath
        resources = resources.maps[0]
    elif getattr(context_, "session", None) is None:  # called eagerly: `set_seed` drops these kernels
        epoch = random_seed.seed_epoch()
    entry = resources.get(_FUNCTION_STATES)
    if entry is None or entry[0] != epoch:
        entry = resources[_FUNCTION_STATES] = (epoch, weakref.WeakKeyDictionary())
    tables = entry[1]
    table = tables.get(owner)
    if table is None:
        table = tables.setdefault(owner, {})
    return table


# A random op in a while_loop body draws new numbers at each step; the While gradient runs the body again per
# step (ops/functional_ops.py), and each such run must see the numbers of that step: the forward loop records
# each step's reservations (recording_draws), the gradient replays them (fixed_draws).
_LOOP_STEP = threading.local()


@contextlib.contextmanager
def recording_draws() -> Iterator[dict]:
    """Yields a dict that, on exit, maps each generator key that drew meanwhile to its last reservation."""
    draws: dict = {}
    touched: dict = {}
    saved, _LOOP_STEP.touched = getattr(_LOOP_STEP, "touched", None), touched
    try:
        yield draws
    finally:
        _LOOP_STEP.touched = saved
        draws.update({key: gen.last_reserved.copy() for key, gen in touched.items()
                      if getattr(gen, "last_reserved", None) is not None})


@contextlib.contextmanager
def fixed_draws(draws: dict | None) -> Iterator[None]:
    """Random ops whose key is in `draws` draw those reservations' numbers again (the store is not advanced)."""
    saved = getattr(_LOOP_STEP, "draws", None)
    _LOOP_STEP.draws = draws if draws is not None else saved
    try:
        yield
    finally:
        _LOOP_STEP.draws = saved


class _Fixed:
    """Stands in for an op's generator: every reservation starts where a recorded one started."""

    def __init__(self, start: PhiloxGenerator):
        self.start = start

    def reserve_outputs(self, output_count: int, multiplier: int = RESERVE_MULTIPLIER) -> PhiloxGenerator:
        return self.start.copy()

    def reserve_uint32s(self, count: int) -> PhiloxGenerator:
        return self.start.copy()


RANDOM_OP_TYPES = frozenset({"RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
                             "RandomShuffle", "Multinomial"})
# A gradient graph recomputes its forward sub-graph (autodiff/func_graph_gradients.py). Its copy of a
# random op carries this attr and redraws the numbers the forward op drew in this run, so a dropout mask
# inside a cond branch is the same mask in the backward pass (TensorFlow keeps the forward's output).
REPLAY_ATTR = "_replay_forward_draw"


class _Replay:
    """Stands in for an op's generator: every reservation returns the forward op's last reservation."""

    def __init__(self, generator: PhiloxGenerator):
        self.generator = generator

    def reserve_outputs(self, output_count: int, multiplier: int = RESERVE_MULTIPLIER) -> PhiloxGenerator:
        return self.generator.replay_last()

    def reserve_uint32s(self, count: int) -> PhiloxGenerator:
        return self.generator.replay_last()


def cpu_threads(context_: Any) -> int:
    """TF's intra-op thread count: the session's intra_op_parallelism_threads, else the usable CPUs."""
    config = getattr(getattr(context_, "session", None), "_config", None)
    configured = getattr(config, "intra_op_parallelism_threads", 0) or 0
    if configured > 0:
        return int(configured)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
