"""An AddN of many private terms summed as the terms are made: a gradient summed over an unrolled RNN's steps.

`tf.gradients` sums a weight's gradient over the time steps of an unrolled RNN with one AddN: the word LM's
LSTM kernel gets 20 products [400, 800] (1.28 MB each), all kept until the AddN reads them back from memory
at the end. Here the executor's plan (never the graph) adds each term into a running sum just after the step
that makes it, while it is still in cache, and the term is dropped at once (executor._prepare_lean), so the
next product reuses the same, still cached, memory. Measured: benchmarks/FIGURES.md, "Word LM".

The sums are those of AddN's NumPy kernel (math_ops.add_n_kernel), in the same order: x1 + x2 into a new array,
then x3, x4 ... added into it. So only an AddN whose terms are made in input order (their steps run in that
order), read by nothing else and not fetched (the sum itself may be), by steps of the plan, with NumPy present,
is streamed; it stays one step otherwise. `WEBFLOW_FUSION=0` turns this off with the other fusions.

May import: backends/, framework/, ops/ and runtime/kernel_errors.py, runtime/fusion.py (not executor.py).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.ops.registry import OPS
from webflow.runtime import fusion

MIN_TERMS = 3  # two terms are one add either way
_PLAN_ONLY = -(1 << 40)  # running sums get uids below this: values of the plan's own, never a tensor's


def stream(steps: list, pinned_uids: set, make_step: Any) -> list:
    """The steps with each streamable AddN (module docstring) replaced by running-sum steps placed after the
    steps making its terms. `make_step(op)` builds a step like the executor's."""
    if not fusion.ENABLED or not HAVE_NUMPY:
        return steps
    readers: dict[int, int] = {}
    for step in steps:
        for uid in step.input_uids:
            readers[uid] = readers.get(uid, 0) + 1
    made_at = {uid: at for at, step in enumerate(steps) for uid in step.output_uids}
    after: dict[int, list] = {}  # position of a term's step -> the running-sum steps that follow it
    streamed: set[int] = set()
    for step in steps:
        positions = _term_positions(step, readers, made_at, pinned_uids)
        if positions is None:
            continue
        streamed.add(id(step))
        for position, running in zip(positions[1:], _running_steps(step, make_step)):
            after.setdefault(position, []).append(running)
    if not streamed:
        return steps
    plan = []
    for at, step in enumerate(steps):
        if id(step) not in streamed:
            plan.append(step)
        plan.extend(after.get(at, ()))
    return plan


def _term_positions(step: Any, readers: dict, made_at: dict, pinned_uids: set) -> list | None:
    """The positions of the steps making the AddN's terms, in input order, when it can be streamed; else None."""
    uids = step.input_uids
    if step.op.type != "AddN" or len(uids) < MIN_TERMS or step.kernel is not OPS["AddN"].kernels["numpy"] \
            or not fusion._plain([step]) or step.alias_inputs or len(set(uids)) != len(uids):
        return None
    if any(readers.get(uid) != 1 or uid in pinned_uids or uid not in made_at for uid in uids):
        return None
    positions = [made_at[uid] for uid in uids]
    if any(earlier >= later for earlier, later in zip(positions, positions[1:])):
        return None  # made out of order: summing as they come would change the order of the adds
    return positions


def _running_steps(add_n: Any, make_step: Any) -> list:
    """Steps for terms 2 .. N: start (x1 + x2), add (sum += x_i) ..., finish (the AddN's output)."""
    uids, running = add_n.input_uids, _PLAN_ONLY - add_n.output_uids[0]
    steps = []
    for index in range(1, len(uids)):
        step = make_step(add_n.op)
        step.parts = [add_n]
        step.attrs = {}
        step.input_uids = [uids[0], uids[1]] if index == 1 else [running, uids[index]]
        step.output_uids = add_n.output_uids if index == len(uids) - 1 else [running]
        step.kernel = _start if index == 1 else (_finish if index == len(uids) - 1 else _add)
        steps.append(step)
    return steps


# The three kernels replay add_n_kernel's loop one term at a time (same adds, same order, same arrays).
def _start(first: Any, second: Any) -> Any:
    return np.add(first, second)


def _add(total: Any, value: Any) -> Any:
    if type(total) is np.ndarray and getattr(value, "shape", None) == total.shape:
        return np.add(total, value, out=total)  # total is this sum's own array (made by _start)
    return np.add(total, value)


def _finish(total: Any, value: Any) -> Any:
    return np.asarray(_add(total, value))


__all__ = ["stream"]
