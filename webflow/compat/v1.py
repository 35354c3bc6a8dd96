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
from webflow.ops.script_ops import py_func  # TF1's tf.py_func (PyFunc / PyFuncStateless)
from webflow.ops.numerics_ops import check_numerics  # TF1's tf.check_numerics (CheckNumerics)
from webflow.ops.state_ops import assign, assign_add, assign_sub, is_variable_initialized
from webflow.ops.scatter_ops import scatter_add, scatter_sub, scatter_update  # TF1's tf.scatter_* (ScatterAdd ...)
from webflow.ops.variables import (
    all_variables, global_variables, global_variables_initializer, initialize_all_variables, local_variables,
    local_variables_initializer, model_variables, moving_average_variables, trainable_variables, variables_initializer,
)
from webflow.runtime.config import ConfigProto, GPUOptions, RunMetadata, RunOptions
from webflow.runtime.session import InteractiveSession, Session

# --- variable scopes and initializers (ops/variable_scope.py, ops/init_ops.py) ---
from webflow.ops.variable_scope import (
    AUTO_REUSE, VariableScope, get_local_variable, get_variable, get_variable_scope, no_regularizer,
    variable_op_scope, variable_scope,
)
from webflow.ops.init_ops import (
    constant_initializer, glorot_normal_initializer, glorot_uniform_initializer, ones_initializer,
    orthogonal_initializer, random_normal_initializer, random_uniform_initializer, truncated_normal_initializer,
    uniform_unit_scaling_initializer, variance_scaling_initializer, zeros_initializer,
)
from webflow.ops.init_ops import initializers_namespace_v1 as _initializers_namespace_v1

initializers = _initializers_namespace_v1()

# --- nn (nn/v1.py): TF1's tf.nn ---
from webflow.nn import v1 as nn

# --- layers (layers/): TF1's tf.layers ---
from webflow import layers

# --- training (train/, losses/, compat/contrib.py) ---
from webflow import losses
from webflow.train import v1 as train
from webflow.compat import contrib

# --- metrics (metrics/): TF1's tf.metrics ---
from webflow import metrics

# --- estimator (estimator/, feature_column/): tf.estimator and tf.feature_column of TensorFlow <= 2.15 ---
from webflow import feature_column
from webflow.estimator import v1 as estimator  # the V1 premade classes (SUM loss, TF1 optimizers)

# --- data (data/v1.py): TF1's tf.data (make_one_shot_iterator, make_initializable_iterator, Iterator ...) ---
from webflow.data import v1 as data

# --- io (io/): TF1's tf.io and tf.python_io (TFRecord files; loads no protobuf) ---
from webflow.io import python_io, v1 as io
from webflow.io import gfile_v1 as gfile  # tf.gfile (TF1 names)
# queues and readers (ops/queues.py, ops/io_ops.py): tf.FIFOQueue ..., tf.TFRecordReader ..., tf.queue
from webflow import queue
from webflow.ops.counter_ops import count_up_to
from webflow.ops.io_ops import (
    FixedLengthRecordReader, IdentityReader, ReaderBase, TextLineReader, TFRecordReader, WholeFileReader,
    matching_files,
)
from webflow.ops.queues import FIFOQueue, PaddingFIFOQueue, QueueBase, RandomShuffleQueue
# image (compat/v1_image.py): TF1's tf.image (resize_images: legacy corners), tf.random_crop
from webflow.compat import v1_image as image
from webflow.ops.image_ops import random_crop
# GraphDefs (io/): tf.import_graph_def, tf.graph_util, tensor protos; tf.GraphDef etc. load protobuf on first use
from webflow.io import graph_util_v1 as graph_util
from webflow.io.graph_def_import import import_graph_def
from webflow.io.tensor_proto import make_ndarray, make_tensor_proto
from webflow.io.graph_def import message_class as _message_class
# parsing (ops/parsing_ops.py, decode_ops.py, io/file_ops.py): TF1's top-level names for Examples, CSV, files
from webflow.io.v1 import (
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, decode_csv, decode_raw, parse_example,
    parse_single_example, parse_single_sequence_example, read_file, write_file,
)
# sparse (sparse.py, ops/sparse_ops.py): tf.sparse and TF1's sparse_tensor_to_dense, sparse_to_dense, sparse_reorder
from webflow import sparse
from webflow.ops.sparse_ops import sparse_reorder, sparse_tensor_to_dense, sparse_to_dense


def __getattr__(name: str) -> object:  # tf.GraphDef, tf.NodeDef, tf.AttrValue, tf.MetaGraphDef
    return _message_class(name, __name__)


# --- summary (summary/, ops/summary_ops.py): TF1's tf.summary (summary ops, FileWriter; loads no protobuf) ---
from webflow.summary import v1 as summary
# audio (audio.py): tf.audio (encode_wav, decode_wav)
from webflow import audio

# --- saved_model (saved_model/): TF1's SavedModel builder, simple_save, loader (loads no protobuf) ---
from webflow.saved_model import v1 as saved_model

# --- platform/ and distribute/: tf.app.run, tf.flags (absl, loaded on first use), tf.logging, tf.distribute ---
from webflow import distribute
from webflow.platform import app, flags
from webflow.platform import tf_logging as logging
from webflow.platform.tf_logging import get_logger

# --- TF1 spellings of ops whose TF2 names differ (each family adds its own) ---
# array (ops/manip_ops.py, ops/pad_ops.py, ops/gather_ops.py): TF1 argument orders
from webflow.ops.gather_ops import boolean_mask, gather, gather_nd
from webflow.ops.manip_ops import expand_dims, squeeze, transpose
from webflow.ops.pad_ops import pad
from webflow.ops.space_batch_ops import batch_to_space, batch_to_space_nd, space_to_batch
from webflow.ops.space_batch_ops import depth_to_space, space_to_depth
from webflow.ops.math_ops import to_float, to_int32, to_int64
# math (ops/*math_ops.py, logic_ops.py, reduction_ops.py): TF1-only names and TF1 signatures
from webflow.compat import v1_math as math
from webflow.ops.binary_math_ops import div, div_no_nan, floordiv, floormod, mod, squared_difference
from webflow.ops.unary_math_ops import ceil, is_finite, is_inf, is_nan, log, log1p, reciprocal, rsqrt
from webflow.ops.logic_ops import logical_xor, where_v1 as where, where_v2
from webflow.ops.reduction_ops import (
    arg_max, arg_min, argmax_v1 as argmax, argmin_v1 as argmin, count_nonzero_v1 as count_nonzero, cumprod,
    reduce_all_v1 as reduce_all, reduce_any_v1 as reduce_any, reduce_logsumexp_v1 as reduce_logsumexp,
    reduce_max_v1 as reduce_max, reduce_min_v1 as reduce_min, reduce_prod_v1 as reduce_prod,
)
# lookup tables (ops/lookup_tables.py): tf.lookup and TF1's tables_initializer
from webflow import lookup, ragged
from webflow.ops.lookup_tables import tables_initializer
# strings (ops/string_ops.py, ops/string_convert_ops.py): TF1's top-level string ops and its tf.strings namespace
from webflow.compat import v1_strings as strings
from webflow.ops.string_convert_ops import (
    as_string, string_to_hash_bucket, string_to_number, to_hash_bucket_fast as string_to_hash_bucket_fast,
    to_hash_bucket_strong as string_to_hash_bucket_strong,
)
from webflow.ops.string_ops import reduce_join_v1 as reduce_join, regex_replace, string_join, string_split
from webflow.ops.string_text_ops import strip as string_strip, substr_v1 as substr
# control flow (ops/control_flow_ops.py, ops/while_loop.py): TF1's cond and while_loop unpack one-element lists
from webflow.ops.control_flow_ops import cond
from webflow.ops.while_loop import while_loop
# random (ops/random_ops.py): TF1's top-level random ops, seeds and its tf.random namespace
from webflow.compat import v1_random as random
from webflow.framework.random_seed import get_seed, set_random_seed
from webflow.ops.random_ops import multinomial, random_normal, random_shuffle, random_uniform, truncated_normal


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


# --- debugging (compat/v1_debugging.py; ops/assert_ops.py, check_ops.py, rank_checks.py): TF1's tf.debugging,
# tf.Print and top-level asserts (each taking `data`) ---
from webflow._api_common import print  # noqa: A004 - tf.print
from webflow.compat import v1_debugging as debugging
from webflow.ops.assert_ops import Print
from webflow.ops.check_ops import (
    assert_equal, assert_greater, assert_greater_equal, assert_less, assert_less_equal, assert_near, assert_negative,
    assert_non_negative, assert_non_positive, assert_none_equal, assert_positive,
)
from webflow.ops.rank_checks import (
    assert_integer, assert_proper_iterable, assert_rank, assert_rank_at_least, assert_rank_in, assert_scalar,
    assert_type, is_numeric_tensor, verify_tensor_all_finite,
)
from webflow.ops.order_checks import assert_same_float_dtype, is_non_decreasing, is_strictly_increasing

# --- config (config.py): tf.compat.v1.config.set_backend / get_backend ---
from webflow import config as _config_module

config = _config_module  # an assignment: enable_eager_execution's `config` argument may shadow it
