"""The checkpoint names TF 1's premade Estimators give their optimizer variables.

`tf.compat.v1.estimator.LinearClassifier` / `LinearRegressor` and `DNNClassifier` / `DNNRegressor` create their
model variables with a partitioner, so each is a one-part PartitionedVariable: the variable op is
`linear/linear_model/x/weights/part_0`, saved as `linear/linear_model/x/weights`. TF's optimizer makes each slot
in the model's variable scope (`linear/` or `dnn/`), so the slot variable is
`linear/linear/linear_model/x/weights/part_0/Ftrl`; TF's slot_creator then cuts the slot's own name out of that
by the *length* of the primary's op name and saves the slot as `<saved primary name>/<the rest>`.
With `linear/` the cut lands on `part_0/Ftrl` (`linear/` and `part_0/` have 7 letters each); with `dnn/` it
lands three letters later: `dnn/hiddenlayer_0/kernel/t_0/Adagrad`. TF1's non-slot variables (Adam's
`beta1_power`) take the name scope of the head's `minimize` call: `linear/head/beta1_power`.

webflow makes no partitioned variables: its model variable is `linear/linear_model/x/weights` already. So
only the checkpoint names change: the premade model_fn records TF's name of every optimizer variable for its
graph (kept beside the graph, not in a collection a `.meta` would have to hold), and the Estimator's Saver saves
and restores under those names, so either library restores the other's checkpoints.
"""

from __future__ import annotations

import weakref
from typing import Any

_RECORDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # graph -> {id(variable): checkpoint name}
_PART = "/part_0"


def partitioned_slot_key(primary: str, slot: str, scope: str) -> str:
    """TF's checkpoint name of slot `slot` ("Ftrl_1") of the one-part partitioned variable saved as `primary`,
    made by a TF1 optimizer inside variable scope `scope`: slot_creator's
    `full_name + "/" + slot_variable_name[len(primary_op_name + "/"):]`."""
    slot_variable_name = f"{scope}/{primary}{_PART}/{slot}"
    return primary + "/" + slot_variable_name[len(primary + _PART) + 1:]


def record_tf1_names(optimizer: Any, primaries: list, scope: str) -> None:
    """After `optimizer` (a tf.compat.v1.train optimizer) built its update of `primaries` in a premade model of
    variable scope `scope`: remember TF's checkpoint name of each of its slot and non-slot variables."""
    from webflow.framework.context import get_default_graph
    from webflow.train.optimizer import Optimizer
    if not isinstance(optimizer, Optimizer):   # a Keras optimizer: its `training/...` names are TF's already
        return
    names = _RECORDED.setdefault(get_default_graph(), {})
    slots = set()
    for primary in primaries:
        for slot_name in optimizer.get_slot_names():
            slot = optimizer.get_slot(primary, slot_name)
            if slot is not None:
                slots.add(id(slot))
                own = slot.op.name.rsplit("/", 1)[-1]   # the optimizer's slot op name: "Ftrl", "Ftrl_1", "Adam_1"
                names[id(slot)] = partitioned_slot_key(primary.op.name, own, scope)
    for variable in optimizer.variables():
        if id(variable) not in slots:
            names[id(variable)] = f"{scope}/head/{variable.op.name.rsplit('/', 1)[-1]}"


def with_tf1_names(train_op_fn: Any, optimizer: Any, primaries: Any, scope: str) -> Any:
    """`train_op_fn` that also records TF1's checkpoint names of the optimizer's variables."""
    def recorded(loss: Any) -> Any:
        op = train_op_fn(loss)
        record_tf1_names(optimizer, primaries(), scope)
        return op
    return recorded


def saver_var_list(graph: Any) -> dict | None:
    """The Saver's {checkpoint name: variable} for `graph`'s global variables when a premade model recorded
    TF's names; None (the Saver's default, op names) otherwise."""
    names = _RECORDED.get(graph)
    if not names:
        return None
    with graph.as_default():
        from webflow.ops.variables import global_variables
        variables = global_variables()
    return {names.get(id(v), v.op.name): v for v in variables}
