"""`tf.compat.v1.io`: TF2's names plus TF1's record iterator and compression-type numbers."""

from webflow.io import gfile

# parsing (ops/parsing_ops.py, sequence_parsing_ops.py, decode_ops.py; io/file_ops.py): TF1 signatures
from webflow.io.file_ops import read_file, write_file
from webflow.io.graph_io import write_graph
from webflow.io.tensor_ops import parse_tensor, serialize_tensor
from webflow.io.tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator
from webflow.ops.decode_ops import decode_csv, decode_raw
from webflow.ops.image_codec_ops import decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from webflow.ops.io_ops import matching_files
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature
from webflow.ops.parsing_ops import parse_example, parse_single_example
from webflow.ops.sequence_parsing_ops import parse_sequence_example, parse_single_sequence_example

__all__ = ["decode_gif", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png",
           "FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "decode_csv", "decode_raw", "parse_example",
           "parse_sequence_example", "parse_single_example", "parse_single_sequence_example", "read_file", "write_file",
           "parse_tensor", "serialize_tensor",
           "gfile", "TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator", "write_graph",
           "matching_files"]
