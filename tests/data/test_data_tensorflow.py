"""tf.data programs run by real TensorFlow 2.21 and by webflow: the same elements, in the same order.

Each row is one program (source using `tf`, `np`, `tmp`), run eagerly (TF2: `import tensorflow as tf`) or in a
TF1 graph (`tensorflow.compat.v1` with Session), whose `result` must be equal in both engines (an exception
must be of the same type). Seeded shuffles are compared element for element: webflow's shuffle draws
TensorFlow's Philox numbers (ops/dataset_shuffle.py), so those orders are TF-exact; unseeded shuffles only
as multisets (sorted).
"""

import os
import tempfile

import pytest
from data_oracle import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow, same

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

EAGER = {
    # --- sources
    "slices_tuple": "result = list(tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4., 5., 6.])).as_numpy_iterator())",
    "slices_dict": "result = list(tf.data.Dataset.from_tensor_slices({'a': [[1, 2], [3, 4]], 'b': ['x', 'y']})"
                   ".as_numpy_iterator())",
    "slices_nested": "result = list(tf.data.Dataset.from_tensor_slices(((np.arange(4), {'z': np.ones((4, 2))}), "
                     "np.arange(4) * 2.5)).as_numpy_iterator())",
    "slices_spec": "result = repr(tf.data.Dataset.from_tensor_slices({'a': np.zeros((3, 2), np.float32), "
                   "'b': [1, 2, 3]}).element_spec)",
    "tensors": "d = tf.data.Dataset.from_tensors(([1, 2], 'a')); result = [list(d.as_numpy_iterator()), "
               "repr(d.element_spec)]",
    "range_forms": "result = [list(tf.data.Dataset.range(4).as_numpy_iterator()), "
                   "list(tf.data.Dataset.range(2, 9, 3).as_numpy_iterator()), "
                   "list(tf.data.Dataset.range(5, 1, -2).as_numpy_iterator()), "
                   "repr(tf.data.Dataset.range(3, output_type=tf.int32).element_spec)]",
    "zip_nested": "a = tf.data.Dataset.range(3); b = tf.data.Dataset.range(10, 20)\n"
                  "d = tf.data.Dataset.zip((a, (b, a.map(lambda x: x * 2))))\n"
                  "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "generator_types": "def gen():\n    for i in range(3):\n        yield i, [i] * i\n"
                       "d = tf.data.Dataset.from_generator(gen, (tf.int64, tf.float32), (tf.TensorShape([]), "
                       "tf.TensorShape([None])))\nresult = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "generator_signature": "def gen():\n    yield {'a': 1, 'b': b'x'}\n    yield {'a': 2, 'b': b'yy'}\n"
                           "d = tf.data.Dataset.from_generator(gen, output_signature={'a': tf.TensorSpec((), "
                           "tf.int32), 'b': tf.TensorSpec((), tf.string)})\n"
                           "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "generator_args": "d = tf.data.Dataset.from_generator(lambda n: range(n), tf.int64, args=(4,))\n"
                      "result = list(d.as_numpy_iterator())",
    "generator_raises": "def gen():\n    yield 1\n    raise ValueError('boom')\n"
                        "result = list(tf.data.Dataset.from_generator(gen, tf.int32).as_numpy_iterator())",
    "generator_bad_shape": "result = list(tf.data.Dataset.from_generator(lambda: [[1, 2]], tf.int32, "
                           "tf.TensorShape([3])).as_numpy_iterator())",
    # --- transformations
    "map_structure": "d = tf.data.Dataset.range(4).map(lambda x: {'sq': x * x, 'f': (tf.cast(x, tf.float32), "
                     "x + 1)})\n"
                     "result = [list(d.as_numpy_iterator())[:2], list(d.element_spec)]",
    "map_tuple_args": "d = tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a * 10 + b, "
                      "num_parallel_calls=tf.data.AUTOTUNE)\nresult = list(d.as_numpy_iterator())",
    "map_capture": "w = tf.constant([2.0, 3.0])\nd = tf.data.Dataset.from_tensor_slices([[1., 1.], [2., 0.]]).map("
                   "lambda r: tf.reduce_sum(r * w))\nresult = list(d.as_numpy_iterator())",
    # a random op inside map: one stream per place in the iterator's tree (epochs of a repeat continue it)
    "map_random_streams": "e = tf.data.Dataset.range(2).map(lambda x: tf.random.uniform([], seed=1))\n"
                          "r = lambda d: list(d.as_numpy_iterator())\n"
                          "result = [r(e.repeat(2)), r(e.repeat(2)), r(e.concatenate(e)), "
                          "r(tf.data.Dataset.zip((e, e))), r(e.concatenate(e).repeat(2)), "
                          "r(tf.data.Dataset.range(2).flat_map(lambda i: e)), "
                          "r(tf.data.Dataset.range(2).interleave(lambda i: e, cycle_length=2))]",
    "filter": "result = list(tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0).as_numpy_iterator())",
    "filter_bad": "tf.data.Dataset.range(3).filter(lambda x: x)\nresult = 1",
    "batch": "d = tf.data.Dataset.range(7).batch(3)\nresult = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "batch_drop": "d = tf.data.Dataset.range(7).batch(3, drop_remainder=True)\n"
                  "result = [list(d.as_numpy_iterator()), repr(d.element_spec), int(d.cardinality())]",
    "padded_batch": "d = tf.data.Dataset.range(1, 5).map(lambda x: tf.fill(tf.expand_dims(x, 0), x)).padded_batch(2)\n"
                    "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "padded_batch_shapes": "d = tf.data.Dataset.range(1, 4).map(lambda x: (tf.fill(tf.expand_dims(x, 0), x), "
                           "tf.fill(tf.stack([tf.constant(2, tf.int64), x]), 'a')))"
                           ".padded_batch(2, padded_shapes=([4], [2, None]), padding_values=(tf.constant(-1, "
                           "tf.int64), 'p'))\nresult = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "unbatch": "d = tf.data.Dataset.from_tensors((np.arange(6).reshape(3, 2), ['a', 'b', 'c'])).unbatch()\n"
               "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "repeat_take_skip": "d = tf.data.Dataset.range(3).repeat(3).skip(2).take(5)\n"
                        "result = [list(d.as_numpy_iterator()), int(d.cardinality())]",
    "shard": "d = tf.data.Dataset.range(10).shard(3, 2)\nresult = [list(d.as_numpy_iterator()), int(d.cardinality())]",
    "error_shard_index": "result = list(tf.data.Dataset.range(10).shard(3, 5).as_numpy_iterator())",
    "concatenate": "d = tf.data.Dataset.range(2).concatenate(tf.data.Dataset.range(5, 7))\n"
                   "result = [list(d.as_numpy_iterator()), int(d.cardinality())]",
    "concatenate_shapes": "a = tf.data.Dataset.from_tensors([1, 2]); b = tf.data.Dataset.from_tensors([3])\n"
                          "result = repr(a.concatenate(b).element_spec)",
    "flat_map": "d = tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x))\n"
                "result = list(d.as_numpy_iterator())",
    "interleave": "d = tf.data.Dataset.range(1, 6).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(x), "
                  "cycle_length=2, block_length=2)\nresult = list(d.as_numpy_iterator())",
    "interleave_3_1": "d = tf.data.Dataset.range(4).interleave(lambda x: tf.data.Dataset.range(x * 10, x * 10 + 3), "
                      "cycle_length=3, block_length=1)\nresult = list(d.as_numpy_iterator())",
    "window": "d = tf.data.Dataset.range(7).window(3, shift=2, stride=2)\n"
              "result = [[list(w.as_numpy_iterator()) for w in d], repr(d.element_spec)]",
    "window_drop_flat": "d = tf.data.Dataset.range(10).window(4, 3, drop_remainder=True).flat_map(lambda w: "
                        "w.batch(4))\nresult = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "window_tuple": "d = tf.data.Dataset.from_tensor_slices((np.arange(5), np.arange(5) * 2.0)).window(2)\n"
                    "d = d.flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))\n"
                    "result = list(d.as_numpy_iterator())",
    "window_ragged_padded": "d = tf.data.Dataset.range(5).map(lambda x: tf.range(x)).window(2)"
                            ".flat_map(lambda w: w.padded_batch(2))\n"
                            "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]",
    "enumerate": "result = list(tf.data.Dataset.from_tensor_slices(['a', 'b']).enumerate(start=5)"
                 ".as_numpy_iterator())",
    "apply": "result = list(tf.data.Dataset.range(5).apply(lambda d: d.skip(3)).as_numpy_iterator())",
    "prefetch_cache": "d = tf.data.Dataset.range(5).map(lambda x: x + 1).cache().prefetch(tf.data.AUTOTUNE)\n"
                      "result = [list(d.as_numpy_iterator()), list(d.as_numpy_iterator())]",
    "cache_file": "import os\nd = tf.data.Dataset.range(4).cache(os.path.join(tmp, 'cache_file'))\n"
                  "result = [list(d.as_numpy_iterator()), list(d.as_numpy_iterator())]",
    "reduce": "result = [tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x), "
              "tf.data.Dataset.range(4).reduce((np.int64(0), 1.0), lambda s, x: (s[0] + x, s[1] * 2.0))]",
    "cardinality": "r = tf.data.Dataset.range(10)\nresult = [int(r.cardinality()), int(r.repeat().cardinality()), "
                   "int(r.filter(lambda x: x > 2).cardinality()), int(r.batch(3).cardinality()), len(r.take(4)), "
                   "tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY, tf.data.experimental.AUTOTUNE]",
    "len_infinite": "len(tf.data.Dataset.range(3).repeat())\nresult = 1",
    "get_single_element": "result = tf.data.Dataset.from_tensors({'a': [1, 2]}).get_single_element()",
    "iterator_get_next_end": "it = iter(tf.data.Dataset.range(1))\nnext(it)\n"
                             "result = it.get_next()",
    "for_loop": "result = [int(x) for x in tf.data.Dataset.range(3)]",
    # --- seeded shuffles: TensorFlow's exact order
    "shuffle_seed": "d = tf.data.Dataset.range(20).shuffle(5, seed=42)\n"
                    "result = [list(d.as_numpy_iterator()), list(d.as_numpy_iterator())]",
    "shuffle_full_buffer": "result = list(tf.data.Dataset.range(10).shuffle(10, seed=1).as_numpy_iterator())",
    "shuffle_repeat": "result = list(tf.data.Dataset.range(6).shuffle(4, seed=9).repeat(3).as_numpy_iterator())",
    "shuffle_no_reshuffle": "d = tf.data.Dataset.range(8).shuffle(3, seed=2, reshuffle_each_iteration=False)\n"
                            "result = [list(d.as_numpy_iterator()), list(d.repeat(2).as_numpy_iterator())]",
    "shuffle_global_seed": "tf.random.set_seed(7)\nresult = list(tf.data.Dataset.range(10).shuffle(4, seed=3)"
                           ".as_numpy_iterator())",
    "shuffle_batch_map": "d = tf.data.Dataset.range(12).shuffle(6, seed=11).map(lambda x: x * 2).batch(4)\n"
                         "result = list(d.as_numpy_iterator())",
    "shuffle_and_repeat_fused": "x = tf.data.experimental\n"
                                "d = tf.data.Dataset.range(10).apply(x.shuffle_and_repeat(4, 3, seed=5))\n"
                                "result = list(d.as_numpy_iterator())",
    "map_and_batch_interleave": "x = tf.data.experimental\n"
                                "d = tf.data.Dataset.range(7).apply(x.map_and_batch(lambda v: v * 2, 3, "
                                "drop_remainder=True))\ne = tf.data.Dataset.range(3).apply(x.parallel_interleave("
                                "lambda v: tf.data.Dataset.range(v), cycle_length=2))\n"
                                "result = [list(d.as_numpy_iterator()), list(e.as_numpy_iterator())]",
    "shuffle_unseeded_multiset": "result = sorted(tf.data.Dataset.range(30).shuffle(7).as_numpy_iterator())",
    # --- files
    "tfrecord_compressions": (
        "import os\nout = []\nfor kind in ['', 'GZIP', 'ZLIB']:\n"
        "    path = os.path.join(tmp, 'r' + kind + '.tfrecord')\n"
        "    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions(compression_type=kind)) as w:\n"
        "        for i in range(4):\n            w.write(b'rec%d' % i * (i + 1))\n"
        "    out.append(list(tf.data.TFRecordDataset(path, compression_type=kind).as_numpy_iterator()))\n"
        "result = out"),
    "tfrecord_parallel_reads": (
        "import os\npaths = []\nfor f in range(3):\n    path = os.path.join(tmp, 'p%d.tfrecord' % f)\n"
        "    paths.append(path)\n    with tf.io.TFRecordWriter(path) as w:\n"
        "        for i in range(f + 2):\n            w.write(b'%d-%d' % (f, i))\n"
        "result = [list(tf.data.TFRecordDataset(paths).as_numpy_iterator()), "
        "list(tf.data.TFRecordDataset(paths, num_parallel_reads=2).as_numpy_iterator())]"),
    "text_lines": (
        "import os\npath = os.path.join(tmp, 'lines.txt')\nopen(path, 'wb').write(b'one\\ntwo\\r\\n\\nlast')\n"
        "path2 = os.path.join(tmp, 'lines2.txt')\nopen(path2, 'wb').write(b'x\\ny\\n')\n"
        "result = list(tf.data.TextLineDataset([path, path2]).as_numpy_iterator())"),
    "fixed_length": (
        "import os\npath = os.path.join(tmp, 'fixed.bin')\nopen(path, 'wb').write(bytes(range(23)))\n"
        "d = tf.data.FixedLengthRecordDataset(path, 6, header_bytes=3, footer_bytes=2)\n"
        "result = list(d.as_numpy_iterator())"),
    "fixed_length_ragged_body": (
        "import os\npath = os.path.join(tmp, 'ragged.bin')\nopen(path, 'wb').write(bytes(range(23)))\n"
        "result = list(tf.data.FixedLengthRecordDataset(path, 4, header_bytes=3, footer_bytes=2).as_numpy_iterator())"),
    "csv_defaults_quotes": (
        "import os\npath = os.path.join(tmp, 'a.csv')\n"
        "open(path, 'w').write('x,y,name\\n1,2.5,\"a,b\"\\n3,,c\\n-7,1e3,NA\\n')\n"
        "d = tf.data.experimental.CsvDataset(path, [tf.int32, 0.5, 'zz'], header=True, na_value='NA')\n"
        "result = [list(d.as_numpy_iterator()), repr(d.element_spec)]"),
    "csv_select_cols_delim": (
        "import os\npath = os.path.join(tmp, 'b.csv')\nopen(path, 'w').write('1;2;3\\n4;5;6\\n')\n"
        "d = tf.data.experimental.CsvDataset(path, [tf.int64, tf.float64], field_delim=';', select_cols=[0, 2])\n"
        "result = list(d.as_numpy_iterator())"),
    "csv_missing_required": (
        "import os\npath = os.path.join(tmp, 'c.csv')\nopen(path, 'w').write('1,\\n')\n"
        "result = list(tf.data.experimental.CsvDataset(path, [tf.int32, tf.int32]).as_numpy_iterator())"),
    "csv_bad_number": (
        "import os\npath = os.path.join(tmp, 'd.csv')\nopen(path, 'w').write('1,x\\n')\n"
        "result = list(tf.data.experimental.CsvDataset(path, [tf.int32, tf.int32]).as_numpy_iterator())"),
    "list_files": (
        "import os\nfor n in ['b.txt', 'a.txt', 'c.dat']:\n    open(os.path.join(tmp, 'lf_' + n), 'w').close()\n"
        "pattern = os.path.join(tmp, 'lf_*.txt')\n"
        "names = lambda d: [os.path.basename(p.decode()) for p in d.as_numpy_iterator()]\n"
        "result = [names(tf.data.Dataset.list_files(pattern, shuffle=False)), "
        "sorted(names(tf.data.Dataset.list_files(pattern)))]"),
    # --- errors: the same exception type as TensorFlow (at build time, or at get_next)
    "error_map_object": "tf.data.Dataset.range(3).map(lambda x: (x, object()))\nresult = 1",
    "error_reduce_state_type": "tf.data.Dataset.range(3).reduce(np.int64(0), lambda s, x: tf.cast(x, tf.float32))\n"
                               "result = 1",
    "error_concatenate_types": "tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors(1.0))\nresult = 1",
    "error_slices_scalar": "tf.data.Dataset.from_tensor_slices(1)\nresult = 1",
    "error_slices_sizes": "tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))\nresult = 1",
    "error_batch_ragged": "result = list(tf.data.Dataset.range(1, 4).map(lambda x: tf.range(x)).batch(2)"
                          ".as_numpy_iterator())",
    "error_single_element_two": "result = tf.data.Dataset.range(2).get_single_element()",
    "error_generator_structure": "result = list(tf.data.Dataset.from_generator(lambda: [1], (tf.int32, tf.int32))"
                                 ".as_numpy_iterator())",
    "error_generator_type": "result = list(tf.data.Dataset.from_generator(lambda: ['abc'], tf.int32)"
                            ".as_numpy_iterator())",
    "error_unbatch_scalar": "tf.data.Dataset.range(3).unbatch()\nresult = 1",
    "error_zip_not_dataset": "tf.data.Dataset.zip((tf.data.Dataset.range(2), 3))\nresult = 1",
    "error_numpy_of_windows": "tf.data.Dataset.range(3).window(2).as_numpy_iterator()\nresult = 1",
    "map_returns_list": "result = repr(tf.data.Dataset.range(3).map(lambda x: [x, x]).element_spec)",
}

GRAPH = {
    "initializable_feed": (
        "x = tf.placeholder(tf.float32, [None, 2])\n"
        "it = tf.data.Dataset.from_tensor_slices(x).map(lambda r: r * 2.0).batch(2).make_initializable_iterator()\n"
        "n = it.get_next()\nout = [n.shape.as_list()]\nwith tf.Session() as s:\n"
        "    s.run(it.initializer, {x: np.arange(6, dtype=np.float32).reshape(3, 2)})\n"
        "    out += [s.run(n), s.run(n)]\n"
        "    try:\n        s.run(n)\n    except tf.errors.OutOfRangeError:\n        out.append('end')\n"
        "    s.run(it.initializer, {x: np.ones((1, 2), np.float32)})\n    out.append(s.run(n))\nresult = out"),
    "one_shot": (
        "it = tf.data.make_one_shot_iterator(tf.data.Dataset.range(3).map(lambda v: (v, tf.cast(v, tf.float32))))\n"
        "a, b = it.get_next()\nout = []\nwith tf.Session() as s:\n    out += [s.run([a, b]) for _ in range(3)]\n"
        "    try:\n        s.run(a)\n    except tf.errors.OutOfRangeError:\n        out.append('end')\nresult = out"),
    "one_shot_method_shuffle": (
        "tf.set_random_seed(1)\nn = tf.data.Dataset.range(6).shuffle(6).repeat(2).make_one_shot_iterator()"
        ".get_next()\nwith tf.Session() as s:\n    result = [s.run(n) for _ in range(12)]"),
    "one_shot_seeded": (
        "n = tf.data.Dataset.range(10).shuffle(4, seed=5).make_one_shot_iterator().get_next()\n"
        "with tf.Session() as s:\n    result = [s.run(n) for _ in range(10)]"),
    "reinitialize_shuffle": (
        "it = tf.data.Dataset.range(6).shuffle(6, seed=3).make_initializable_iterator()\nn = it.get_next()\n"
        "out = []\nwith tf.Session() as s:\n    for _ in range(2):\n        s.run(it.initializer)\n"
        "        out.append([s.run(n) for _ in range(6)])\nresult = out"),
    "from_structure": (
        "train = tf.data.Dataset.range(5).map(lambda v: (v, tf.cast(v, tf.float32)))\n"
        "val = tf.data.Dataset.range(10, 12).map(lambda v: (v, tf.cast(v, tf.float32) + 0.5))\n"
        "it = tf.data.Iterator.from_structure(tf.data.get_output_types(train), tf.data.get_output_shapes(train))\n"
        "a, b = it.get_next()\nti, vi = it.make_initializer(train), it.make_initializer(val)\nout = []\n"
        "with tf.Session() as s:\n    s.run(ti)\n    out.append(s.run([a, b]))\n    s.run(vi)\n"
        "    out += [s.run([a, b]), s.run([a, b])]\n"
        "result = [out, tf.data.get_output_types(train), tf.data.get_output_shapes(train), it.output_types]"),
    "from_structure_mismatch": (
        "it = tf.data.Iterator.from_structure(tf.int64)\nit.make_initializer(tf.data.Dataset.range(3).map("
        "lambda x: tf.cast(x, tf.float32)))\nresult = 1"),
    "one_shot_placeholder": (
        "x = tf.placeholder(tf.float32, [3])\ntf.data.make_one_shot_iterator(tf.data.Dataset.from_tensor_slices(x))\n"
        "result = 1"),
    "uninitialized": (
        "it = tf.data.Dataset.range(3).make_initializable_iterator()\nn = it.get_next()\n"
        "with tf.Session() as s:\n    s.run(n)\nresult = 1"),
    "output_properties": (
        "d = tf.data.Dataset.from_tensor_slices({'a': np.zeros((4, 3), np.float32), 'b': [1, 2, 3, 4]}).batch(2)\n"
        "result = [d.output_types, d.output_shapes, sorted(d.output_classes)]"),
    "tfrecord_pipeline": (
        "import os\npath = os.path.join(tmp, 'g.tfrecord')\n"
        "with tf.python_io.TFRecordWriter(path) as w:\n    for i in range(10):\n        w.write(b'r%02d' % i)\n"
        "d = tf.data.TFRecordDataset(path).shuffle(4, seed=8).batch(3).prefetch(1)\n"
        "n = d.make_one_shot_iterator().get_next()\nout = []\nwith tf.Session() as s:\n"
        "    try:\n        while True:\n            out.append(s.run(n))\n"
        "    except tf.errors.OutOfRangeError:\n        pass\nresult = out"),
    "feedable_string_handle": (
        "handle = tf.placeholder(tf.string, shape=[])\ntrain = tf.data.Dataset.range(100).repeat()\n"
        "val = tf.data.Dataset.range(1000, 1003)\nit = tf.data.Iterator.from_string_handle(handle, "
        "tf.data.get_output_types(train), tf.data.get_output_shapes(train))\nn = it.get_next()\n"
        "ti = train.make_one_shot_iterator()\nvi = val.make_initializable_iterator()\nout = []\n"
        "with tf.Session() as s:\n    th, vh = s.run([ti.string_handle(), vi.string_handle()])\n"
        "    out += [s.run(n, {handle: th}), s.run(n, {handle: th})]\n    s.run(vi.initializer)\n"
        "    out += [s.run(n, {handle: vh}), s.run(n, {handle: th})]\nresult = out"),
    "map_random_graph": (
        "n = tf.data.Dataset.range(3).map(lambda x: tf.random_uniform([2], seed=2)).make_one_shot_iterator()"
        ".get_next()\nwith tf.Session() as s:\n    result = [s.run(n) for _ in range(3)]"),
    "map_in_graph_shapes": (
        "d = tf.data.Dataset.from_tensor_slices(np.zeros((4, 3, 2), np.float32)).map(lambda t: tf.reshape(t, [-1]))"
        ".batch(2, drop_remainder=True)\nresult = [d.output_shapes, d.output_types]"),
}


@pytest.fixture(scope="module")
def workdirs():
    with tempfile.TemporaryDirectory() as tf_dir, tempfile.TemporaryDirectory() as wf_dir:
        yield tf_dir, wf_dir


@pytest.fixture(scope="module")
def tensorflow_results(workdirs):
    tf_dir = workdirs[0]
    os.makedirs(os.path.join(tf_dir, "eager"))
    os.makedirs(os.path.join(tf_dir, "graph"))
    return {"eager": run_tensorflow(EAGER, "eager", os.path.join(tf_dir, "eager")),
            "graph": run_tensorflow(GRAPH, "graph", os.path.join(tf_dir, "graph"))}


def _check(mode: str, key: str, source: str, tensorflow_results: dict, workdirs: tuple) -> None:
    folder = os.path.join(workdirs[1], mode)
    os.makedirs(folder, exist_ok=True)
    expected = tensorflow_results[mode][key]
    got = run_webflow(source, mode, folder)
    assert same(got, expected), f"{key}: webflow {got!r}\n TensorFlow {expected!r}"


@pytest.mark.parametrize("key", sorted(EAGER))
def test_eager_program_matches_tensorflow(key, tensorflow_results, workdirs):
    _check("eager", key, EAGER[key], tensorflow_results, workdirs)


@pytest.mark.parametrize("key", sorted(GRAPH))
def test_graph_program_matches_tensorflow(key, tensorflow_results, workdirs):
    _check("graph", key, GRAPH[key], tensorflow_results, workdirs)
