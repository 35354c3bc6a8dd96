"""The TF1 API: `import webflow.compat.v1 as tf` runs classic TensorFlow 1.x programs.

Call `tf.disable_v2_behavior()` (as TF1 programs ported to TF2 do) for graph mode, `?` in printed
shapes and identity `==` on tensors; the same names then build graphs run by `tf.Session`.
"""

# ruff: noqa: F401, F403
from webflow._api_common import *
from webflow._api_common import bool, range, tuple
from webflow.autodiff.gradients import gradients
from webflow.framework import context as _context
from webflow.framework import tensor as _tensor
from webflow.framework import tensor_shape as _tensor_shape
from webflow.framework.context import executing_eagerly
from webflow.framework.default_session import get_default_session
from webflow.framework.scopes import (
    add_to_collection, add_to_collections, colocate_with, control_dependencies, device, get_all_collection_keys,
    get_collection, get_collection_ref, get_default_graph, reset_default_graph,
)
from webflow.framework.scopes import name_scope_v1 as name_scope
from webflow.ops.constants import placeholder, placeholder_with_default
from webflow.ops.state_ops import (
    all_variables, assign, assign_add, assign_sub, global_variables, global_variables_initializer,
    initialize_all_variables, is_variable_initialized, local_variables, local_variables_initializer,
    model_variables, moving_average_variables, trainable_variables, variables_initializer,
)
from webflow.runtime.config import ConfigProto, GPUOptions, RunMetadata, RunOptions
from webflow.runtime.session import InteractiveSession, Session

# --- TF1 spellings of ops whose TF2 names differ (each family adds its own) ---
from webflow.ops.math_ops import to_float, to_int32, to_int64


def disable_eager_execution() -> None:
    _context.disable_eager_execution()


def enable_eager_execution(config: object = None, device_policy: object = None, execution_mode: object = None) -> None:
    _context.enable_eager_execution()


def disable_v2_behavior() -> None:
    """Graph mode, TF1 shapes (`?`, Dimension), identity `==` on tensors, as TensorFlow's switch does."""
    _context.disable_eager_execution()
    _tensor_shape.disable_v2_tensorshape()
    _tensor.disable_tensor_equality()


def enable_v2_behavior() -> None:
    _context.enable_eager_execution()
    _tensor_shape.enable_v2_tensorshape()
    _tensor.enable_tensor_equality()


def disable_v2_tensorshape() -> None:
    _tensor_shape.disable_v2_tensorshape()


def enable_v2_tensorshape() -> None:
    _tensor_shape.enable_v2_tensorshape()


def disable_tensor_equality() -> None:
    _tensor.disable_tensor_equality()


def enable_tensor_equality() -> None:
    _tensor.enable_tensor_equality()


