"""`tf.train.Optimizer`: the TF1 base class — compute_gradients, apply_gradients, minimize, slots.

A training step, as TensorFlow builds it:

    grads_and_vars = opt.compute_gradients(loss)       # [(dloss/dv or None, v) for trainable v]
    train_op = opt.apply_gradients(grads_and_vars)     # one fused Apply<X> op per variable

`apply_gradients` creates the optimizer's slot variables ("Variable/Adam", ...) outside any control
dependencies (named as TensorFlow names them: a slot inside the variable scope current at that time, a non-slot
variable such as "beta1_power" inside the name scope; each under `colocate_with` its variable), then,
inside name scope "<Name>", adds "update_<var>/Apply<X>" per variable, groups them
(`_finish`), and, given `global_step`, increments it with an AssignAdd that is the returned op.
Subclasses say which slots they need (`_create_slots`), turn hyper-parameters into tensors
(`_prepare`) and run their update op (`_apply_update(grad, var, indices)`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.init_scope import init_scope
from webflow.framework.tensor import Tensor
from webflow.ops import array_ops, math_ops, training_ops
from webflow.ops.control_flow_ops import group
from webflow.ops.convert import convert_to_tensor
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.state_ops import RefVariable, VariableTypes, assign_add
from webflow.ops.variable_scope import variable_scope
from webflow.ops.variables import trainable_variables
from webflow.train import _math

VALID_DTYPES = (dtypes.float16, dtypes.float32, dtypes.float64)


def _is_resource(variable: Any) -> bool:
    return isinstance(variable, ResourceVariable)


class Optimizer:
    """Base class for TF1 optimizers. Do not use directly: use GradientDescentOptimizer, AdamOptimizer, ..."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict] = {}          # slot name -> {variable: slot variable}
        self._non_slot_dict: dict[tuple, Any] = {}  # (name, graph) -> variable (Adam's beta1_power ...)
        # restorations a tf.train.Checkpoint left for variables not made yet (train/object_graph.py)
        self._deferred_dependencies: dict[str, Callable] = {}      # non-slot variable name -> restore(variable)
        self._deferred_slot_restorations: dict[tuple, Callable] = {}  # (id(var), slot name) -> restore(slot)

    def get_name(self) -> str:
        return self._name

    # --- the three public steps ------------------------------------------------------------------
    def minimize(self, loss: Any, global_step: Any = None, var_list: Any = None, gate_gradients: int = GATE_OP,
                 aggregation_method: Any = None, colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> Any:
        """compute_gradients then apply_gradients; returns the training op."""
        grads_and_vars = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                                aggregation_method=aggregation_method,
                                                colocate_gradients_with_ops=colocate_gradients_with_ops,
                                                grad_loss=grad_loss)
        if not [v for g, v in grads_and_vars if g is not None]:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do not support "
                             f"gradients, between variables {[str(v) for _, v in grads_and_vars]} and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss: Any, var_list: Any = None, gate_gradients: int = GATE_OP,
                          aggregation_method: Any = None, colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list:
        """[(gradient or None, variable)] for the trainable variables (or `var_list`), in that order."""
        if callable(loss) and context.executing_eagerly():
            return self._eager_gradients(loss, var_list, grad_loss)
        if context.executing_eagerly():
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                               "execution is enabled.")
        if callable(loss):
            loss = loss()
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             f"Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        self._assert_valid_dtypes([loss])
        if var_list is None:
            var_list = trainable_variables() + list(
                context.get_default_graph().get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = _flatten(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        from webflow.autodiff.gradients import gradients

        grads = gradients(loss, var_list, grad_ys=grad_loss, aggregation_method=aggregation_method,
                          gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            from webflow.ops.control_flow_ops import tuple as tuple_op

            grads = tuple_op(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars if g is not None])
        return grads_and_vars

    def _eager_gradients(self, loss: Callable, var_list: Any, grad_loss: Any) -> list:
        from webflow.autodiff.tape import GradientTape

        with GradientTape() as tape:
            if var_list is not None:
                var_list = _flatten(var_list)
                tape.watch(var_list)
            loss_value = loss()
        if var_list is None:
            var_list = list(tape.watched_variables())
        grads = tape.gradient(loss_value, var_list, grad_loss)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars: Any, global_step: Any = None, name: str | None = None) -> Any:
        """Adds one update op per (gradient, variable) with a gradient; returns the op that runs them all."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for grad, var in grads_and_vars:
            if grad is not None and not isinstance(grad, IndexedSlices):
                try:
                    grad = convert_to_tensor(grad)
                except (TypeError, ValueError):
                    raise TypeError(f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {grad}") \
                        from None
            if not isinstance(var, VariableTypes):
                raise NotImplementedError(f"Trying to update a Tensor {var}")
            converted.append((grad, var))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError(f"No gradients provided for any variable: {[str(v) for _, v in converted]}.")
        if context.executing_eagerly():
            return self._apply_eagerly(converted, global_step)
        graph = context.get_default_graph()
        with init_scope():  # slots never wait on the step, and a wf.function's first trace makes them eagerly
            self._create_slots(var_list)
        update_ops = []
        with graph.name_scope(name or self._name) as scope:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with graph.name_scope("update_" + ("" if _is_resource(var) else var.op.name)), \
                        colocated_with(var):   # as TF names and colocates it
                    update_ops.append(self._update_one(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with graph.control_dependencies([self._finish(update_ops, "update")]), colocated_with(global_step):
                    apply_updates = assign_add(global_step, 1, name=scope)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_ops:
                train_ops.append(apply_updates)
        return apply_updates

    def _apply_eagerly(self, converted: list, global_step: Any) -> None:
        self._create_slots([v for g, v in converted if g is not None])
        self._prepare()
        update_ops = [self._update_one(grad, var) for grad, var in converted if grad is not None]
        self._finish(update_ops, self._name)
        if global_step is not None:
            global_step.assign_add(1)
        return None

    def _update_one(self, grad: Any, var: Any) -> Any:
        """Dense gradients go to `_apply_dense`; IndexedSlices to `_apply_sparse_duplicate_indices` (which, unless
        an optimizer overrides it, de-duplicates them, then calls `_apply_sparse`)."""
        if isinstance(grad, IndexedSlices):
            if _is_resource(var):
                return self._resource_apply_sparse_duplicate_indices(grad.values, var, grad.indices)
            return self._apply_sparse_duplicate_indices(grad, var)
        if _is_resource(var):
            return self._resource_apply_dense(grad, var)
        return self._apply_dense(grad, var)

    def _apply_sparse_duplicate_indices(self, grad: IndexedSlices, var: Any) -> Any:
        grad = self._deduplicate(grad)
        return self._apply_sparse(grad, var)

    def _resource_apply_sparse_duplicate_indices(self, grad: Any, var: Any, indices: Any) -> Any:
        deduplicated = self._deduplicate(IndexedSlices(grad, indices))
        return self._resource_apply_sparse(deduplicated.values, var, deduplicated.indices)

    @staticmethod
    def _deduplicate(grad: IndexedSlices) -> IndexedSlices:
        """Sums the rows of repeated indices, as TensorFlow does before a sparse update (its
        `_deduplicate_indexed_slices`: Unique, then UnsortedSegmentSum into shape(unique)[0] rows)."""
        unique_indices, positions = _math.unique(grad.indices)
        summed = array_ops.unsorted_segment_sum(grad.values, positions, array_ops.shape(unique_indices)[0])
        return IndexedSlices(summed, unique_indices, grad.dense_shape)

    # --- what subclasses fill in -------------------------------------------------------------------
    def _create_slots(self, var_list: list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        raise NotImplementedError()

    def _apply_dense(self, grad: Any, var: Any) -> Any:
        return self._apply_update(grad, var, None)

    def _resource_apply_dense(self, grad: Any, var: Any) -> Any:
        return self._apply_update(grad, var, None)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        return self._apply_update(grad.values, var, grad.indices)

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return self._apply_update(grad, var, indices)

    def _finish(self, update_ops: list, name_scope: str) -> Any:
        return group(*update_ops, name=name_scope)

    # --- helpers for subclasses ------------------------------------------------------------------------
    def _run_update(self, family: str, var: Any, slots: list, rest: list, indices: Any = None,
                    attrs: dict | None = None) -> Any:
        """Runs [Resource][Sparse]Apply<family> on `var` + `slots`; `indices` go right after `grad` (rest's
        entry named by the op's input list) for the sparse form."""
        prefix = ("Resource" if _is_resource(var) else "") + ("Sparse" if indices is not None else "") + "Apply"
        if indices is not None:
            rest = _insert_indices(family, rest, indices)
        attrs = {"use_locking": self._use_locking, **(attrs or {})}
        return training_ops.apply_update(prefix + family, [var] + slots, rest, attrs)

    def _cast(self, tensor: Any, var: Any) -> Any:
        return math_ops.cast(tensor, var.dtype.base_dtype)

    @staticmethod
    def _call_if_callable(param: Any) -> Any:
        return param() if callable(param) else param

    def _assert_valid_dtypes(self, tensors: list) -> None:
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in VALID_DTYPES:
                raise ValueError(f"Invalid type {dtype!r} for {t.name}, expected: {list(VALID_DTYPES)}.")

    # --- slots ---------------------------------------------------------------------------------------
    def get_slot(self, var: Any, name: str) -> Any:
        return self._slots.get(name, {}).get(var)

    def get_slot_names(self) -> list:
        return sorted(self._slots)

    def variables(self) -> list:
        """The slot and non-slot variables this optimizer created (for the current graph), sorted by name."""
        eager = context.executing_eagerly()
        graph = None if eager else context.get_default_graph()
        found = [v for (_, g), v in self._non_slot_dict.items() if g is graph]
        for slots in self._slots.values():
            found.extend(v for v in slots.values() if eager or getattr(v, "graph", None) is graph)
        return sorted(found, key=lambda v: v.name)

    def _zeros_slot(self, var: Any, slot_name: str, op_name: str) -> Any:
        return self._make_slot(var, 0, slot_name, op_name, "zeros")

    def _make_slot(self, var: Any, fill: float, slot_name: str, op_name: str, const_name: str) -> Any:
        """Slot `slot_name` of `var`: a non-trainable variable filled with `fill`, named "<var op name>/<op_name>"
        inside the current variable scope (unique there, see `_slot_name`), colocated with `var`."""
        slots = self._slots.setdefault(slot_name, {})
        if var in slots:
            return slots[var]
        dtype = var.dtype.base_dtype
        if _is_resource(var):
            base = var.name[:-2] if var.name.endswith(":0") else var.name
            value = np.full(var.shape.as_list(), fill, dtype=dtype.as_numpy_dtype)
            slot = ResourceVariable(value, trainable=False, name=_unique_eager_slot_name(f"{base}/{op_name}"))
        else:
            graph = var.graph

            def initial_value() -> Any:
                if var.shape.is_fully_defined():
                    return array_ops._filled(var.shape.as_list(), fill, dtype, const_name)
                return array_ops.fill(array_ops.shape(var.initial_value), convert_to_tensor(fill, dtype=dtype))

            with graph.as_default(), graph.control_dependencies(None):
                name = _slot_name(f"{var.op.name}/{op_name}")
                with graph.name_scope(""), colocated_with(var):
                    slot = RefVariable(initial_value, trainable=False, name=name, dtype=dtype,
                                       validate_shape=var.shape.is_fully_defined())
        slots[var] = slot
        restore = self._deferred_slot_restorations.pop((id(var), slot_name), None) if _is_resource(var) else None
        if restore is not None:
            restore(slot)
        return slot

    def _create_non_slot_variable(self, initial_value: Any, name: str, colocate_with: Any) -> Any:
        """A variable the optimizer keeps once per graph (not per variable), e.g. Adam's beta1_power."""
        eager = context.executing_eagerly()
        graph = None if eager else colocate_with.graph
        key = (name, graph)
        variable = self._non_slot_dict.get(key)
        if variable is None:
            if eager:
                variable = ResourceVariable(initial_value, trainable=False, name=name)
            else:
                # in the name scope apply_gradients was called in, next to the first variable, as TensorFlow
                with graph.as_default(), graph.control_dependencies(None), colocated_with(colocate_with):
                    variable = RefVariable(initial_value, trainable=False, name=name)
            self._non_slot_dict[key] = variable
            restore = self._deferred_dependencies.pop(name, None) if eager else None
            if restore is not None:
                restore(variable)
        return variable

    def _get_non_slot_variable(self, name: str, graph: Any = None) -> Any:
        return self._non_slot_dict.get((name, graph))

    # --- what tf.train.Checkpoint sees (eager): non-slot variables as named edges, slots per variable ----
    def _checkpoint_dependencies(self) -> list:
        """[(name, variable)] of the eager non-slot variables, by name (TensorFlow's order)."""
        return sorted(((name, v) for (name, graph), v in self._non_slot_dict.items() if graph is None),
                      key=lambda item: item[0])

    def _defer_restoration(self, name: str, restore: Callable) -> None:
        self._deferred_dependencies[name] = restore

    def _defer_slot_restoration(self, var: Any, slot_name: str, restore: Callable) -> None:
        self._deferred_slot_restorations[(id(var), slot_name)] = restore


# TensorFlow names an eager slot in a variable scope whose default name it makes unique across the program
# ("w/Adam", then "w/Adam_1" for Adam's second slot); checkpoints record these names.
_EAGER_SLOT_NAMES: dict[str, int] = {}


def _unique_eager_slot_name(name: str) -> str:
    count = _EAGER_SLOT_NAMES.get(name, 0)
    _EAGER_SLOT_NAMES[name] = count + 1
    return name if count == 0 else f"{name}_{count}"


def colocated_with(variable: Any) -> Any:
    """TensorFlow's `colocate_with(variable)` for a TF1 variable in a graph (the `_class` attr GraphDefs carry:
    save/restore nodes and TensorFlow's placer read it); nothing for resource variables and function graphs."""
    graph = getattr(variable, "graph", None)
    if _is_resource(variable) or graph is None or graph.building_function or not hasattr(variable, "op"):
        return contextlib.nullcontext()
    return graph.colocate_with(variable.op)


def _slot_name(prefix: str) -> str:
    """TensorFlow's slot name: the variable scope current at apply_gradients time + "<variable>/<optimizer name>",
    made unique among the variable scopes opened there ("lin/v/Adam", then "lin/v/Adam_1" for a second slot)."""
    with variable_scope(None, default_name=prefix, auxiliary_name_scope=False) as scope:
        return scope.name


def dense_rows(grad: IndexedSlices, var: Any) -> Any:
    """The dense gradient for `var` holding the rows of `grad` (zeros elsewhere)."""
    rows = var.shape.as_list()[0] if var.shape.rank and var.shape.as_list()[0] is not None else \
        array_ops.shape(var)[0]
    return array_ops.unsorted_segment_sum(grad.values, grad.indices, rows)


# the position of `grad` in each family's inputs after the state variables (indices follow it)
_GRAD_POSITION = {"Momentum": 1, "RMSProp": 4, "CenteredRMSProp": 4, "Adagrad": 1, "Adadelta": 3}


def _insert_indices(family: str, rest: list, indices: Any) -> list:
    at = _GRAD_POSITION[family] + 1
    return list(rest[:at]) + [indices] + list(rest[at:])


def _flatten(values: Any) -> list:
    if isinstance(values, (list, tuple)):
        return [leaf for v in values for leaf in _flatten(v)]
    if isinstance(values, dict):
        return [leaf for k in sorted(values) for leaf in _flatten(values[k])]
    return [values]


__all__ = ["Optimizer", "colocated_with", "dense_rows"]
