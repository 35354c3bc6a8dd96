"""`wf.strings`: TensorFlow 2's string namespace (`tf.strings.join`, `split`, `to_number`, `as_string` ...).

The ops live in ops/string_ops.py (join, reduce_join, split, regular expressions), ops/string_text_ops.py
(substr, length, case, strip), ops/unicode_ops.py (unicode_decode / encode, bytes_split),
ops/string_convert_ops.py (as_string, to_number, the hash buckets) and ops/string_format_ops.py (format).
TF1's variant (`split` giving a SparseTensor, `length(input, name, unit)`) is webflow.compat.v1_strings.
"""

# ruff: noqa: F401, I001, A004
from webflow.ops.string_format_ops import string_format as format
from webflow.ops.string_convert_ops import (
    as_string, to_hash_bucket, to_hash_bucket_fast, to_hash_bucket_strong, to_number,
)
from webflow.ops.string_ops import reduce_join, regex_full_match, regex_replace, split, string_join as join
from webflow.ops.string_text_ops import length, lower, strip, substr, upper
from webflow.ops.unicode_ops import bytes_split, unicode_decode, unicode_encode, unicode_split

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "reduce_join", "regex_full_match",
           "regex_replace", "split", "strip", "substr", "to_hash_bucket", "to_hash_bucket_fast",
           "to_hash_bucket_strong", "to_number", "unicode_decode", "unicode_encode", "unicode_split", "upper"]
