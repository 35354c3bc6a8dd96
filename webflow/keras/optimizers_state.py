"""An optimizer's state as tf_keras lists it (`optimizer.variables`): what a `.keras` archive stores under
`optimizer/vars/0, 1, ...`.

    [iterations] + for each group of the optimizer's `build`: for each trainable variable: its slots of that group

tf_keras's `build` makes the slots in loops over the model's trainable variables, one loop per group: Adam makes
m and v per variable in one loop, then (amsgrad) every vhat in a second one; RMSprop makes every velocity, then
every momentum (momentum > 0), then every average_gradient (centered). SGD always makes "m", even without momentum.
An optimizer that has not stepped yet is saved as [iterations] alone, as tf_keras saves an unbuilt optimizer.
"""

from __future__ import annotations

from typing import Any


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
    state = [optimizer.iterations] if len(values) == 1 else \
        [optimizer.iterations] + [optimizer.slot(variable, slot, initial) for group in slot_groups(optimizer)
                                  for variable in variables for slot, initial in group]
    if len(state) != len(values):
        raise ValueError(f"The optimizer {optimizer.name} expects {len(state)} variables for this model, but the "
                         f"archive holds {len(values)}.")
    for variable, value in zip(state, values):
        variable.assign(value)


__all__ = ["slot_groups", "optimizer_state", "set_optimizer_state"]
