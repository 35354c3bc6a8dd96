"""`wf.ragged`: `tf.ragged.constant` and the RaggedTensor class (framework/ragged_tensor.py; its op methods are
ops/ragged_ops.py). One ragged dimension only."""

# ruff: noqa: F401
from webflow.framework.ragged_tensor import RaggedTensor, RaggedTensorValue
from webflow.ops.ragged_ops import constant

__all__ = ["RaggedTensor", "RaggedTensorValue", "constant"]
