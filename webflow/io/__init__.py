"""`tf.io` of TF2: TFRecord files, write_graph. TF1's `tf.io` is v1.py, its `tf.python_io` python_io.py (README.md).

Importing this package registers the GraphDef writer behind `Graph.as_graph_def` (graph_def.py).
"""

from webflow.io import graph_def as _graph_def  # noqa: F401 - registers Graph.as_graph_def
from webflow.io.graph_io import write_graph
from webflow.io.tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["TFRecordOptions", "TFRecordWriter", "write_graph"]
