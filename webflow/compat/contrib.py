"""`tf.contrib`: the few TF1 contrib names classic programs use (`tf.contrib.layers.l2_regularizer`, ...)."""

# ruff: noqa: F401
from types import SimpleNamespace

from webflow.data import transformations as _data_transformations
from webflow.nn import rnn_cell as _rnn_cell
from webflow.nn.rnn import static_bidirectional_rnn as _static_bidirectional_rnn
from webflow.nn.rnn import static_rnn as _static_rnn
from webflow.ops import lookup_tables as _lookup_tables
from webflow.train import regularizers as _regularizers

# --- layers (regularizers from train/regularizers.py) ---
layers = SimpleNamespace(
    l1_regularizer=_regularizers.l1_regularizer,
    l2_regularizer=_regularizers.l2_regularizer,
    l1_l2_regularizer=_regularizers.l1_l2_regularizer,
    sum_regularizer=_regularizers.sum_regularizer,
    apply_regularization=_regularizers.apply_regularization,
)

# --- data (data/transformations.py): tf.contrib.data's dataset.apply transformations ---
data = SimpleNamespace(
    shuffle_and_repeat=_data_transformations.shuffle_and_repeat,
    map_and_batch=_data_transformations.map_and_batch,
    parallel_interleave=_data_transformations.parallel_interleave,
    batch_and_drop_remainder=_data_transformations.batch_and_drop_remainder,
    unbatch=_data_transformations.unbatch,
    enumerate_dataset=_data_transformations.enumerate_dataset,
    prefetch_to_device=_data_transformations.prefetch_to_device,
    copy_to_device=_data_transformations.copy_to_device,
)

# --- lookup (ops/lookup_tables.py): vocabulary tables ---
lookup = SimpleNamespace(
    HashTable=_lookup_tables.HashTable,
    KeyValueTensorInitializer=_lookup_tables.KeyValueTensorInitializer,
    TextFileInitializer=_lookup_tables.TextFileInitializer,
    TextFileIndex=_lookup_tables.TextFileIndex,
    IdTableWithHashBuckets=_lookup_tables.IdTableWithHashBuckets,
    index_table_from_file=_lookup_tables.index_table_from_file,
    index_table_from_tensor=_lookup_tables.index_table_from_tensor,
    index_to_string_table_from_tensor=_lookup_tables.index_to_string_table_from_tensor,
)

# --- rnn (nn/rnn_cell.py, nn/rnn.py): tf.contrib.rnn's cells and static_rnn ---

rnn = SimpleNamespace(**{name: getattr(_rnn_cell, name) for name in (
    "RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell", "MultiRNNCell", "LSTMStateTuple",
    "DropoutWrapper", "ResidualWrapper")}, static_rnn=_static_rnn,
    static_bidirectional_rnn=_static_bidirectional_rnn)

# the fused cells (nn/rnn_block_cells.py): LSTMBlockCell, GRUBlockCell, GRUBlockCellV2
from webflow.nn import rnn_block_cells as _rnn_block_cells  # noqa: E402

for _name in _rnn_block_cells.__all__:
    setattr(rnn, _name, getattr(_rnn_block_cells, _name))

# --- seq2seq (nn/sequence_loss.py): tf.contrib.seq2seq.sequence_loss ---
from webflow.nn.sequence_loss import sequence_loss as _sequence_loss  # noqa: E402

seq2seq = SimpleNamespace(sequence_loss=_sequence_loss)

# --- feature_column (feature_column/sequence_layer.py, sequence_api.py): TF 1.15's contrib sequence columns ---
from webflow.feature_column import sequence_api as _sequence_api  # noqa: E402
from webflow.feature_column.sequence_layer import sequence_input_layer as _sequence_input_layer  # noqa: E402

feature_column = SimpleNamespace(sequence_input_layer=_sequence_input_layer, **{
    name: getattr(_sequence_api, name) for name in (
    "sequence_categorical_column_with_identity", "sequence_categorical_column_with_vocabulary_list",
    "sequence_categorical_column_with_vocabulary_file", "sequence_categorical_column_with_hash_bucket",
    "sequence_numeric_column")})
