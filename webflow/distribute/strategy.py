"""`tf.distribute` strategies on webflow's one CPU device, so that code written for them runs unchanged.

    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():                     # variables, models, optimizers made here
        model = make_model()
    per_replica = strategy.run(step, args=(batch,))
    total = strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

There is exactly one replica (`num_replicas_in_sync == 1`): `run` calls the function once, `reduce` over
replicas returns the one value (reduced along `axis` when given), a distributed dataset is the dataset itself.
webflow does not spread work over devices or machines: multi-GPU and multi-machine training
(MultiWorkerMirroredStrategy, ParameterServerStrategy, TPUs) are real TensorFlow's job.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Callable, Iterator
from typing import Any

from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum
from webflow.platform import tf_logging

_CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> ReduceOp:
        return ReduceOp.MEAN if "MEAN" in str(aggregation).upper() else ReduceOp.SUM


class InputContext:
    """What `distribute_datasets_from_function`'s dataset_fn learns: one pipeline, one replica."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


class ReplicaContext:
    def __init__(self, strategy: Strategy):
        self.strategy = strategy
        self.replica_id_in_sync_group = 0
        self.num_replicas_in_sync = 1

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        return value   # the sum or mean over one replica


class Strategy:
    """The one-replica strategy; the subclasses differ only in their names and the devices they report."""

    def __init__(self, devices: Any = None):
        self._devices = tuple(devices) if devices else (_CPU,)
        self.extended = self

    @property
    def num_replicas_in_sync(self) -> int:
        return 1

    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        """Makes this the strategy `get_strategy()` returns; variables made inside are ordinary variables."""
        _STACK.append(self)
        try:
            yield self
        finally:
            _STACK.pop()

    def run(self, fn: Callable, args: tuple = (), kwargs: dict | None = None, options: Any = None) -> Any:
        _REPLICA.append(ReplicaContext(self))
        try:
            return fn(*args, **(kwargs or {}))
        finally:
            _REPLICA.pop()

    def reduce(self, reduce_op: Any, value: Any, axis: Any = None) -> Any:
        """Over the replicas (one: the value itself), then along `axis` if given, as TensorFlow's reduce does."""
        op = ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp) else str(reduce_op).upper())
        if axis is None:
            return value
        reducer = reduce_sum if op is ReduceOp.SUM else reduce_mean
        return pack_sequence_as(value, [reducer(leaf, axis=axis) for leaf in flatten(value)])

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        return dataset

    def distribute_datasets_from_function(self, dataset_fn: Callable, options: Any = None) -> Any:
        return dataset_fn(InputContext())

    experimental_distribute_datasets_from_function = distribute_datasets_from_function

    def experimental_local_results(self, value: Any) -> tuple:
        return (value,)

    def gather(self, value: Any, axis: int) -> Any:
        return value

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object>"


class OneDeviceStrategy(Strategy):
    """`tf.distribute.OneDeviceStrategy(device)`: everything on `device` (webflow has only the CPU)."""

    def __init__(self, device: str):
        super().__init__([device])


class MirroredStrategy(Strategy):
    """`tf.distribute.MirroredStrategy(devices=None)`: one replica per device; webflow has one device, the CPU.

    Multi-GPU and multi-machine training are real TensorFlow's job: here the code runs on one CPU replica."""

    def __init__(self, devices: Any = None, cross_device_ops: Any = None):
        super().__init__(devices)
        tf_logging.info("Using MirroredStrategy with devices %r", self._devices)


_DEFAULT = Strategy()
_STACK: list = []
_REPLICA: list = []


def get_strategy() -> Strategy:
    """The strategy of the innermost `scope()`, else the default one-replica strategy."""
    return _STACK[-1] if _STACK else _DEFAULT


def has_strategy() -> bool:
    return bool(_STACK)


def in_cross_replica_context() -> bool:
    return bool(_STACK) and not _REPLICA


def get_replica_context() -> ReplicaContext | None:
    """Inside `strategy.run`: its replica context; in a scope (cross-replica): None; else the default one."""
    if _REPLICA:
        return _REPLICA[-1]
    return None if _STACK else ReplicaContext(_DEFAULT)
