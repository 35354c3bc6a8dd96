"""`tf.saved_model.utils`: TensorInfo, how a SignatureDef names a tensor (its name, dtype and static shape; a
SparseTensor by its three component tensors), built from a graph tensor and looked up again after loading."""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.sparse_tensor import SparseTensor
from webflow.io.tensor_proto import shape_proto


def build_tensor_info(tensor: Any) -> Any:
    """The TensorInfo of a graph Tensor or SparseTensor (RuntimeError when executing eagerly, as TensorFlow)."""
    if context.executing_eagerly():
        raise RuntimeError("`build_tensor_info` is not supported in eager execution.")
    from webflow.protos import meta_graph_pb2

    info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.base_dtype.as_datatype_enum)
    if isinstance(tensor, SparseTensor):
        info.tensor_shape.CopyFrom(shape_proto(tensor.shape))
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.tensor_shape.CopyFrom(shape_proto(tensor.shape))
        info.name = tensor.name
    return info


def build_tensor_info_from_op(op: Any) -> Any:
    """A TensorInfo naming an Operation (dtype DT_INVALID, unknown shape): the init and train op signatures."""
    from webflow.protos import meta_graph_pb2

    info = meta_graph_pb2.TensorInfo(name=op.name)
    info.tensor_shape.unknown_rank = True
    return info


def get_tensor_from_tensor_info(tensor_info: Any, graph: Any = None, import_scope: str | None = None) -> Any:
    """The Tensor (or SparseTensor) of `graph` (the default graph) that `tensor_info` names, under
    `import_scope/` when given; KeyError when the graph has no such tensor."""
    graph = graph or context.get_default_graph()

    def tensor(name: str) -> Any:
        return graph.get_tensor_by_name(f"{import_scope}/{name}" if import_scope else name)

    encoding = tensor_info.WhichOneof("encoding")
    if encoding == "name":
        return tensor(tensor_info.name)
    if encoding == "coo_sparse":
        sparse = tensor_info.coo_sparse
        return SparseTensor(tensor(sparse.indices_tensor_name), tensor(sparse.values_tensor_name),
                            tensor(sparse.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {encoding}. Expected `coo_sparse`, `composite_tensor`, or "
                     "`name` for a dense tensor.")


def get_element_from_tensor_info(tensor_info: Any, graph: Any = None, import_scope: str | None = None) -> Any:
    """The Tensor or Operation `tensor_info.name` names."""
    graph = graph or context.get_default_graph()
    name = tensor_info.name
    return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)
