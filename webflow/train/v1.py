"""TF1's `tf.train` (`webflow.compat.v1.train`): optimizers, learning-rate schedules, moving averages, global step,
gradient clipping, Saver and checkpoints."""

# ruff: noqa: F401, I001

# --- optimizers, schedules, EMA, global step (train/) ---
from webflow.train.adadelta import AdadeltaOptimizer
from webflow.train.adagrad import AdagradOptimizer
from webflow.train.adam import AdamOptimizer
from webflow.train.gradient_descent import GradientDescentOptimizer
from webflow.train.learning_rate_decay import (
    cosine_decay, exponential_decay, inverse_time_decay, natural_exp_decay, piecewise_constant, polynomial_decay,
)
from webflow.train.momentum import MomentumOptimizer
from webflow.train.moving_averages import ExponentialMovingAverage
from webflow.train.optimizer import Optimizer
from webflow.train.rmsprop import RMSPropOptimizer
from webflow.train.training_util import (
    assert_global_step, create_global_step, get_global_step, get_or_create_global_step, global_step,
)
# --- queue-based input pipelines (train/input.py, queue_runner.py, coordinator.py) ---
from webflow.train import queue_runner
from webflow.train.coordinator import Coordinator, LooperThread
from webflow.train.input import (
    batch, batch_join, input_producer, limit_epochs, match_filenames_once, maybe_batch, maybe_batch_join,
    maybe_shuffle_batch, maybe_shuffle_batch_join, range_input_producer, shuffle_batch, shuffle_batch_join,
    slice_input_producer, string_input_producer,
)
from webflow.train.queue_runner import QueueRunner, add_queue_runner, start_queue_runners
# --- summary_iterator (summary/summary_iterator.py), TF1's tf.train.summary_iterator ---
from webflow.summary.summary_iterator import summary_iterator
# --- write_graph (io/graph_io.py), TF1's tf.train.write_graph (TF2 has only tf.io.write_graph) ---
from webflow.io.graph_io import write_graph
# --- checkpoints (train/saver.py over io/checkpoint_bundle.py): TensorFlow's V2 format ---
from webflow.train.saver import (
    CheckpointReader, NewCheckpointReader, Saver, checkpoint_exists, get_checkpoint_state, latest_checkpoint,
    list_variables, load_checkpoint, load_variable, update_checkpoint_state,
)
# --- meta graphs (train/meta_graph.py): graph + collections + SaverDef as one MetaGraphDef ---
from webflow.train.meta_graph import export_meta_graph, import_meta_graph
# --- session-run hooks and MonitoredTrainingSession (train/session_run_hook.py, basic_session_run_hooks.py,
# monitored_session.py) ---
from webflow.train.basic_session_run_hooks import (
    CheckpointSaverHook, LoggingTensorHook, StopAtStepHook, SummarySaverHook,
)
from webflow.train.monitored_session import MonitoredSession, MonitoredTrainingSession
from webflow.train.session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues
# --- tf.train.Example and its parts (train/example_messages.py): protobuf classes, loaded on first use ---
from webflow.train.example_messages import example_class as _example_class


def __getattr__(name: str) -> object:  # tf.train.Example, Features, Feature, BytesList, FloatList, Int64List ...
    return _example_class(name, __name__)
