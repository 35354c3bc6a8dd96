"""`tf.train.AdamOptimizer` (Kingma & Ba), with TensorFlow's epsilon placement ("epsilon hat")."""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.init_scope import lifts_to_eager
from webflow.ops.control_flow_ops import group
from webflow.ops.convert import convert_to_tensor
from webflow.train import adam_sparse
from webflow.train.optimizer import Optimizer, colocated_with


class AdamOptimizer(Optimizer):
    """Adam; slots "m" ("Variable/Adam") and "v" ("Variable/Adam_1"), and two variables per graph,
    "beta1_power" and "beta2_power" (beta^t), multiplied by beta after every step."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self) -> tuple:
        graph = None if lifts_to_eager() else context.get_default_graph()   # eager's, also inside a wf.function
        return self._get_non_slot_variable("beta1_power", graph), self._get_non_slot_variable("beta2_power", graph)

    def _create_slots(self, var_list: list) -> None:
        first_var = min(var_list, key=lambda v: v.name)
        self._create_non_slot_variable(self._beta1, "beta1_power", first_var)
        self._create_non_slot_variable(self._beta2, "beta2_power", first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self) -> None:
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon), name="epsilon")

    def _apply_update(self, grad: Any, var: Any, indices: Any) -> Any:
        beta1_power, beta2_power = self._get_beta_accumulators()
        rest = [self._cast(t, var) for t in (beta1_power, beta2_power, self._lr_t, self._beta1_t, self._beta2_t,
                                             self._epsilon_t)] + [grad]
        return self._run_update("Adam", var, [self.get_slot(var, "m"), self.get_slot(var, "v")], rest)

    def _apply_sparse(self, grad: IndexedSlices, var: Any) -> Any:
        """TensorFlow 1.x's sparse Adam: m and v decay, the rows are scatter-added (adam_sparse.py)."""
        return adam_sparse.apply_sparse_shared(self, grad.values, var, grad.indices,
                                               adam_sparse.ref_scatter_add(self._use_locking))

    def _resource_apply_sparse(self, grad: Any, var: Any, indices: Any) -> Any:
        return adam_sparse.apply_sparse_shared(self, grad, var, indices, adam_sparse.resource_scatter_add)

    def _finish(self, update_ops: list, name_scope: str) -> Any:
        """After the updates: beta1_power *= beta1, beta2_power *= beta2."""
        beta1_power, beta2_power = self._get_beta_accumulators()
        if context.executing_eagerly() or lifts_to_eager():   # in a wf.function, writes run in program order
            beta1_power.assign(beta1_power * self._beta1_t)
            beta2_power.assign(beta2_power * self._beta2_t)
            return None if context.executing_eagerly() else group(*update_ops, name=name_scope)
        graph = context.get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators()
            with colocated_with(beta1_power):   # as TensorFlow builds them: next to beta1_power (its first variable)
                update_beta1 = beta1_power.assign(beta1_power * self._beta1_t, use_locking=self._use_locking)
                update_beta2 = beta2_power.assign(beta2_power * self._beta2_t, use_locking=self._use_locking)
        return group(*update_ops, update_beta1, update_beta2, name=name_scope)
