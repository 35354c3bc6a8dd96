"""`tf.io` of TF2: TFRecord files. TF1's `tf.io` is v1.py, its `tf.python_io` python_io.py (README.md)."""

from webflow.io.tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordOptions", "TFRecordWriter"]
