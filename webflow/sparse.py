"""`wf.sparse`: TensorFlow 2's sparse namespace (`tf.sparse.SparseTensor`, `tf.sparse.to_dense`, `tf.sparse.reorder`).

The ops live in ops/sparse_ops.py; the SparseTensor class in framework/sparse_tensor.py. TF1's spellings
(`tf.sparse_tensor_to_dense`, `tf.sparse_to_dense`, `tf.sparse_reorder`) are in webflow.compat.v1.
"""

# ruff: noqa: F401
from webflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from webflow.ops.sparse_ops import sparse_reorder as reorder
from webflow.ops.sparse_ops import sparse_tensor_to_dense as to_dense

__all__ = ["SparseTensor", "reorder", "to_dense"]
