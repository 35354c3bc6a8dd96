"""Op table rows for the string ops (ops/string_ops.py, ops/string_convert_ops.py) and the lookup-table ops
(ops/lookup_ops.py), plus string tensors through array ops whose portable kernels now take strings.

Oracles: Python's own bytes / re / str.split / printf-style `%` formatting on the same inputs, sparse components
written out by hand, and for the hashes the bucket numbers real TensorFlow 2.21 gives for these strings
(tests/strings/ recomputes them under TensorFlow when WEBFLOW_TF_PYTHON is set). No gradients: TensorFlow
declares every string and table op NotDifferentiable.
"""

import os
import re
import tempfile

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.ops import lookup_ops
from webflow.ops.lookup_tables import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)


def strings(*items, shape=None):
    """An object array of bytes (what TensorFlow returns for tf.string), from str or bytes."""
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() if isinstance(i, str) else i for i in items]
    return out.reshape(shape if shape is not None else (len(items),))


def each(function, x, dtype=object):
    """function applied to every element of an object array."""
    flat = [function(v) for v in np.asarray(x).reshape(-1).tolist()]
    out = np.empty(len(flat), dtype=dtype)
    out[:] = flat
    return out.reshape(np.shape(x))


def components(sparse):
    return [sparse.indices, sparse.values, sparse.dense_shape]


def sparse_of_rows(rows):
    """[indices, values, dense_shape] of token rows, written out by hand (row-major)."""
    indices = np.array([[i, j] for i, row in enumerate(rows) for j in range(len(row))], np.int64).reshape(-1, 2)
    values = strings(*[t for row in rows for t in row])
    return [indices, values, np.array([len(rows), max(map(len, rows), default=0)], np.int64)]


WORDS = strings("Hello World", "  padded\t", "ÉCOLE été", "")
GRID = strings("a", "bc", "d", "", "ef", "g", shape=(2, 3))

# bucket numbers of tf.strings.to_hash_bucket_fast / _strong(key=[1, 2]) / tf.compat.v1.string_to_hash_bucket with
# 1000 buckets, from TensorFlow 2.21 (lengths 0..100 cover every branch of FarmHash's Fingerprint64)
HASH_INPUTS = strings("", "a", "hello", "The quick brown fox", "x" * 40, "y" * 100, "z" * 17, "w" * 33, "q" * 64,
                      "r" * 65)
FAST_BUCKETS = np.array([263, 939, 296, 253, 852, 355, 168, 42, 295, 178], np.int64)
STRONG_BUCKETS = np.array([435, 646, 622], np.int64)
LEGACY_BUCKETS = np.array([899, 868, 938], np.int64)

VOCABULARY_DIR = tempfile.mkdtemp(prefix="webflow_vocab_")
VOCABULARY_FILE = os.path.join(VOCABULARY_DIR, "vocab.txt")
with open(VOCABULARY_FILE + ".tmp", "w", encoding="utf-8") as _file:
    _file.write("emerson\t10\nlake\t20\npalmer\t30\n")
os.replace(VOCABULARY_FILE + ".tmp", VOCABULARY_FILE)


def _after(init_op):
    """Graph mode: ops built under this run after the table's initializer (within one Session.run)."""
    return wf.control_dependencies([init_op]) if not wf.executing_eagerly() else wf.control_dependencies([])


def table_lookup(keys):
    table = StaticHashTable(KeyValueTensorInitializer(["emerson", "lake", "palmer"],
                                                      wf.constant([0, 1, 2], wf.int64)), -1)
    with _after(table.initializer):
        return [table.lookup(keys), table.size()]


def vocabulary_lookup(keys):
    init = KeyValueTensorInitializer(["emerson", "lake", "palmer"], wf.constant([0, 1, 2], wf.int64))
    table = StaticVocabularyTable(init, num_oov_buckets=1000)
    with _after(table._table.initializer):
        return table.lookup(keys)


def text_file_lookup(keys):
    init = TextFileInitializer(VOCABULARY_FILE, wf.string, 0, wf.int64, 1, delimiter="\t")
    table = StaticHashTable(init, -1)
    with _after(table.initializer):
        return table.lookup(keys)


def line_number_lookup(keys):
    init = TextFileInitializer(VOCABULARY_FILE, wf.string, TextFileIndex.WHOLE_LINE, wf.int64,
                               TextFileIndex.LINE_NUMBER)
    table = StaticHashTable(init, -7)
    with _after(table.initializer):
        return table.lookup(keys)


def _printf(form):
    return lambda x: each(lambda v: (form % v).encode(), x)


CASES = [
    # string tensors through array ops (the portable kernels take strings since the CArray holds bytes)
    OpCase("string_equal", lambda x, y: wf.equal(x, y), [GRID, strings("a", "x", "d")],
           lambda x, y: np.asarray(x == y, dtype=bool)),
    OpCase("string_not_equal", lambda x: wf.not_equal(x, "bc"), [GRID], lambda x: np.asarray(x != b"bc", dtype=bool)),
    OpCase("string_concat_gather", lambda x: wf.gather(wf.concat([x, x], 0), [3, 0], axis=0), [GRID],
           lambda x: np.concatenate([x, x], 0)[[3, 0]]),
    OpCase("string_where", lambda c, x: wf.where(c, x, "-"), [np.array([True, False, True]), strings("a", "b", "c")],
           lambda c, x: np.where(c, x, strings("-", "-", "-"))),
    OpCase("string_boolean_mask", lambda x, m: wf.boolean_mask(x, m), [GRID, np.array([[1, 0, 1], [0, 1, 1]], bool)],
           lambda x, m: x[m], unknown_shapes=False, fully_static=False),
    OpCase("string_pad_tile", lambda x: wf.tile(wf.pad(x, [[0, 1], [1, 0]]), [1, 2]), [GRID],
           lambda x: np.tile(np.pad(x, [[0, 1], [1, 0]], constant_values=b""), [1, 2])),
    OpCase("string_add", lambda x, y: x + y, [GRID, strings("!", "?", ".")], lambda x, y: x + y),
    # joining
    OpCase("string_join", lambda x, y: wf.strings.join([x, "+", y], separator="_"), [GRID, GRID[::-1]],
           lambda x, y: np.array([b"_".join((a, b"+", b)) for a, b in zip(x.reshape(-1), y.reshape(-1))],
                                 object).reshape(2, 3)),
    OpCase("reduce_join_all", lambda x: wf.strings.reduce_join(x, separator="|"), [GRID],
           lambda x: np.array(b"|".join(x.reshape(-1).tolist()), dtype=object)),
    OpCase("reduce_join_axis0_keepdims", lambda x: tf1.reduce_join(x, axis=0, keep_dims=True), [GRID],
           lambda x: np.array([[b"".join(x[:, j]) for j in range(3)]], object)),
    # splitting
    OpCase("string_split", lambda x: components(tf1.string_split(x, " ,")), [strings("a b,c", "", "d  e")],
           lambda x: sparse_of_rows([[t for t in re.split(b"[ ,]", s) if t] for s in x]), fully_static=False),
    OpCase("string_split_keep_empty", lambda x: components(tf1.string_split(x, ",", skip_empty=False)),
           [strings("a,,b", "c,")], lambda x: sparse_of_rows([s.split(b",") for s in x]), fully_static=False),
    OpCase("strings_split_v2_maxsplit", lambda x: components(tf1.strings.split(x, sep="-", maxsplit=1)),
           [strings("a-b-c", "d", "e--")], lambda x: sparse_of_rows([s.split(b"-", 1) for s in x]),
           fully_static=False),
    OpCase("strings_split_v2_whitespace", lambda x: wf.strings.split(x).to_tensor(default_value="<pad>"),
           [strings("  to be\tor ", "not", "")],
           lambda x: strings("to", "be", "or", "not", "<pad>", "<pad>", "<pad>", "<pad>", "<pad>", shape=(3, 3)),
           unknown_shapes=False, fully_static=False),  # (TF2's split needs a static rank)
    # substrings, patterns
    OpCase("substr_bytes", lambda x, p, n: wf.strings.substr(x, p, n), [GRID, np.int32([0, 1, -1]),
                                                                       np.int32([1, 5, -1])],
           lambda x, p, n: np.array([[s[q:] if m < 0 else s[q:q + m] for s, q, m in
                                      zip(row, [0, 1, len(row[2]) - 1], n)] for row in x], object)),
    OpCase("substr_utf8", lambda x: wf.strings.substr(x, -3, 2, unit="UTF8_CHAR"), [strings("été", "naïve")],
           lambda x: each(lambda s: s.decode()[-3:][:2].encode(), x)),
    OpCase("regex_replace_tensor_pattern", lambda x, p: wf.strings.regex_replace(x, p, r"<\1>"),
           [WORDS, strings("([lo]+)", shape=())], lambda x, p: each(lambda s: re.sub(rb"([lo]+)", rb"<\1>", s), x)),
    OpCase("static_regex_replace_first", lambda x: wf.strings.regex_replace(x, "[aeiou]", "_", replace_global=False),
           [WORDS], lambda x: each(lambda s: re.sub(rb"[aeiou]", b"_", s, count=1), x)),
    OpCase("regex_full_match_tensor_pattern", lambda x, p: wf.strings.regex_full_match(x, p),
           [WORDS, strings(r"\w+ \w+", shape=())],
           lambda x, p: each(lambda s: re.fullmatch(rb"\w+ \w+", s) is not None, x, bool)),
    OpCase("static_regex_full_match", lambda x: wf.strings.regex_full_match(x, ".*o.*"), [WORDS],
           lambda x: each(lambda s: re.fullmatch(rb".*o.*", s) is not None, x, bool)),
    # length, case, whitespace
    OpCase("length_bytes", lambda x: wf.strings.length(x), [WORDS], lambda x: each(len, x, np.int32)),
    OpCase("length_utf8", lambda x: wf.strings.length(x, unit="UTF8_CHAR"), [WORDS],
           lambda x: each(lambda s: len(s.decode()), x, np.int32)),
    OpCase("lower_ascii", lambda x: wf.strings.lower(x), [WORDS], lambda x: each(bytes.lower, x)),
    OpCase("upper_utf8", lambda x: wf.strings.upper(x, encoding="utf-8"), [WORDS],
           lambda x: each(lambda s: s.decode().upper().encode(), x)),
    OpCase("strip", lambda x: wf.strings.strip(x), [WORDS], lambda x: each(bytes.strip, x)),
    # numbers <-> strings
    OpCase("as_string_precision", lambda x: wf.strings.as_string(x, precision=3), [np.float32([1.5, -2.25, 1e10])],
           lambda x: each(lambda v: b"%.3f" % v, x), grad=False),
    OpCase("as_string_shortest", lambda x: wf.as_string(x, shortest=True), [np.float64([0.1, 1e-7, 123456789.0])],
           _printf("%g"), grad=False),
    OpCase("as_string_scientific_width", lambda x: wf.as_string(x, scientific=True, width=14),
           [np.float32([3.5, -0.001])], _printf("%14e"), grad=False),
    OpCase("as_string_int_fill", lambda x: tf1.as_string(x, width=6, fill="0"), [np.int64([7, -42, 123456])],
           _printf("%06d")),
    OpCase("as_string_bool", lambda x: wf.as_string(x), [np.array([True, False])],
           lambda x: each(lambda v: b"true" if v else b"false", x)),
    OpCase("to_number_float32", lambda x: wf.strings.to_number(x), [strings(" 1.5", "-2e3 ", "inf", "0x10")],
           lambda x: np.float32([1.5, -2000.0, np.inf, 16.0])),
    OpCase("to_number_int64", lambda x: tf1.string_to_number(x, out_type=wf.int64),
           [strings("9223372036854775807", " -5", "+7")], lambda x: np.int64([9223372036854775807, -5, 7])),
    OpCase("string_format", lambda x, w: wf.strings.format("x={} w={}!", [x, w], summarize=2),
           [np.arange(12, dtype=np.int32).reshape(2, 6), strings('a"b', "\n")],
           lambda x, w: np.array(b'x=[[0 1 ... 4 5]\n [6 7 ... 10 11]] w=["a\\"b" "\\n"]!', dtype=object)),
    # unicode (Python's codecs as the oracle)
    OpCase("unicode_decode", lambda x: [wf.strings.unicode_decode(x, "UTF-8").values,
                                        wf.strings.unicode_decode(x, "UTF-8").row_splits],
           [strings("héllo", b"a\xffb", "€")],
           lambda x: [np.int32([104, 233, 108, 108, 111, 97, 65533, 98, 8364]), np.int64([0, 5, 8, 9])],
           unknown_shapes=False, fully_static=False),  # (a scalar and a vector decode differently: rank needed)
    OpCase("unicode_encode_utf16", lambda c: wf.strings.unicode_encode(wf.RaggedTensor.from_row_splits(
        c, [0, 2, 2, 4]), "UTF-16-BE"), [np.int32([104, 128512, 233, 0x110000])],
           lambda c: strings("h\U0001F600".encode("utf-16-be"), b"", "é\ufffd".encode("utf-16-be"))),
    # hash buckets (TensorFlow's numbers)
    OpCase("to_hash_bucket_fast", lambda x: wf.strings.to_hash_bucket_fast(x, 1000), [HASH_INPUTS],
           lambda x: FAST_BUCKETS),
    OpCase("to_hash_bucket_strong", lambda x: wf.strings.to_hash_bucket_strong(x, 1000, [1, 2]),
           [HASH_INPUTS[:3]], lambda x: STRONG_BUCKETS),
    OpCase("string_to_hash_bucket_legacy", lambda x: tf1.string_to_hash_bucket(x, 1000), [HASH_INPUTS[:3]],
           lambda x: LEGACY_BUCKETS),
    # lookup tables
    OpCase("static_hash_table", table_lookup, [strings("lake", "tarkus", "palmer", shape=(1, 3))],
           lambda x: [np.int64([[1, -1, 2]]), np.int64(3)]),
    OpCase("static_vocabulary_table", vocabulary_lookup, [strings("lake", "a", "hello")],
           lambda x: np.int64([1, 3 + 939, 3 + 296])),  # oov: 3 + Fingerprint64 bucket (FAST_BUCKETS)
    OpCase("text_file_table", text_file_lookup, [strings("palmer", "emerson", "asia")],
           lambda x: np.int64([30, 10, -1])),
    OpCase("text_file_table_line_numbers", line_number_lookup, [strings("lake\t20", "lake")],
           lambda x: np.int64([1, -7])),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)


def test_every_table_op_is_not_differentiable() -> None:
    from webflow.ops import registry

    for op_type in ("HashTableV2", "LookupTableImportV2", "LookupTableFindV2", "LookupTableSizeV2", "StringJoin",
                    "StringToHashBucketFast", "AsString", "StringToNumber", "Substr", "StringSplitV2"):
        assert op_type in registry._NOT_DIFFERENTIABLE


def test_lookup_before_initialization_is_a_failed_precondition() -> None:
    graph = tf1.Graph()
    with graph.as_default():
        table = tf1.contrib.lookup.index_table_from_tensor(["a", "b"])
        ids = table.lookup(tf1.constant(["b", "c"]))
        init = tf1.tables_initializer()
        with tf1.Session() as session:
            with pytest.raises(tf1.errors.FailedPreconditionError, match="Table not initialized."):
                session.run(ids)
            session.run(init)
            np.testing.assert_array_equal(session.run(ids), [1, -1])
            session.run(init)  # importing again changes nothing, as in TensorFlow
            np.testing.assert_array_equal(session.run(ids), [1, -1])


def test_lookup_ops_keep_their_op_types() -> None:
    assert lookup_ops.WHOLE_LINE == TextFileIndex.WHOLE_LINE == -2
