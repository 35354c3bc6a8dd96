"""`wf.keras` (`tf.keras`): tf_keras's API on webflow's ops - layers, Sequential / functional / subclassed
models, `compile` / `fit` / `evaluate` / `predict`, optimizers, losses, metrics, callbacks, weights in TensorFlow's
checkpoint format."""

from webflow.keras import (
    activations,
    backend,
    callbacks,
    constraints,
    datasets,
    experimental,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    optimizers,
    regularizers,
    tfjs_export,
    utils,
)
from webflow.keras.input_layer import Input
from webflow.keras.model import Model
from webflow.keras.sequential import Sequential

__all__ = ["activations", "backend", "callbacks", "initializers", "layers", "losses", "metrics", "models",
           "optimizers", "regularizers", "constraints",
           "datasets", "utils", "Input", "Model", "Sequential", "mixed_precision",
           "tfjs_export", "experimental"]
