"""`tf.compat.v1.python_io`: TF1's older home of the TFRecord names (the same objects as in `tf.io`)."""

from webflow.io.tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

__all__ = ["TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter", "tf_record_iterator"]
