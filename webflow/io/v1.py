"""`tf.compat.v1.io`: TF2's names plus TF1's record iterator and compression-type numbers."""

from webflow.io.graph_io import write_graph
from webflow.io.tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator", "write_graph"]
