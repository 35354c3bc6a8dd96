"""`tf.io` of TF2: TFRecord files, write_graph. TF1's `tf.io` is v1.py, its `tf.python_io` python_io.py (README.md).

Importing this package registers the GraphDef writer behind `Graph.as_graph_def` (graph_def.py).
"""

from webflow.io import checkpoint_ops as _checkpoint_ops  # noqa: F401 - registers SaveV2, RestoreV2 ...
from webflow.io import gfile
from webflow.io import graph_def as _graph_def  # noqa: F401 - registers Graph.as_graph_def

# parsing (ops/parsing_ops.py, sequence_parsing_ops.py, decode_ops.py; io/file_ops.py): Examples, CSV, raw bytes, files
from webflow.io.file_ops import read_file, write_file
from webflow.io.graph_io import write_graph
from webflow.io.tensor_ops import parse_tensor, serialize_tensor
from webflow.io.tfrecord import TFRecordOptions, TFRecordWriter
from webflow.ops.decode_ops import decode_csv_v2 as decode_csv
from webflow.ops.decode_ops import decode_raw_v2 as decode_raw
from webflow.ops.image_codec_ops import decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from webflow.ops.io_ops import matching_files  # (also registers the TF1 reader ops)
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature
from webflow.ops.parsing_ops import parse_example_v2 as parse_example
from webflow.ops.parsing_ops import parse_single_example_v2 as parse_single_example
from webflow.ops.sequence_parsing_ops import parse_sequence_example, parse_single_sequence_example

__all__ = ["decode_gif", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png",
           "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "decode_csv", "decode_raw", "parse_example",
           "parse_sequence_example", "parse_single_example", "parse_single_sequence_example", "read_file", "write_file",
           "parse_tensor", "serialize_tensor",
           "gfile", "TFRecordOptions", "TFRecordWriter", "write_graph", "matching_files"]
