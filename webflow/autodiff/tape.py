"""`GradientTape`: reverse-mode autodiff. While active it records each op whose inputs it watches;
`gradient` replays the record backwards through the same gradient rules `tf.gradients` uses.
Gradient rules run as ordinary eager ops, so an outer tape records them: nest tapes for second order.

A tape opened while a graph is being built (the body of a `wf.function`, the TF2 training step) records that
graph's operations instead, as they are added, and `gradient` then adds the gradient ops to the same graph. A
variable is read there through the placeholder its handle was captured as, so that placeholder is what the tape
watches and differentiates with respect to.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from webflow.autodiff.aggregate import aggregate
from webflow.autodiff.gradients import UnconnectedGradients
from webflow.framework import context
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import gradient_function

# Ops that read the variables whose handles they take (the call op runs a traced wf.function).
_READS_VARIABLES = ("ReadVariableOp", "PartitionedCall", "StatefulPartitionedCall")


class EagerOp:
    """What a gradient rule sees of an op that ran eagerly: type, inputs, outputs, attrs."""

    __slots__ = ("type", "inputs", "outputs", "_attrs", "name")
    graph = None

    def __init__(self, op_type: str, inputs: list, outputs: list, attrs: dict):
        self.type = op_type
        self.inputs = inputs
        self.outputs = outputs
        self._attrs = attrs
        self.name = op_type

    def get_attr(self, name: str) -> Any:
        if name in self._attrs:
            return self._attrs[name]
        if name == "T" and self.inputs:
            return self.inputs[0].dtype.base_dtype
        raise ValueError(f"Operation '{self.type}' has no attr named '{name}'.")


def _nest_flatten(value: Any) -> list:
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _nest_flatten(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for item in value for leaf in _nest_flatten(item)]
    return [value]


def _nest_pack(structure: Any, leaves: Iterator) -> Any:
    if isinstance(structure, dict):
        return {key: _nest_pack(structure[key], leaves) for key in sorted(structure)}
    if isinstance(structure, (list, tuple)):
        packed = [_nest_pack(item, leaves) for item in structure]
        return packed if isinstance(structure, list) else type(structure)(packed) if not hasattr(
            structure, "_fields") else type(structure)(*packed)
    return next(leaves)


class GradientTape:
    """Records eager ops on watched tensors (and, by default, every trainable variable read)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._watched: set[int] = set()
        self._watched_variables: list = []
        self._entries: list[EagerOp] = []
        self._recording = False
        self._used = False
        self._graph: Any = None  # the graph being built when the tape opened; None when eager

    # --- recording -------------------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        self._graph = None if context.executing_eagerly() else context.get_default_graph()
        self._push()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        context.push_tape_recorder(self._record)
        self._recording = True

    def _pop(self) -> None:
        context.pop_tape_recorder(self._record)
        self._recording = False

    def _record(self, opdef: Any, attrs: dict, inputs: list, outputs: list, operation: Any = None) -> None:
        if (operation.graph if operation is not None else None) is not self._graph:
            return  # an op of another graph than the tape's (or eager while the tape is a graph's)
        if opdef.type in _READS_VARIABLES and self._watch_accessed_variables:
            for handle in inputs:  # a wf.function call reads every variable whose handle it takes
                variable = self._variable_of(handle)
                if getattr(variable, "trainable", False):
                    self._watch_variable(variable)
        if any(t._uid in self._watched for t in inputs):
            self._entries.append(operation or EagerOp(opdef.type, inputs, outputs, attrs))
            self._watched.update(t._uid for t in outputs)

    def _variable_of(self, handle: Any) -> Any:
        """The variable whose handle `handle` is (eagerly), or was captured as (in the tape's graph); else None."""
        if handle.dtype.name != "resource":
            return None
        if self._graph is None:
            return handle._value
        for outer, inner in getattr(self._graph, "captures", ()):
            if inner is handle:
                return getattr(outer, "_value", None)
        return None

    def _handle_in_tape_graph(self, variable: Any) -> Any:
        """The tensor standing for `variable`'s handle where the tape records: the handle itself eagerly, the
        placeholder it is captured as inside a wf.function being traced."""
        if self._graph is None or not hasattr(self._graph, "capture"):
            return variable.handle
        return self._graph.capture(variable.handle)

    def watch(self, tensor: Any) -> None:
        """Records operations on `tensor` (or each tensor / variable in a nest) from now on."""
        for item in _nest_flatten(tensor):
            if hasattr(item, "handle") and hasattr(item, "_is_variable"):
                self._watch_variable(item)
            elif not (item.dtype.is_floating or item.dtype.base_dtype.name == "resource"):
                import warnings

                warnings.warn(f"The dtype of the watched tensor must be floating (e.g. tf.float32), got {item.dtype!r}",
                              stacklevel=2)
                self._watched.add(item._uid)
            else:
                self._watched.add(item._uid)

    def _watch_variable(self, variable: Any) -> None:
        handle = self._handle_in_tape_graph(variable)
        if handle._uid not in self._watched:
            self._watched.add(handle._uid)
            self._watched_variables.append(variable)

    def watched_variables(self) -> tuple:
        return tuple(self._watched_variables)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        if not self._recording:
            raise ValueError("Tape.stop_recording() can only be called when the tape is recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self) -> None:
        self._watched.clear()
        self._watched_variables.clear()
        self._entries.clear()

    # --- differentiating -------------------------------------------------------------------------
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: str = UnconnectedGradients.NONE) -> Any:
        """d(sum of target)/d(source) for each source in the nest `sources`."""
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of "
                               "gradients (or jacobians)")
        self._used = True
        targets = [convert_to_tensor(t) for t in _nest_flatten(target)]
        source_leaves = _nest_flatten(sources)
        seeds = [None] * len(targets) if output_gradients is None else _nest_flatten(output_gradients)
        was_recording = self._recording
        if was_recording:
            self._pop()
        try:
            grads = self._backpropagate(targets, seeds)
        finally:
            if was_recording:
                self._push()
        results = [self._result_for(source, grads, unconnected_gradients) for source in source_leaves]
        if not self._persistent:
            self._entries = []
        return _nest_pack(sources, iter(results))

    def _backpropagate(self, targets: list, seeds: list) -> dict:
        from webflow.ops import array_ops

        grads: dict[int, list] = {}
        for target, seed in zip(targets, seeds):
            if seed is None:
                seed = array_ops.ones_like(target)
            grads.setdefault(target._uid, []).append(convert_to_tensor(seed, dtype=target.dtype.base_dtype))
        for op in reversed(self._entries):
            out_grads = [aggregate(grads.get(t._uid, [])) for t in op.outputs]
            if all(g is None for g in out_grads):
                continue
            rule = gradient_function(op)
            if rule is None:
                continue
            out_grads = [array_ops.zeros_like(t) if g is None else g for g, t in zip(out_grads, op.outputs)]
            in_grads = rule(op, *out_grads)
            in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
            for tensor, grad in zip(op.inputs, in_grads):
                if grad is not None and tensor._uid in self._watched:
                    grads.setdefault(tensor._uid, []).append(grad)
        return grads

    def _result_for(self, source: Any, grads: dict, unconnected: str) -> Any:
        from webflow.ops import array_ops

        tensor = self._handle_in_tape_graph(source) if hasattr(source, "_is_variable") else source
        if not hasattr(tensor, "_uid"):
            raise ValueError(f"Cannot differentiate with respect to {source!r}: it is not a tensor or variable.")
        grad = aggregate(grads.get(tensor._uid, []))
        if grad is None and unconnected == UnconnectedGradients.ZERO:
            return array_ops.zeros_like(source)
        return grad

    def jacobian(self, target: Any, sources: Any, unconnected_gradients: str = UnconnectedGradients.NONE,
                 parallel_iterations: Any = None, experimental_use_pfor: bool = True) -> Any:
        """d target[i...] / d source, stacked over target elements (computed row by row)."""
        from webflow.ops import array_ops, concat_ops, sequence_ops

        if not self._persistent and self._used:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients")
        target = convert_to_tensor(target)
        flat = array_ops.reshape(target, [-1])
        size = int(flat.shape[0])
        source_leaves = _nest_flatten(sources)
        persistent, self._persistent = self._persistent, True
        rows = []
        try:
            for i in range(size):
                seed = array_ops.reshape(sequence_ops.one_hot(i, size, dtype=target.dtype), target.shape)
                rows.append(self.gradient(target, source_leaves, output_gradients=[seed],
                                          unconnected_gradients=unconnected_gradients))
        finally:
            self._persistent = persistent
            self._used = True
        results = []
        for j, source in enumerate(source_leaves):
            column = [row[j] for row in rows]
            if any(c is None for c in column):
                results.append(None)
                continue
            stacked = concat_ops.stack([array_ops.to_dense_tensor(c) for c in column])
            results.append(array_ops.reshape(stacked, target.shape.concatenate(convert_to_tensor(source).shape)))
        return _nest_pack(sources, iter(results))

