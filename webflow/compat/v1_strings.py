"""`tf.compat.v1.strings`: TF2's string namespace with TF1's signatures (`split` gives a SparseTensor unless
result_type="RaggedTensor"; `length` and `substr` take `name` before `unit`; `reduce_join` takes keep_dims)."""

# ruff: noqa: F401, F403, I001
from webflow.strings import *
from webflow.strings import __all__ as _v2_names
from webflow.ops.string_ops import reduce_join_v1 as reduce_join, split_v1 as split
from webflow.ops.string_text_ops import length_v1 as length, substr_v1 as substr

__all__ = list(_v2_names)
