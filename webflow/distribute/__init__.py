"""`tf.distribute` on the one CPU: see strategy.py (and README.md)."""

from webflow.distribute.strategy import (  # noqa: F401
    InputContext,
    MirroredStrategy,
    OneDeviceStrategy,
    ReduceOp,
    ReplicaContext,
    Strategy,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
