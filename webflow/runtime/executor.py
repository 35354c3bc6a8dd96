"""Runs part of a graph: prune to what the fetches need, order it, execute each op's kernel.

`Session.run` and `webflow.function` both call `make_plan` once per (fetches, feeds) signature and
`execute` on every run, so the per-run cost is one loop over the ordered ops.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import NumpyUnavailable
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError, OpError
from webflow.framework.func_graph import FuncGraph
from webflow.framework.uninitialized import UNINITIALIZED
from webflow.ops import functional_ops
from webflow.ops.constants import shape_text
from webflow.ops.registry import gradient_function  # noqa: F401  (re-exported for debug tools)
from webflow.runtime import fusion, running_sums
from webflow.runtime.kernel_errors import KERNEL_ERRORS, kernel_error, missing_numpy_error, with_op

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_MISSING = object()


class GraphKernelContext:
    """What a stateful kernel may use when run by the executor: its op, and the session's resources."""

    __slots__ = ("op", "resources", "session", "run_state")

    def __init__(self, op: Any, resources: dict, session: Any, run_state: dict):
        self.op = op
        self.resources = resources
        self.session = session
        self.run_state = run_state

    @property
    def op_name(self) -> str:
        return self.op.name

    def ref_key(self, index: int) -> str:
        """The name of the variable that input `index` refers to (following ref-passing identities)."""
        tensor = self.op.inputs[index]
        while tensor.op.type in ("Identity", "RefIdentity") and tensor.dtype.is_ref_dtype:
            tensor = tensor.op.inputs[0]
        return tensor.op.name


class Plan:
    """The ordered ops one (fetches, feeds) signature needs."""

    def __init__(self, ops: list, fetches: list, fed_uids: frozenset, targets: tuple = ()):
        self.ops = ops
        self.fetches = fetches
        self.fed_uids = fed_uids
        self.logged = False
        self.lean_ready = False  # each step's `lean` is set on the first untraced run
        # Constants are looked up once here instead of being "run" each time: this halves the
        # per-run cost of a typical small graph (measured 51 -> 25 us for 10 adds and 11 consts).
        self.constants = {op._outputs[0]._uid: op._attrs["value"] for op in ops if op.type == "Const"}
        self.steps = [_Step(op) for op in ops if op.type != "Const"]
        self.generation = selection.STATE.generation  # kernels are re-chosen if the backend setting changes
        # tensors that share a variable's buffer in TensorFlow: read when used, not when produced
        self.aliases = variable_aliases(ops)
        for step in self.steps:
            step.alias_inputs = [(i, t, self.aliases[t._uid]) for i, t in enumerate(step.op.inputs)
                                 if t._uid in self.aliases] or None
        self.fetched_aliases = [(t, self.aliases[t._uid]) for t in fetches
                                if t._uid in self.aliases and t._uid not in fed_uids]
        for step in self.steps:
            step.skip = _alias_only(step, self.aliases, fed_uids)
            if step.state_inputs and step.alias_inputs:  # read by name in the kernel (OpDef.state_inputs)
                step.alias_inputs = [alias for alias in step.alias_inputs if alias[0] >= step.state_inputs] or None
        # ops only control edges reach (TensorFlow's grappler prunes them too): never run, traced or not
        self.unread = _unread(self.steps, fetches, {op._id for op in targets})
        unread_ids = {id(step) for step in self.unread}
        self.steps = [step for step in self.steps if id(step) not in unread_ids]
        # chains such as Conv2D -> bias add -> Relu run as one kernel, as TensorFlow's remapper does (fusion.py)
        self.steps = fusion.fuse(self.steps, {t._uid for t in fetches} | fed_uids, _Step)
        # an AddN of many private terms (a gradient over an RNN's time steps) summed as they are made
        self.steps = running_sums.stream(self.steps, {t._uid for t in fetches} | fed_uids, _Step)

    def all_steps(self) -> list:
        """Every step that runs, with fused steps' parts in place of the fused step."""
        return [part for step in self.steps for part in (step.parts or (step,))]


def variable_aliases(ops: list) -> dict:
    """{tensor uid: variable name} for the ref tensors of TF1 variables and the identities of them (`v/read`).

    In TensorFlow these tensors share the variable's buffer, which assign ops update in place: an op
    consuming `v/read` sees the value the variable has when that op runs (e.g. after an `assign_add`
    it has a control dependency on), and a fetched `v/read` gives the value at the end of the run.
    """
    aliases: dict[int, str] = {}
    for op in ops:  # in execution order: producers come first
        if op.type == "VariableV2":
            aliases[op.outputs[0]._uid] = op.name
        elif op.type == "Identity" and op.inputs and op.inputs[0]._uid in aliases:
            aliases[op.outputs[0]._uid] = aliases[op.inputs[0]._uid]
        else:  # an op returning a ref (Assign, ScatterUpdate...) returns its variable's
            sources = [aliases[t._uid] for t in op.inputs if t._uid in aliases and t.dtype.is_ref_dtype]
            for tensor in op.outputs if sources else ():
                if tensor.dtype.is_ref_dtype:
                    aliases[tensor._uid] = sources[0]
    return aliases


def _alias_only(step: _Step, aliases: dict, fed_uids: frozenset) -> str | None:
    """For a VariableV2 or an Identity of a variable (`v/read`), whose output every consumer and fetch
    reads as the variable's current value anyway (`alias_inputs`, `fetched_aliases`): the variable name
    whose presence makes running it pointless ("" for VariableV2, which never fails); None for other ops.

    These are 28 of the 784-256-128-10 MLP step's 120 ops (about 0.1 ms per step in Pyodide, measured on a
    loaded machine). An uninitialised variable still runs the step, which raises the error it always raised."""
    op = step.op
    if any(uid in fed_uids for uid in step.output_uids):
        return None
    if op.type == "VariableV2":
        return ""
    if op.type == "Identity" and step.alias_inputs and len(step.alias_inputs) == 1 \
            and step.output_uids[0] in aliases:
        return step.alias_inputs[0][2]
    return None


# Stateless by their op definition, yet run for an effect (TensorFlow's grappler keeps them too).
_KEPT_FOR_EFFECT = frozenset({"Placeholder", "PlaceholderWithDefault", "Assert", "Print", "PrintV2",
                              "CheckNumerics", "CheckNumericsV2"})


def _unread(steps: list, fetches: list, target_ids: set) -> list:
    """The side-effect-free steps whose outputs no fetch and no other running op reads: ops in the plan
    only through control edges, such as the gradient with respect to the input images that
    `minimize()`'s gradient gating (control_flow_ops.tuple) ties to the weights' gradients.

    TensorFlow's grappler turns such ops into NoOps (checked with TF 2.x: a TF1 MLP trained with
    AdamOptimizer never runs `gradients/MatMul_grad/MatMul`, and a MatMul of mismatched shapes reached only
    through a control dependency raises nothing), so the ops that run match TensorFlow's. In the
    784-256-128-10 MLP step this is the 128x256x784 GEMM, a quarter of the step's flops.
    Walked backwards, so an op read only by unread ops is unread as well. Ops asked for as run targets
    always run (grappler preserves fetch nodes: `sess.run(matmul.op)` runs the MatMul in TensorFlow)."""
    read = {t._uid for t in fetches}
    unread = []
    for step in reversed(steps):
        op = step.op
        if step.skip is None and step.output_uids and not op._opdef.stateful and not step.needs_context \
                and op.type not in _KEPT_FOR_EFFECT and "Queue" not in op.type \
                and not any(t.dtype.is_ref_dtype or t.dtype.base_dtype.name == "resource" for t in op.inputs) \
                and op._id not in target_ids and not any(uid in read for uid in step.output_uids):
            unread.append(step)
            continue
        read.update(step.input_uids)
    return unread


class _Step:
    """One op, pre-digested for the run loop: kernel, input/output ids, attrs."""

    __slots__ = ("op", "kernel", "backend", "input_uids", "output_uids", "attrs", "needs_context",
                 "reads_ref_value", "alias_inputs", "skip", "state_inputs", "op_type", "parts", "lean", "dead")

    def __init__(self, op: Any):
        self.op = op
        # NumPy, or the C kernel when backends/selection.py picks it for this op's dtype and static size
        self.kernel, self.backend = selection.node_kernel(op)
        self.input_uids = [t._uid for t in op.inputs]
        self.output_uids = [t._uid for t in op._outputs]
        # Attrs named `_...` are for the engine (as TensorFlow's internal attrs), not kernel arguments.
        self.attrs = {k: v for k, v in op._attrs.items() if not k.startswith("_")}
        self.needs_context = op._opdef.needs_context
        # an op that reads a variable's value (not its reference) must find it initialised
        self.reads_ref_value = _reads_ref_value(op)
        self.state_inputs = op._opdef.state_inputs
        self.alias_inputs: list | None = None  # (index, tensor, variable name) of inputs aliasing a variable
        # not run in untraced runs (see _alias_only): "" = never needed, a variable name = not needed once
        # that variable has a value. None = always run.
        self.skip: str | None = None
        self.op_type = op.type  # as traced: a fused step says _FusedConv2D (runtime/fusion.py)
        self.parts: list | None = None  # a fused step's chain of steps, whose kernels it calls
        self.lean: tuple | None = None  # set by _prepare_lean once the plan is complete (see _lean)
        self.dead: tuple | None = None  # uids of the values no later step reads (_prepare_lean)


_NOTHING = (None,) * 8  # what an op gets for the variable references it reads by name (OpDef.state_inputs)


def _reads_ref_value(op: Any) -> bool:
    names = op._opdef.inputs
    return any(t.dtype.is_ref_dtype and not (i < len(names) and names[i].startswith("ref"))
               for i, t in enumerate(op.inputs))


def make_plan(fetch_tensors: list, target_ops: list, fed_uids: frozenset) -> Plan:
    """Prunes to the ops that the fetches and targets need (stopping at fed tensors), then orders them."""
    needed: dict[int, Any] = {}
    stack = [t.op for t in fetch_tensors if t._uid not in fed_uids] + list(target_ops)
    while stack:
        op = stack.pop()
        if op._id in needed:
            continue
        needed[op._id] = op
        stack.extend(t.op for t in op.inputs if t._uid not in fed_uids)
        stack.extend(c for c in op.control_inputs if not _is_fed_placeholder(c, fed_uids))
    return Plan(_topological_order(needed), fetch_tensors, fed_uids, tuple(target_ops))


def _is_fed_placeholder(op: Any, fed_uids: frozenset) -> bool:
    """A control dependency on a fed placeholder is met by the feed, as in TensorFlow (which moves such edges to
    the feed's own node; only for placeholders: another fed op's control edges still run it)."""
    return op.type in ("Placeholder", "PlaceholderV2") and op.outputs[0]._uid in fed_uids


def _topological_order(needed: dict) -> list:
    """Kahn's algorithm: repeatedly run an op whose needed inputs have all been produced."""
    pending = {}
    consumers: dict[int, list] = {op_id: [] for op_id in needed}
    for op_id, op in needed.items():
        producers = {t.op._id for t in op.inputs if t.op._id in needed}
        producers |= {c._id for c in op.control_inputs if c._id in needed}
        pending[op_id] = len(producers)
        for producer in producers:
            consumers[producer].append(op_id)
    ready = deque(sorted(op_id for op_id, count in pending.items() if count == 0))
    order = []
    while ready:
        op_id = ready.popleft()
        order.append(needed[op_id])
        for consumer in consumers[op_id]:
            pending[consumer] -= 1
            if pending[consumer] == 0:
                ready.append(consumer)
    if len(order) != len(needed):
        cycle = sorted(op.name for op_id, op in needed.items() if pending[op_id] > 0)
        raise InvalidArgumentError(None, None, f"Graph has a cycle among ops: {', '.join(cycle[:10])}")
    return order


def execute(plan: Plan, feeds: dict, resources: dict, session: Any = None,
            log_placement: bool = False, trace: list | None = None, run_state: dict | None = None,
            keep_all: bool = False) -> dict:
    """Runs the plan's ops in order; returns {tensor uid: value} for the fetched tensors, and for every tensor
    produced or fed when `keep_all` or `trace` (else a value is dropped once its last reader has run, as
    TensorFlow frees a tensor: the memory it held is reused while still in cache).
    `run_state`: what this run's kernels share (a queue op's "deadline", from RunOptions.timeout_in_ms)."""
    values = dict(plan.constants)
    values.update(feeds)
    run_state = {} if run_state is None else run_state
    if plan.generation != selection.STATE.generation:  # set_backend() since the plan was made
        for step in plan.steps:
            for part in step.parts or (step,):
                part.kernel, part.backend = selection.node_kernel(part.op)
            if step.parts:  # the fused kernel stays; it runs its parts' kernels
                step.backend = step.parts[0].backend
        plan.lean_ready = False  # the steps' kernels changed
        plan.generation = selection.STATE.generation
    if log_placement and not plan.logged:
        _log_placement(plan)
        plan.logged = True
    if trace is not None:
        for step in plan.steps:
            _run_step(step, values, resources, session, run_state, trace)
    else:
        _run_lean(plan, values, resources, session, run_state, not keep_all)
    for tensor, variable in plan.fetched_aliases:  # a fetched `v/read` gives v's value at the end of the run
        values[tensor._uid] = _current_value(tensor, variable, resources, None)
    return values


def _lean(step: _Step) -> tuple | None:
    """(kernel, input uids, output uid or None for several, attrs) for a step that needs nothing but its inputs'
    values (most of them: ~1,800 of the word LM's training step), else None (it runs by _run_step)."""
    if step.skip is not None or step.state_inputs or step.alias_inputs or step.reads_ref_value \
            or step.needs_context or not step.output_uids:
        return None
    single = step.output_uids[0] if len(step.output_uids) == 1 else None
    return step.kernel, step.input_uids, single, step.attrs


def _prepare_lean(plan: Plan) -> None:
    """Sets each step's `lean` and `dead`: the values no later step reads and no fetch returns (read last by this
    step, or its outputs nobody reads)."""
    kept = {t._uid for t in plan.fetches}
    last_reader = {}
    for index, step in enumerate(plan.steps):
        for uid in step.input_uids:
            last_reader[uid] = index
    dead: list[list] = [[] for _ in plan.steps]
    for uid, index in last_reader.items():
        if uid not in kept:
            dead[index].append(uid)
    for index, step in enumerate(plan.steps):
        dead[index] += [uid for uid in step.output_uids if uid not in last_reader and uid not in kept]
        step.lean = _lean(step)
        step.dead = tuple(dead[index]) or None
    plan.lean_ready = True


def _run_lean(plan: Plan, values: dict, resources: dict, session: Any, run_state: dict, free: bool) -> None:
    """The run loop of an untraced run: a lean step in a few lines, per-op cost being most of a small op's time.
    `free`: drop each value after its last reader."""
    if not plan.lean_ready:  # once per plan, after fusion and kernel selection set every step's fields
        _prepare_lean(plan)
    for step in plan.steps:
        lean = step.lean
        if lean is None:
            _run_step(step, values, resources, session, run_state, None)
            if free and step.dead:
                for uid in step.dead:
                    values.pop(uid, None)
            continue
        kernel, input_uids, output_uid, attrs = lean
        try:
            result = kernel(*[values[uid] for uid in input_uids], **attrs)
        except OpError as error:
            raise with_op(error, step.op) from None
        except KERNEL_ERRORS as error:
            raise kernel_error(step.op, [values[uid] for uid in input_uids], error, attrs) from None
        except NumpyUnavailable as error:
            raise missing_numpy_error(step.op, [values[uid] for uid in input_uids], error, attrs) from None
        if output_uid is not None:
            values[output_uid] = result
        else:
            for uid, value in zip(step.output_uids, result):
                values[uid] = value
        if free and step.dead:
            for uid in step.dead:
                values.pop(uid, None)


def _run_step(step: _Step, values: dict, resources: dict, session: Any, run_state: dict, trace: list | None) -> None:
    """One step with everything a step may need: skipping, variable reads by name, initialisation checks, a
    kernel context, tracing."""
    # VariableV2 and `v/read`, whose outputs nobody reads (_alias_only); a traced run still lists them.
    # Not holding the variable's array here also lets an optimizer update it in place (training_ops.py).
    if step.skip is not None and (not step.skip or step.skip in resources):
        for uid in step.output_uids:
            values[uid] = None  # a stand-in: consumers of `v/read` read the variable (alias_inputs)
        if trace is not None:
            now = time.perf_counter()
            trace.append((step.op, now, now, step.backend, step.op_type, ()))
        return
    args = [values[uid] for uid in step.input_uids]
    if step.state_inputs:
        args[:step.state_inputs] = _NOTHING[:step.state_inputs]
    if step.alias_inputs:
        for index, tensor, variable in step.alias_inputs:
            args[index] = _current_value(tensor, variable, resources, step.op)
    if step.reads_ref_value:
        check_initialized(step.op, args)
    started = time.perf_counter() if trace is not None else 0.0
    try:
        if step.needs_context:
            result = step.kernel(GraphKernelContext(step.op, resources, session, run_state), *args, **step.attrs)
        else:
            result = step.kernel(*args, **step.attrs)
    except OpError as error:
        raise with_op(error, step.op) from None
    except KERNEL_ERRORS as error:
        raise kernel_error(step.op, args, error, step.attrs) from None
    except NumpyUnavailable as error:
        raise missing_numpy_error(step.op, args, error, step.attrs) from None
    if trace is not None:
        trace.append((step.op, started, time.perf_counter(), step.backend, step.op_type, _fused_names(step)))
    if len(step.output_uids) == 1:
        values[step.output_uids[0]] = result
    elif step.output_uids:
        for uid, value in zip(step.output_uids, result):
            values[uid] = value


def _fused_names(step: Any) -> tuple:
    """The other ops a fused step ran inside its kernel (runtime/fusion.py): they ran too, though not on their own."""
    return tuple(part.op.name for part in step.parts or () if part.op is not step.op)


def run_func_graph(graph: FuncGraph, values: list, resources: dict, session: Any = None,
                   extra_feeds: dict | None = None, record: list | None = None) -> list:
    """Runs a traced sub-graph (a cond branch, a loop body, a `wf.function`) as Session runs a graph: feeds its
    inputs, returns its outputs' values. Its TF1 variable references are read by name from `resources`.
    `extra_feeds` {tensor uid: value} also feeds inner tensors (the ops making them do not run); `record`, a
    list, gets the run's {tensor uid: value} appended (a loop's gradient reuses a step's values: functional_ops)."""
    if len(values) != len(graph.inputs):
        raise ValueError(f"{graph.name} takes {len(graph.inputs)} inputs, got {len(values)}")
    feeds = {placeholder._uid: value for placeholder, value in zip(graph.inputs, values)}
    if extra_feeds:
        feeds.update(extra_feeds)
    for placeholder, key in graph.ref_captures:
        feeds[placeholder._uid] = resources.get(key, UNINITIALIZED)
    plan_key = frozenset(feeds)
    plan = graph._plans.get(plan_key)
    if plan is None:
        plan = make_plan(graph.outputs, graph.stateful_ops, frozenset(feeds))
        graph._plans[plan_key] = plan
    results = execute(plan, feeds, resources, session, keep_all=record is not None)
    if record is not None:
        record.append(results)
    return [results[t._uid] for t in graph.outputs]


# The kernels of If, While and the function calls (ops/functional_ops.py) run their sub-graphs with it.
functional_ops.install_runner(run_func_graph)


def _current_value(tensor: Any, variable: str, resources: dict, op: Any) -> Any:
    value = resources.get(variable, _MISSING)
    if value is not _MISSING:  # the usual case (~40 reads per MLP step)
        return value
    value = resources.get(variable, UNINITIALIZED)
    if value is UNINITIALIZED and (op is None or not tensor.dtype.is_ref_dtype):  # a fetch, or a read
        where = (op or tensor.op).name
        raise FailedPreconditionError(
            None, op or tensor.op, f"Attempting to use uninitialized value {variable}\n\t [[{{{{node {where}}}}}]]")
    return value


def check_initialized(op: Any, args: list) -> None:
    for tensor, value in zip(op.inputs, args):
        if value is UNINITIALIZED:
            name = tensor.op.name
            raise FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {name}\n\t [[{{{{node {op.name}}}}}]]")


def _log_placement(plan: Plan) -> None:
    """One line per op: name, type, device, and the backend that runs its kernel (numpy, native, wasm)."""
    backends = {step.op._id: step.backend for step in plan.all_steps() + plan.unread}
    for op in plan.ops:
        device = op.device or CPU_DEVICE
        if not device.startswith("/job:"):
            device = "/job:localhost/replica:0/task:0" + device
        print(f"{op.name}: ({op.type}): {device} [backend: {backends.get(op._id, selection.NUMPY)}]",
              file=sys.stderr)


__all__ = ["make_plan", "execute", "run_func_graph", "Plan", "GraphKernelContext", "kernel_error", "shape_text"]
