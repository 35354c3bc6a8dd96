"""An optimizer's state as tf_keras lists it (`optimizer.variables`): what a `.keras` archive stores under
`optimizer/vars/0, 1, ...`.

    [iterations] + for each group of the optimizer's `build`: for each trainable variable: its slots of that group

tf_keras's `build` makes the slots in loops over the model's trainable variables, one loop per group: Adam makes
m and v per variable in one loop, then (amsgrad) every vhat in a second one; RMSprop makes every velocity, then
every momentum (momentum > 0), then every average_gradient (centered). SGD always makes "m", even without momentum.
An optimizer that has not stepped yet is saved as [iterations] alone, as tf_keras saves an unbuilt optimizer.

The same list is the optimizer's part of a TensorFlow checkpoint (`save_weights`, `tf.train.Checkpoint`), as
tf_keras's object graph holds it: the optimizer's edges `_variables` (that list: `optimizer/_variables/1` is the
first slot), `_iterations` and `_learning_rate`. `build` makes the list at the first `apply_gradients`, on the
variables it is given (tf_keras's `build(var_list)`); a checkpoint read before that leaves its slots waiting on
the `_variables` node, restored by position when `build` makes them. So after a layer's `trainable` flip the
positions no longer name the same variables, as in tf_keras: a slot whose saved shape differs keeps its zeros,
one of the same shape takes another variable's state, and the left-over values make `assert_consumed` fail.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.init_scope import init_scope
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.train.trackable import DEFERRED, AutoTrackable


def slot_groups(optimizer: Any) -> list:
    """The optimizer's slot groups, in tf_keras's build order: [[slot name, initial value], ...] per loop."""
    name = type(optimizer).__name__
    if name in ("Adam", "AdamW"):
        return [[("m", 0.0), ("v", 0.0)]] + ([[("vhat", 0.0)]] if optimizer.amsgrad else [])
    if name == "RMSprop":
        groups = [[("velocity", 0.0)]]
        if optimizer.momentum > 0:
            groups.append([("momentum", 0.0)])
        if optimizer.centered:
            groups.append([("average_gradient", 0.0)])
        return groups
    simple = {"SGD": [("m", 0.0)], "Adadelta": [("accumulated_grad", 0.0), ("accumulated_delta_var", 0.0)],
              "Adamax": [("m", 0.0), ("u", 0.0)], "Nadam": [("m", 0.0), ("v", 0.0)],
              "Adagrad": [("accumulator", getattr(optimizer, "initial_accumulator_value", 0.0))],
              "Ftrl": [("accumulator", getattr(optimizer, "initial_accumulator_value", 0.0)), ("linear", 0.0)]}
    if name not in simple:
        raise ValueError(f"webflow does not know how tf_keras lists the state of optimizer {name}")
    return [simple[name]]


def optimizer_state(optimizer: Any, variables: list) -> list:
    """[iterations, slots ...] as tf_keras's `optimizer.variables` (slots not made yet are made, as `build` would);
    a LossScaleOptimizer's are its inner optimizer's (its loss scale is not saved, as in tf_keras)."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)
    if int(optimizer.iterations.numpy()) == 0 and not optimizer._slots:
        return [optimizer.iterations]
    return [optimizer.iterations] + [optimizer.slot(variable, slot, initial)
                                     for group in slot_groups(optimizer)
                                     for variable in variables for slot, initial in group]


def set_optimizer_state(optimizer: Any, variables: list, values: list) -> None:
    """Assigns `values` (as `optimizer_state` lists them) to the optimizer, making its slots first."""
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)
    if len(values) > 1:
        build(optimizer, variables)
    state = [optimizer.iterations] if len(values) == 1 else _make_slots(optimizer)
    if len(state) != len(values):
        raise ValueError(f"The optimizer {optimizer.name} expects {len(state)} variables for this model, but the "
                         f"archive holds {len(values)}.")
    for variable, value in zip(state, values):
        variable.assign(value)


def _variables_node(optimizer: Any) -> AutoTrackable:
    """The optimizer's `_variables` list as a checkpoint node: edge "0" its iterations, "1"... its slots."""
    node = optimizer.__dict__.get("_checkpoint_variables")
    if node is None:
        node = AutoTrackable()
        node._track("0", optimizer.iterations)
        optimizer.__dict__["_checkpoint_variables"] = node
    return node


def build(optimizer: Any, variables: list) -> list:
    """Records the variables of the optimizer's first `apply_gradients` (tf_keras's `build(var_list)`): its
    `_variables` list follows them. The slots are made (and tracked as edges "1", "2" ...) when a checkpoint
    needs them: now if a checkpoint's values wait for them, else when one is written (the update rules make the
    slots they use themselves: a slot made here, inside a traced first step, would cost a second trace).
    Returns [iterations, slots ...] as far as made."""
    if "_checkpoint_build" not in optimizer.__dict__:
        optimizer.__dict__["_checkpoint_build"] = list(variables)
        if _variables_node(optimizer).__dict__.get(DEFERRED):
            _make_slots(optimizer)
    return [value for _, value in _variables_node(optimizer)._dependencies()]


def _make_slots(optimizer: Any) -> list:
    """Makes the slots of the recorded variables in tf_keras's build order and tracks them on `_variables`
    (running the restorations waiting there). An optimizer webflow does not know keeps its slots unlisted."""
    node = _variables_node(optimizer)
    try:
        groups = slot_groups(optimizer)
    except ValueError:   # a user's own optimizer class: no tf_keras order to follow
        groups = []
    variables = optimizer.__dict__.get("_checkpoint_build", [])
    with init_scope():   # inside a traced first step: made (and restored) eagerly, as tf_keras's build
        slots = [optimizer.slot(variable, slot, initial)
                 for group in groups for variable in variables for slot, initial in group]
        tracked = {name for name, _ in node._dependencies()}
        for position, slot in enumerate(slots, start=1):
            if str(position) not in tracked:
                _track_slot(node, str(position), slot)
    return [value for _, value in node._dependencies()]


def _track_slot(node: AutoTrackable, position: str, slot: Any) -> None:
    """Tracks `slot`; a saved value of another shape is left unassigned (tf_keras restores slots by position
    and skips one that no longer fits, silently)."""
    try:
        node._track(position, slot)
    except ValueError as error:
        if "Received incompatible tensor with shape" not in str(error):
            raise


def checkpoint_children(optimizer: Any) -> list:
    """The optimizer's edges in a checkpoint, in tf_keras's order: `_variables`, `_iterations`, `_learning_rate`
    (a variable; a schedule is no checkpoint value)."""
    if "_checkpoint_build" in optimizer.__dict__:
        _make_slots(optimizer)   # all of them, the unused ones too (SGD's "m" without momentum), as tf_keras
    edges = [("_variables", _variables_node(optimizer)), ("_iterations", optimizer.iterations)]
    if getattr(optimizer, "_lr_variable", None) is not None:
        edges.append(("_learning_rate", optimizer._lr_variable))
    elif getattr(optimizer, "_schedule", None) is not None:
        edges.append(("_current_learning_rate", _current_learning_rate(optimizer)))
    return edges


def _current_learning_rate(optimizer: Any) -> Any:
    """tf_keras's `_current_learning_rate` of an optimizer with a schedule: the rate of its last step,
    schedule(iterations - 1) (schedule(0) before any), kept for the record: a restore recomputes it."""
    step = max(int(optimizer.iterations.numpy()) - 1, 0)
    value = optimizer._schedule(step)
    value = float(value.numpy() if hasattr(value, "numpy") else value)
    variable = optimizer.__dict__.get("_checkpoint_current_lr")
    if variable is None:
        variable = ResourceVariable(value, dtype=dtypes.float32, trainable=False, name="current_learning_rate")
        optimizer.__dict__["_checkpoint_current_lr"] = variable
    else:
        variable.assign(value)
    return variable


def loss_scale_children(optimizer: Any) -> list:
    """A LossScaleOptimizer's edges: its inner optimizer's, then `loss_scale` (`current_loss_scale`,
    `good_steps`), as tf_keras writes them (`optimizer/loss_scale/good_steps`)."""
    node = optimizer.__dict__.get("_checkpoint_loss_scale")
    if node is None:
        node = AutoTrackable()
        node._track("current_loss_scale", optimizer._scale)
        node._track("good_steps", optimizer._counter)
        optimizer.__dict__["_checkpoint_loss_scale"] = node
    return checkpoint_children(optimizer.inner_optimizer) + [("loss_scale", node)]


__all__ = ["slot_groups", "optimizer_state", "set_optimizer_state", "build", "checkpoint_children",
           "loss_scale_children"]
