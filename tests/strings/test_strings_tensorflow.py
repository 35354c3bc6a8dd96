"""String programs run under real TensorFlow 2.21 and under webflow give the same values and the same errors:
hash buckets (FarmHash, SipHash, TF's Hash64 over every length branch), as_string's printf formatting, the
splits (TF1 SparseTensor, TF2 RaggedTensor), to_number and its errors, substr's rules, joins, regular
expressions, vocabulary tables (TF2 eager, TF1 graph with tables_initializer) and how string tensors print.
Skipped without WEBFLOW_TF_PYTHON (tests/ops/test_string_table.py checks the same ops against Python)."""

from __future__ import annotations

import pytest
from strings_oracle import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow, same_error

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

WORDS = "['', 'a', 'hello', 'The quick brown fox', 'x' * 40, 'y' * 100, 'z' * 17, 'w' * 33, 'q' * 64, 'r' * 65, " \
        "'naïve café', 'x' * 200]"

PROGRAMS = {
    # hashing
    "hash_fast": f"result = tf.strings.to_hash_bucket_fast({WORDS}, 2**31 - 1)",
    "hash_fast_small": f"result = tf.strings.to_hash_bucket_fast({WORDS}, 7)",
    "hash_strong": f"result = tf.strings.to_hash_bucket_strong({WORDS}, 1000003, key=[123456789, 987654321])",
    "hash_legacy": f"result = tf1.string_to_hash_bucket({WORDS}, 1000003)",
    "hash_zero_buckets": "result = tf.strings.to_hash_bucket_fast(['a'], 0)",
    # as_string
    "as_string_default": "result = tf.strings.as_string([1.5, -2.25, 1e10, 1e-7, 0.0, -0.0])",
    "as_string_precision": "result = tf.strings.as_string([1.5, 2.25, 1e10, -0.0], precision=2)",
    "as_string_shortest": "result = tf.strings.as_string(tf.constant([3.14159, 1e-7, 123456789.0, 0.1]), "
                          "shortest=True)",
    "as_string_shortest_f64": "result = tf.strings.as_string(tf.constant([0.1, 2.0 / 3.0], tf.float64), "
                              "shortest=True)",
    "as_string_scientific": "result = tf.strings.as_string([1234.5, -0.001], scientific=True, precision=2)",
    "as_string_width_fill": "result = [tf.strings.as_string([3, -42], width=5, fill=f) for f in ['0', ' ', '-', '+']]",
    "as_string_int64": "result = tf.strings.as_string(tf.constant([2**40, -7], tf.int64), width=3)",
    "as_string_bool": "result = tf.strings.as_string([True, False], width=6)",
    "as_string_nan_inf": "result = tf.strings.as_string(tf.constant([float('nan'), float('inf'), -float('inf')]))",
    "as_string_bad_fill": "result = tf.strings.as_string([1.5], width=8, fill='x')",
    "as_string_long_fill": "result = tf.strings.as_string([1], fill='00')",
    "as_string_both": "result = tf.strings.as_string([1.5], shortest=True, scientific=True)",
    "as_string_int_precision": "result = tf.strings.as_string([3], precision=2)",
    "as_string_int_scientific": "result = tf.strings.as_string([3], scientific=True)",
    # to_number
    "to_number": "result = tf.strings.to_number(['1.5', ' 2', '1e3', 'inf', '-inf', '0x10', '.5', '1.', '3.4e38'])",
    "to_number_nan": "result = tf.strings.to_number(['nan', '-nan'])",
    "to_number_float32_range": "result = tf.strings.to_number(['1e39', '1e-50', '-1e39'])",
    "to_number_float64": "result = tf.strings.to_number(['0.1', '1e300'], tf.float64)",
    "to_number_ints": "result = [tf.strings.to_number(['12', ' -3 ', '+7', '2147483647'], tf.int32), "
                      "tf.strings.to_number(['9223372036854775807', '-9223372036854775808'], tf.int64)]",
    "to_number_bad": "result = tf.strings.to_number(['1', 'abc'])",
    "to_number_empty": "result = tf.strings.to_number([''])",
    "to_number_underscore": "result = tf.strings.to_number(['1_0'])",
    "to_number_int_fraction": "result = tf.strings.to_number(['1.5'], tf.int32)",
    "to_number_int_overflow": "result = tf.strings.to_number(['2147483648'], tf.int32)",
    "to_number_int_hex": "result = tf.strings.to_number(['0x10'], tf.int64)",
    # splits
    "string_split": "result = tf1.string_split(['a b  c', '', 'd'], ' ')",
    "string_split_keep_empty": "result = tf1.string_split(['a b  c', '', 'd'], ' ', skip_empty=False)",
    "string_split_charset": "result = tf1.string_split(['a,b;c', ';x'], ',;')",
    "string_split_chars": "result = tf1.string_split(['abc', 'de', ''], '')",
    "string_split_default": "result = tf1.string_split(['hello world', ' x '])",
    "string_split_scalar": "result = tf1.string_split('a b')",
    "strings_split_ragged": "result = tf.strings.split(['a  b c', ' x ', ''])",
    "strings_split_sep": "result = tf.strings.split(['a,,b', ',x', 'y,', ''], sep=',')",
    "strings_split_maxsplit_zero": "result = [tf.strings.split(['', ' '], sep=' ', maxsplit=0), "
                                   "tf.strings.split(['a b c', '', ' a b '], maxsplit=0), "
                                   "tf.strings.split([' a  b c ', '  '], maxsplit=1)]",
    "strings_split_maxsplit": "result = [tf.strings.split(['a,b,c,d'], sep=',', maxsplit=2), "
                              "tf.strings.split(['a b c d'], maxsplit=1)]",
    "strings_split_scalar": "result = tf.strings.split('a b')",
    "strings_split_to_tensor": "result = tf.strings.split(['a b', 'c', '']).to_tensor(default_value='<pad>')",
    "strings_split_to_sparse": "result = tf.strings.split(['a b', '', 'c d e']).to_sparse()",
    "strings_split_v1_sparse": "result = tf1.strings.split(['a b', 'c'], sep=' ')",
    "ragged_from_row_splits": "rt = tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 2, 2, 5])\n"
                              "result = [rt, rt.to_tensor(default_value=9), rt.row_lengths(), rt.nrows()]",
    # joins
    "join": "result = tf.strings.join([['a', 'b'], 'x', ['1', '2']], separator='-')",
    "join_mismatch": "result = tf.strings.join([['a', 'b'], ['1', '2', '3']])",
    "reduce_join": "x = [['a', 'b', 'c'], ['d', 'e', 'f']]\n"
                   "result = [tf.strings.reduce_join(x), tf.strings.reduce_join(x, axis=0, separator=','), "
                   "tf.strings.reduce_join(x, axis=1, keepdims=True), tf.strings.reduce_join(x, axis=[1, 0]), "
                   "tf.strings.reduce_join(x, axis=[0, 1], separator='.'), tf.strings.reduce_join(x, axis=-1)]",
    "reduce_join_bad_axis": "result = tf.strings.reduce_join([['a']], axis=2)",
    "reduce_join_empty": "result = tf.strings.reduce_join(tf.zeros([0, 2], tf.string), axis=0)",
    # substr
    "substr": "result = [tf.strings.substr(['hello', 'world'], 1, 3), tf.strings.substr(['hello'], -3, 2), "
              "tf.strings.substr(['hello'], 3, 10), tf.strings.substr(['hello'], 5, 1), "
              "tf.strings.substr(['hello'], 1, -1)]",
    "substr_broadcast": "result = tf.strings.substr([['hello', 'world'], ['abc', 'xyz']], [0, 1], [1, 2])",
    "substr_utf8": "result = [tf.strings.substr(['héllo'], 1, 2, unit='UTF8_CHAR'), "
                   "tf.strings.substr(['héllo'], 1, 2), tf.strings.substr(['héllo'], -4, 2, unit='UTF8_CHAR')]",
    "substr_out_of_range": "result = tf.strings.substr(['hello'], 6, 1)",
    "substr_negative_out_of_range": "result = tf.strings.substr(['hello'], -6, 1)",
    "substr_utf8_out_of_range": "result = tf.strings.substr(['hé'], 3, 2, unit='UTF8_CHAR')",
    # patterns, length, case
    "regex_replace": "result = [tf.strings.regex_replace(['aaa bbb', 'abc'], 'a+', 'X'), "
                     "tf.strings.regex_replace(['aaa bab'], 'a', 'X', replace_global=False), "
                     r"tf.strings.regex_replace(['john smith'], r'(\w+) (\w+)', r'\2, \1'), "
                     r"tf.strings.regex_replace(['abc'], 'b', r'[\0]'), "
                     "tf.strings.regex_replace(['abc'], tf.constant('b'), 'x')]",
    "regex_full_match": "result = [tf.strings.regex_full_match(['abc', 'ab', 'xabc'], 'a.c'), "
                        "tf.strings.regex_full_match(['abc', 'abd'], tf.constant('ab[c]'))]",
    "length": "result = [tf.strings.length(['', 'abc', 'héllo']), "
              "tf.strings.length(['', 'abc', 'héllo'], unit='UTF8_CHAR')]",
    "case": "result = [tf.strings.lower(['AbC', 'ÉCOLE']), tf.strings.lower(['ÉCOLE'], encoding='utf-8'), "
            "tf.strings.upper(['abc', 'école']), tf.strings.upper(['école'], encoding='utf-8')]",
    "strip": r"result = tf.strings.strip([' a b \t\n', '\x0bx\x0c', ''])",
    # unicode
    "unicode_decode": "result = [tf.strings.unicode_decode(['héllo', '', 'a€'], 'UTF-8'), "
                      "tf.strings.unicode_decode('hé', 'UTF-8'), "
                      "tf.strings.unicode_decode([b'a\\xffb', b'\\xc3', b'\\xe2\\x82x'], 'UTF-8'), "
                      "tf.strings.unicode_decode([b'a\\xffb', b'\\xc3'], 'UTF-8', errors='ignore'), "
                      "tf.strings.unicode_decode([b'a\\xffb'], 'UTF-8', replacement_char=63), "
                      "tf.strings.unicode_decode([b'a\\x01b\\x7f'], 'UTF-8', replace_control_characters=True), "
                      "tf.strings.unicode_decode([b'\\x00a\\x00\\xe9', b'\\xd8=\\xde\\x00'], 'UTF-16-BE')]",
    "unicode_decode_strict": "result = tf.strings.unicode_decode([b'a\\xffb'], 'UTF-8', errors='strict')",
    "unicode_encode": "result = [tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [], [8364]]), 'UTF-8'), "
                      "tf.strings.unicode_encode(tf.ragged.constant([[104, 0x110000, -1, 0xD800]]), 'UTF-8'), "
                      "tf.strings.unicode_encode(tf.ragged.constant([[104, 0xD800, 105]]), 'UTF-8', "
                      "errors='ignore'), tf.strings.unicode_encode([104, 233], 'UTF-8'), "
                      "tf.strings.unicode_encode(tf.ragged.constant([[104, 128512]]), 'UTF-16-BE'), "
                      "tf.strings.unicode_encode(tf.ragged.constant([[104, 128512]]), 'UTF-32-BE'), "
                      "tf.strings.unicode_encode([[104, 105], [106, 107]], 'UTF-8')]",
    "unicode_encode_strict": "result = tf.strings.unicode_encode(tf.ragged.constant([[0x110000]]), 'UTF-8', "
                             "errors='strict')",
    "unicode_split": "result = [tf.strings.unicode_split(['héllo', 'a€', ''], 'UTF-8'), "
                     "tf.strings.unicode_split('hé', 'UTF-8'), "
                     "tf.strings.unicode_split([b'\\x00a\\xd8=\\xde\\x00'], 'UTF-16-BE')]",
    "bytes_split": "result = [tf.strings.bytes_split(['hé', 'ab', '']), tf.strings.bytes_split('xyz')]",
    "ragged_constant": "rt = tf.ragged.constant([['a', 'b'], [], ['c']])\n"
                       "result = [rt, rt.to_tensor(), rt.to_sparse(), tf.ragged.constant([[1.5], [2.5, 3.5]])]",
    # tf.strings.format (tf.print's layout)
    "format_numbers": "result = [tf.strings.format('{}', tf.constant([1.5, 2.0, 0.1, 1e10, 1e-7, 3.14159265, -0.0, "
                      "float('nan'), float('inf')]), summarize=-1), "
                      "tf.strings.format('{}', tf.constant([0.1, 2.0 / 3.0, 1e100], tf.float64)), "
                      "tf.strings.format('{} and {}', [tf.constant(7), tf.constant([[1, 2], [3, 4]])]), "
                      "tf.strings.format('{}', tf.constant([True, False])), "
                      "tf.strings.format('{}', tf.constant([2**40], tf.int64))]",
    "format_strings": "result = [tf.strings.format('{}', tf.constant(['a', 'b\"c', 'd\\n', 'é\\x01'])), "
                      "tf.strings.format('{}', tf.constant('a'))]",
    "format_summarize": "result = [tf.strings.format('{}', tf.range(10), summarize=2), "
                        "tf.strings.format('{}', tf.reshape(tf.range(100), [10, 10]), summarize=2), "
                        "tf.strings.format('{}', tf.reshape(tf.range(24), [2, 3, 4])), "
                        "tf.strings.format('{}', tf.zeros([0, 2])), "
                        "tf.strings.format('a%sb%s', [1, 2], placeholder='%s')]",
    "format_count_mismatch": "result = tf.strings.format('{} {}', [1])",
    # string tensors themselves
    "constants": "result = [tf.constant('héllo'), tf.constant([b'\\xff', b'']), tf.constant([['a'], ['bc']])]",
    "equality": "x = tf.constant(['a', 'b'])\nresult = [x == 'a', x != 'a', x == tf.constant(['a', 'c', 'd'])]",
    "repr_and_str": "x = tf.constant([['a', 'b'], ['c', 'd']])\ns = tf.constant('hé')\n"
                    "result = [repr(x), str(x), repr(s), str(s)]",
    "ragged_repr": "result = [repr(x) for x in [tf.strings.split(['', 'a'], sep=','), "
                   "tf.strings.split(['a b c', 'x', '']), tf.ragged.constant([[1, 2], [3, 4]]), "
                   "tf.ragged.constant([[1.5], [2.0, 3.0]]), tf.strings.split(['w' * 30 + ' ' + 'q' * 30, 'a b']), "
                   "tf.ragged.constant([[], []], dtype=tf.int32)]]",
    "mixed_types": "result = tf.constant(['a', 1])",
    "string_add": "result = [tf.constant(['a', 'b']) + 'c', tf.add(tf.constant('x'), tf.constant('y'))]",
    "cast_string": "result = tf.cast(tf.constant(['1']), tf.int32)",
    "number_as_string_dtype": "result = tf.constant(1, dtype=tf.string)",
    "string_array_ops": "x = tf.constant([['a', 'b'], ['c', 'd']])\n"
                        "result = [tf.concat([x, x], 1), tf.gather(x, [1, 0]), tf.stack([x, x], 2), "
                        "tf.tile(x, [1, 2]), "
                        "tf.reverse(x, [1]), tf.transpose(x), tf.where([[True, False], [False, True]], x, 'z'), "
                        "tf.boolean_mask(x, [[True, False], [False, True]]), tf.zeros_like(x), "
                        "tf.pad(x, [[1, 0], [0, 1]]), tf.reshape(x, [-1]), tf.expand_dims(x, 0)[0, 1]]",
    # vocabulary tables
    "static_hash_table": "init = tf.lookup.KeyValueTensorInitializer(['emerson', 'lake', 'palmer'], "
                         "tf.constant([0, 1, 2], tf.int64))\ntable = tf.lookup.StaticHashTable(init, -1)\n"
                         "result = [table.lookup(tf.constant(['lake', 'tarkus'])), table.size()]",
    "static_hash_table_strings": "init = tf.lookup.KeyValueTensorInitializer(tf.constant([1, 2], tf.int64), "
                                 "['one', 'two'])\ntable = tf.lookup.StaticHashTable(init, 'UNK')\n"
                                 "result = table.lookup(tf.constant([2, 5, 1], tf.int64))",
    "static_vocabulary_table": "init = tf.lookup.KeyValueTensorInitializer(['emerson', 'lake', 'palmer'], "
                               "tf.constant([0, 1, 2], tf.int64))\n"
                               "table = tf.lookup.StaticVocabularyTable(init, 5)\n"
                               "result = [table.lookup(tf.constant(['lake', 'tarkus', 'x', 'emerson'])), "
                               "table.size()]",
    "tf1_index_table": "g = tf1.Graph()\nwith g.as_default():\n"
                       "    table = index_table_from_tensor(['a', 'b', 'c'], num_oov_buckets=3)\n"
                       "    plain = index_table_from_tensor(tf1.constant(['a', 'b']), default_value=-5)\n"
                       "    words = tf1.placeholder(tf1.string, [None])\n"
                       "    ids, ids2 = table.lookup(words), plain.lookup(words)\n"
                       "    init = tf1.tables_initializer()\n"
                       "    with tf1.Session() as sess:\n"
                       "        try:\n"
                       "            sess.run(ids2, {words: ['a']})\n"
                       "            before = 'ran'\n"
                       "        except tf1.errors.FailedPreconditionError as error:\n"
                       "            before = 'FailedPreconditionError'\n"
                       "        sess.run(init)\n"
                       "        sess.run(init)\n"
                       "        result = [before, sess.run([ids, ids2], {words: ['b', 'zz', 'c', 'q']})]",
    "tf1_index_table_from_file": "import os, tempfile\n"
                                 "path = os.path.join(tempfile.mkdtemp(), 'vocab.txt')\n"
                                 "open(path, 'w').write('emerson\\t7\\nlake\\t8\\npalmer\\t9\\n')\n"
                                 "g = tf1.Graph()\nwith g.as_default():\n"
                                 "    lines = index_table_from_file(path, num_oov_buckets=2)\n"
                                 "    column = index_table_from_file(path, vocab_size=2, key_column_index=0)\n"
                                 "    keys = tf1.constant(['lake', 'lake\\t8', 'palmer', 'asia'])\n"
                                 "    ids = [lines.lookup(keys), column.lookup(keys)]\n"
                                 "    with tf1.Session() as sess:\n"
                                 "        sess.run(tf1.tables_initializer())\n"
                                 "        result = sess.run(ids)\n"
                                 "os.remove(path)\nos.rmdir(os.path.dirname(path))",
    "tf1_text_pipeline": "g = tf1.Graph()\nwith g.as_default():\n"
                         "    lines = tf1.placeholder(tf1.string, [None])\n"
                         "    tokens = tf1.string_split(tf1.strings.lower(lines))\n"
                         "    table = index_table_from_tensor(['the', 'cat', 'sat'], num_oov_buckets=2)\n"
                         "    ids = table.lookup(tokens.values)\n"
                         "    emb = tf1.get_variable('emb', [5, 3], initializer=tf1.constant_initializer(0.5))\n"
                         "    total = tf1.reduce_sum(tf1.nn.embedding_lookup(emb, ids))\n"
                         "    train = tf1.train.GradientDescentOptimizer(0.1).minimize(total)\n"
                         "    with tf1.Session() as sess:\n"
                         "        sess.run([tf1.global_variables_initializer(), tf1.tables_initializer()])\n"
                         "        first = sess.run([ids, tokens, total], {lines: ['The cat', 'SAT on the mat']})\n"
                         "        sess.run(train, {lines: ['The cat', 'on mat']})\n"
                         "        result = first + [sess.run(emb)]",
    "tf1_graph_feeds_fetches": "g = tf1.Graph()\nwith g.as_default():\n"
                               "    p = tf1.placeholder(tf1.string, [None])\n"
                               "    q = tf1.placeholder(tf1.string, [])\n"
                               "    joined = tf1.string_join([p, q], separator='/')\n"
                               "    with tf1.Session() as sess:\n"
                               "        result = sess.run([joined, tf1.identity(q), tf1.identity(p)], "
                               "{p: ['x', b'y'], q: 'hé'})",
}

# programs where both engines must raise the same error class and webflow's message must be TensorFlow's
ERRORS = {"hash_zero_buckets", "as_string_bad_fill", "as_string_long_fill", "as_string_both",
          "as_string_int_precision", "as_string_int_scientific", "to_number_bad", "to_number_empty",
          "to_number_underscore", "to_number_int_fraction", "to_number_int_overflow", "to_number_int_hex",
          "string_split_scalar", "join_mismatch", "reduce_join_bad_axis", "substr_out_of_range",
          "substr_negative_out_of_range", "substr_utf8_out_of_range", "mixed_types", "number_as_string_dtype",
          "cast_string", "unicode_decode_strict", "unicode_encode_strict",
          "format_count_mismatch"}


# programs whose results need NumPy: a RaggedTensor's repr is laid out by numpy.array2string, as in TensorFlow
# (without NumPy it prints its to_list())
NUMPY_ONLY = {"ragged_repr"}


@pytest.fixture(scope="module")
def results() -> tuple:
    return run_tensorflow(PROGRAMS), run_webflow(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_tensorflow(results: tuple, name: str) -> None:
    expected, got = results[0][name], results[1][name]
    if name in ERRORS:
        assert same_error(got, expected), f"{name}: webflow {got} vs TensorFlow {expected}"
    else:
        assert not (isinstance(expected, dict) and "error" in expected), f"{name}: TensorFlow raised {expected}"
        assert got == expected, f"{name}: webflow {got} vs TensorFlow {expected}"


def test_without_numpy_too(results: tuple) -> None:
    """The same programs in a child with NumPy blocked (as in Pyodide): the same results as with NumPy."""
    plain = results[1]
    portable = run_webflow(PROGRAMS, no_numpy=True)
    different = {name: (portable[name], plain[name]) for name in PROGRAMS
                 if portable[name] != plain[name] and name not in NUMPY_ONLY}
    assert not different, different
