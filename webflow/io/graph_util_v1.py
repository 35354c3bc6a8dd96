"""`tf.compat.v1.graph_util`: importing GraphDefs, cutting them down and freezing their variables (freeze.py)."""

from webflow.io.freeze import (
    convert_variables_to_constants,
    extract_sub_graph,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)
from webflow.io.graph_def_import import import_graph_def

__all__ = ["convert_variables_to_constants", "extract_sub_graph", "import_graph_def", "remove_training_nodes",
           "tensor_shape_from_node_def_name"]
