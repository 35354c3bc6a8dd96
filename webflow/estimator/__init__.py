"""`tf.estimator` (TensorFlow <= 2.15): Estimator, EstimatorSpec, ModeKeys, RunConfig, hooks, inputs."""

# ruff: noqa: F401
from types import SimpleNamespace as _Namespace

from webflow.estimator.estimator import Estimator
from webflow.estimator.hooks import (
    CheckpointSaverHook,
    LoggingTensorHook,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    StopAtStepHook,
    SummarySaverHook,
)
from webflow.estimator.inputs import numpy_input_fn
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.premade import LinearRegressor
from webflow.estimator.run_config import RunConfig
from webflow.estimator.spec import EstimatorSpec
from webflow.estimator.training import NanLossDuringTrainingError

inputs = _Namespace(numpy_input_fn=numpy_input_fn)  # tf.compat.v1.estimator.inputs
