"""The session-run hooks, which live in train/ (`tf.train.*Hook`) and are re-exported as `tf.estimator.*Hook`."""

# ruff: noqa: F401
from webflow.train.basic_session_run_hooks import (
    CheckpointSaverHook,
    LoggingTensorHook,
    StopAtStepHook,
    SummarySaverHook,
)
from webflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues
