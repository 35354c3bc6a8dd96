"""`tf.train.ExponentialMovingAverage` and `assign_moving_average`.

shadow <- shadow - (1 - decay) * (shadow - value), i.e. decay * shadow + (1 - decay) * value.
With `num_updates`, decay = min(decay, (1 + num_updates) / (10 + num_updates)) so early averages move fast.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import name_scope_v1 as name_scope
from webflow.ops import array_ops, math_ops
from webflow.ops.control_flow_ops import group
from webflow.ops.convert import convert_to_tensor
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.state_ops import RefVariable, VariableTypes, assign_add, assign_sub
from webflow.train import _math


def assign_moving_average(variable: Any, value: Any, decay: Any, zero_debias: bool = True,
                          name: str | None = None) -> Any:
    """variable <- variable - (variable - value) * (1 - decay); with `zero_debias`, the average of a
    zero-initialised `variable` is divided by (1 - decay^t) so early values are not biased toward 0."""
    with name_scope(name, "AssignMovingAvg") as scope:
        one_minus_decay = convert_to_tensor(math_ops.subtract(1.0, decay), name="decay") \
            if hasattr(decay, "dtype") else convert_to_tensor(1.0 - decay, name="decay")
        if one_minus_decay.dtype.base_dtype != variable.dtype.base_dtype:
            one_minus_decay = math_ops.cast(one_minus_decay, variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, one_minus_decay, scope)
        delta = math_ops.multiply(math_ops.subtract(variable, value), one_minus_decay)
        return assign_sub(variable, delta, name=scope or None)


def _zero_debias(unbiased: Any, value: Any, one_minus_decay: Any, scope: str) -> Any:
    """biased <- biased - (biased - value)(1 - decay); t <- t + 1; unbiased <- biased / (1 - decay^t)."""
    graph = context.get_default_graph()
    dtype = unbiased.dtype.base_dtype
    with graph.control_dependencies(None), graph.name_scope(""):
        base = unbiased.op.name + "/" + scope.rstrip("/").split("/")[-1]
        biased = RefVariable(lambda: array_ops.zeros(unbiased.shape.as_list(), dtype, name="zeros"),
                             trainable=False, name=base + "/biased", dtype=dtype)
        local_step = RefVariable(lambda: array_ops.zeros([], dtype, name="zeros"), trainable=False,
                                 name=base + "/local_step", dtype=dtype)
    update_biased = assign_sub(biased, math_ops.multiply(math_ops.subtract(biased, value), one_minus_decay))
    update_step = assign_add(local_step, 1.0)
    decay = math_ops.subtract(1.0, one_minus_decay)
    bias_factor = math_ops.subtract(1.0, _math.pow(decay, update_step))
    delta = math_ops.subtract(unbiased, math_ops.truediv(update_biased, bias_factor))
    return assign_sub(unbiased, delta, name=scope or None)


class ExponentialMovingAverage:
    """Keeps a shadow copy of each variable (or tensor), moved toward it by `apply()`."""

    def __init__(self, decay: Any, num_updates: Any = None, zero_debias: bool = False,
                 name: str = "ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages: dict = {}

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Any = None) -> Any:
        """Creates shadows for new entries of `var_list` (default: all trainable variables) and returns the
        op that updates every shadow."""
        if var_list is None:
            var_list = context.get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES)
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var in self._averages:
                raise ValueError(f"Moving average already computed for: {var.name}")
            self._averages[var] = self._create_shadow(var)
        if context.executing_eagerly():
            return self._update_eagerly(var_list)
        with name_scope(self._name) as scope:
            decay = self._decay_tensor()
            updates = [assign_moving_average(self._averages[var], var, decay,
                                             zero_debias=self._zero_debias and not isinstance(var, VariableTypes))
                       for var in var_list]
            return group(*updates, name=scope)

    def _decay_tensor(self) -> Any:
        decay = convert_to_tensor(self._decay, name="decay")
        if self._num_updates is not None:
            num_updates = math_ops.cast(self._num_updates, dtypes.float32, name="num_updates")
            decay = _math.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
        return decay

    def _create_shadow(self, var: Any) -> Any:
        """Shadow of a variable: starts at its initial value; of a tensor: starts at zero. Not trainable."""
        if context.executing_eagerly():
            return ResourceVariable(var.read_value() if isinstance(var, ResourceVariable) else var,
                                    trainable=False, name=self.average_name(var))
        graph = context.get_default_graph()
        with graph.control_dependencies(None), graph.name_scope(""):
            if isinstance(var, VariableTypes):
                shadow = RefVariable(var.initialized_value(), trainable=False, name=self.average_name(var))
                graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            else:
                shadow = RefVariable(lambda: array_ops.zeros(var.shape.as_list(), var.dtype.base_dtype,
                                                             name="zeros"),
                                     trainable=False, name=self.average_name(var), dtype=var.dtype.base_dtype)
        return shadow

    def _update_eagerly(self, var_list: list) -> None:
        decay = float(self._decay)
        if self._num_updates is not None:
            n = float(self._num_updates)
            decay = min(decay, (1.0 + n) / (10.0 + n))
        for var in var_list:
            shadow = self._averages[var]
            shadow.assign_sub((shadow.read_value() - convert_to_tensor(var)) * (1.0 - decay))
        return None

    def average(self, var: Any) -> Any:
        """The shadow variable of `var`, or None."""
        return self._averages.get(var)

    def average_name(self, var: Any) -> str:
        """"<var op name>/<name>": the shadow's name (also its checkpoint name)."""
        if var in self._averages:
            return self._averages[var].op.name if hasattr(self._averages[var], "op") else self._averages[var].name
        base = var.op.name if hasattr(var, "op") else var.name.split(":")[0]
        return base + "/" + self._name

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict:
        """{checkpoint name: variable}: averaged variables restore from their shadows' names."""
        graph = context.get_default_graph()
        if moving_avg_variables is None:
            moving_avg_variables = graph.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES) + \
                graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        restore = {}
        for v in moving_avg_variables:
            restore[self.average_name(v)] = v
        for v in graph.get_collection(GraphKeys.GLOBAL_VARIABLES):
            if v not in moving_avg_variables and v.op.name not in restore:
                restore[v.op.name] = v
        return restore


__all__ = ["ExponentialMovingAverage", "assign_moving_average"]
