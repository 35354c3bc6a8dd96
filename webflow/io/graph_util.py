"""`tf.graph_util` of TF2: only `import_graph_def`. TF1's larger namespace is graph_util_v1.py."""

from webflow.io.graph_def_import import import_graph_def

__all__ = ["import_graph_def"]
