"""webflow: a deep-learning engine you can read end to end, with TensorFlow's API.

`import webflow as wf` gives the TF2-style eager API; `import webflow.compat.v1 as tf` gives TF1's
graph API. Both run on one engine: a registry of ops (ops/), a graph and an executor (framework/,
runtime/), and one set of gradient rules (autodiff/).
"""

# ruff: noqa: F401, F403
from webflow._api_common import *
from webflow._api_common import bool, print, range, tuple  # noqa: A004 - TensorFlow's names
from webflow.framework.context import executing_eagerly
from webflow.framework.scopes import control_dependencies, device
from webflow.framework.scopes import name_scope_v2 as name_scope

# --- function (runtime/function.py): tf.function ---
from webflow.runtime.function import TensorSpec, function

# --- nn (nn/): tf.nn ---
from webflow import nn

# --- random (random.py): tf.random ---
from webflow import random

# --- strings (strings.py): tf.strings, and tf.as_string; lookup (lookup.py): tf.lookup tables ---
from webflow import lookup, ragged, strings
from webflow.ops.ragged_ops import RaggedTensor  # (importing ragged_ops gives RaggedTensor its op methods)
from webflow.ops.string_convert_ops import as_string

# --- space to batch (ops/space_batch_ops.py): TF2's tf.space_to_batch / tf.batch_to_space (block_shape first) ---
from webflow.ops.space_batch_ops import batch_to_space_v2 as batch_to_space
from webflow.ops.space_batch_ops import space_to_batch_v2 as space_to_batch

# --- math (math.py): tf.math, and TF2 signatures of names TF1 spells differently ---
from webflow import math
from webflow.ops.logic_ops import where
from webflow.ops.reduction_ops import (
    argmax, argmin, reduce_all, reduce_any, reduce_logsumexp, reduce_max, reduce_min, reduce_prod,
)

# --- data (data/): tf.data (Dataset, TFRecordDataset ...; iterators) ---
from webflow import data

# --- io (io/): tf.io (TFRecord files, write_graph; loads no protobuf) ---
from webflow import io
# --- image (image.py): tf.image (decode/encode PNG and JPEG, resize, crops, flips) ---
from webflow import image
# --- audio (audio.py): tf.audio (encode_wav, decode_wav) ---
from webflow import audio
# --- sparse (sparse.py): tf.sparse (SparseTensor, to_dense, reorder) ---
from webflow import sparse
# --- queue (queue.py): tf.queue (FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue, QueueBase) ---
from webflow import queue
# checkpoints (train/saver.py): tf.train.latest_checkpoint, list_variables, load_variable, load_checkpoint
from webflow import train
# GraphDefs (io/): tf.import_graph_def, tf.graph_util, tensor protos (protobuf loads only when they run)
from webflow.io import graph_util
from webflow.io.graph_def_import import import_graph_def
from webflow.io.tensor_proto import make_ndarray, make_tensor_proto

# --- summary (summary/): tf.summary (create_file_writer, scalar, histogram, image, text; loads no protobuf) ---
from webflow import summary

# --- saved_model (saved_model/): TF2's tf.saved_model (constants, contains_saved_model; loads no protobuf) ---
from webflow import saved_model

# --- config (config.py): wf.config.set_backend / get_backend (which kernels run: numpy, native C, wasm) ---
from webflow import config

# --- lab (lab/): notebook display; importing it gives Graph/Session/wf.function a _repr_mimebundle_ ---
from webflow import lab

# --- keras (keras/): tf.keras (layers, Sequential / Model, compile / fit); tf.optimizers is keras.optimizers ---
from webflow import keras
from webflow.keras import optimizers
from webflow.keras import initializers   # tf.initializers is keras.initializers (TF2)

# --- estimator (estimator/, feature_column/): tf.estimator and tf.feature_column of TensorFlow <= 2.15 ---
from webflow import estimator, feature_column

# --- distribute (distribute/): tf.distribute strategies on the one CPU; platform/: tf.get_logger ---
from webflow import distribute
from webflow.platform.tf_logging import get_logger

# --- debugging (debugging.py; ops/check_ops.py, rank_checks.py): tf.debugging and TF2's top-level asserts ---
from webflow import debugging
from webflow.ops.check_ops import assert_equal_v2 as assert_equal, assert_greater_v2 as assert_greater
from webflow.ops.check_ops import assert_less_v2 as assert_less
from webflow.ops.rank_checks import assert_rank_v2 as assert_rank

__version__ = "0.1.0"
