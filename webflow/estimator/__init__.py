"""`tf.estimator` (TensorFlow <= 2.15, the V2 classes; v1.py is tf.compat.v1.estimator): Estimator, EstimatorSpec,
ModeKeys, RunConfig, hooks, inputs, WarmStartSettings and the premade Linear, DNN, DNNLinearCombined and Baseline
classifiers and regressors."""

# ruff: noqa: F401
from types import SimpleNamespace as _Namespace

from webflow.estimator.baseline import BaselineClassifier, BaselineRegressor
from webflow.estimator.dnn import DNNClassifier, DNNRegressor
from webflow.estimator.dnn_linear_combined import DNNLinearCombinedClassifier, DNNLinearCombinedRegressor
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
from webflow.estimator.premade import LinearClassifier, LinearRegressor
from webflow.estimator.run_config import RunConfig
from webflow.estimator.spec import EstimatorSpec
from webflow.estimator.training import NanLossDuringTrainingError
from webflow.estimator.warm_start import WarmStartSettings

inputs = _Namespace(numpy_input_fn=numpy_input_fn)  # tf.compat.v1.estimator.inputs
