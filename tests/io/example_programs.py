"""One TF2 program run twice: under TensorFlow 2.21 (the oracle interpreter, WEBFLOW_TF_PYTHON) and under webflow
(`import webflow as tf`), so tests/io/test_example_tf.py can compare every result and error message.

It builds tf.train.Example / SequenceExample messages (their serialized bytes as hex), parses records with
tf.io.parse_example / parse_single_example / parse_(single_)sequence_example (including the records the *other*
engine serialized: OTHER_RECORDS, hex, filled in by the test), decodes raw bytes and CSV, turns SparseTensors dense
and reads a missing file. Each case gives {"ok": value} or {"error": class name, "message": text}; TensorFlow's
"{{function_node ...}} " prefix and " [Op:...]" suffix are cut off, as webflow's eager errors have neither.
"""

HEADER = {
    "tensorflow": "import tensorflow as tf\ntf1 = tf.compat.v1\n",
    "webflow": "import webflow as tf\nimport webflow.compat.v1 as tf1\n",
}

PROGRAM = r'''
import numpy as np

def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "dense_shape"):
        return {"indices": plain(value.indices), "values": plain(value.values), "dense_shape": plain(value.dense_shape)}
    if hasattr(value, "numpy"):
        value = value.numpy()
    if isinstance(value, (np.ndarray, np.generic)):
        flat = value.reshape(-1).tolist()
        flat = [v.hex() if isinstance(v, bytes) else v for v in flat]
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": flat}
    if isinstance(value, bytes):
        return value.hex()
    return value

def clean(message):
    message = message.split("}} ", 1)[-1] if message.startswith("{{function_node") else message
    return message.split(" [Op:")[0]

def run(function):
    try:
        return {"ok": plain(function())}
    except Exception as error:  # the class and message are what is compared
        return {"error": type(error).__name__, "message": clean(str(getattr(error, "message", error)))}

T = tf.train

def feature(values):
    if values is None:
        return T.Feature()
    if not values:  # an empty list: an int64_list with no values
        return T.Feature(int64_list=T.Int64List())
    if values and isinstance(values[0], float):
        return T.Feature(float_list=T.FloatList(value=values))
    if values and isinstance(values[0], int):
        return T.Feature(int64_list=T.Int64List(value=values))
    return T.Feature(bytes_list=T.BytesList(value=values))

def example_message(**features):
    return T.Example(features=T.Features(feature={k: feature(v) for k, v in features.items()}))

def example(**features):
    return example_message(**features).SerializeToString()

def sequence_message(context, lists):
    message = T.SequenceExample(context=T.Features(feature={k: feature(v) for k, v in context.items()}))
    for key, rows in lists.items():
        message.feature_lists.feature_list[key].CopyFrom(T.FeatureList(feature=[feature(r) for r in rows]))
    return message

def sequence_example(context, lists):
    return sequence_message(context, lists).SerializeToString()

FL, FS, VL = tf.io.FixedLenFeature, tf.io.FixedLenSequenceFeature, tf.io.VarLenFeature
RECORDS = [
    example(image=[0.0, 0.5, 1.0, -2.25], label=[7], name=[b"seven"], ids=[1, -2, 1 << 40]),
    example(image=[1.0, 2.0, 3.0, 4.0], label=[3], ids=[]),
    example(image=[9.5, 0.0, 0.0, 1e-30], label=[0], name=[b"", "\u00e9t\u00e9".encode()], extra=[1.5]),
]
SEQUENCES = [
    sequence_example({"length": [3], "tags": [b"a", b"bc"]},
                     {"tokens": [[1], [2], [3]], "frames": [[1.0, 2.0], [3.0, 4.0]],
                      "words": [[b"x", b"y"], None, [b"z"]]}),
    sequence_example({"length": [1]}, {"tokens": [[5]], "words": [[b"w"]]}),
]
FEATURES = {"image": FL([2, 2], tf.float32), "label": FL([], tf.int64), "name": VL(tf.string),
            "ids": VL(tf.int64), "missing": FL([2], tf.float32, default_value=[-1.0, -2.0]),
            "title": FL([], tf.string, default_value="none")}
CONTEXT = {"length": FL([], tf.int64), "tags": VL(tf.string), "rate": FL([], tf.float32, default_value=0.5)}
LISTS = {"tokens": FS([], tf.int64), "frames": FS([2], tf.float32, allow_missing=True), "words": VL(tf.string)}

result = {}
# A map's entries come out in protobuf's hash order, which differs from process to process in TensorFlow itself:
# messages with several keys are compared in deterministic (sorted-key) serialization, one-key messages as they are.
result["bytes"] = [r.hex() for r in RECORDS] + [s.hex() for s in SEQUENCES]
result["deterministic_bytes"] = [
    type(m).FromString(r).SerializeToString(deterministic=True).hex()
    for m, r in zip([T.Example()] * len(RECORDS) + [T.SequenceExample()] * len(SEQUENCES), RECORDS + SEQUENCES)]
result["one_key_bytes"] = [example(a=v).hex() for v in ([1.5, -0.0, 3e38], [0, 1, -1, 127, 128, 1 << 62, -(1 << 63)],
                                                        [b"", b"\x00\xff", "\u00fc".encode()], [], None)]
result["sequence_one_key_bytes"] = sequence_example({"c": [1]}, {"f": [[1.0], [], [2.0, 3.0]]}).hex()
result["parse_example"] = run(lambda: tf.io.parse_example(RECORDS, FEATURES))
result["parse_example_other"] = run(lambda: tf.io.parse_example([bytes.fromhex(h) for h in OTHER_RECORDS],
                                                                FEATURES))
result["parse_empty_batch"] = run(lambda: tf.io.parse_example(tf.constant([], dtype=tf.string), FEATURES))
result["parse_named_batch"] = run(lambda: tf.io.parse_example(RECORDS, FEATURES, example_names=["r0", "r1", "r2"]))
result["parse_single_example"] = [run(lambda r=r: tf.io.parse_single_example(r, FEATURES)) for r in RECORDS]
result["parse_uniform_batch"] = run(lambda: tf.io.parse_example(
    [example(image=[float(i), 0.5, -1.0, 2.0], label=[i * 50]) for i in range(6)],
    {"image": FL([4], tf.float32), "label": FL([], tf.int64)}))
result["parse_sequence_feature"] = run(lambda: tf.io.parse_example(
    [example(x=[1.0, 2.0, 3.0, 4.0]), example(x=[5.0, 6.0]), example(y=[b"q"])],
    {"x": FS([2], tf.float32, allow_missing=True, default_value=-1.0), "y": FS([], tf.string, allow_missing=True)}))
result["parse_single_sequence_example"] = [
    run(lambda s=s: tf.io.parse_single_sequence_example(s, CONTEXT, LISTS)) for s in SEQUENCES]
result["parse_sequence_example"] = run(lambda: tf.io.parse_sequence_example(SEQUENCES, CONTEXT, LISTS))

ERRORS = [
    ([example(b=[1])], {"a": FL([], tf.float32)}),
    ([example(a=[1.0]), example(b=[1])], {"a": FL([], tf.float32)}),
    ([example(a=[1])], {"a": FL([], tf.float32)}),
    ([example(a=[b"x"])], {"a": FL([], tf.int64)}),
    ([example(a=[1.0, 2.0, 3.0])], {"a": FL([2], tf.float32)}),
    ([example(a=[1.0, 2.0]), example(a=[1])], {"a": FL([2], tf.float32)}),
    ([example(a=[1.0])], {"a": FL([2], tf.float32)}),
    ([example(a=[b"x", b"y"])], {"a": FL([], tf.string)}),
    ([example(a=[1, 2, 3])], {"a": FL([2], tf.int64)}),
    ([example(a=[1])], {"a": VL(tf.float32)}),
    ([example(a=None)], {"a": FL([], tf.float32)}),
    ([example(a=[1.0, 2.0, 3.0])], {"a": FS([2], tf.float32, allow_missing=True)}),
    ([b"\x0a\x05abc"], {"a": FL([], tf.float32)}),
    ([example(a=[1.0]), b"\x0a\x02\x0a"], {"a": FL([], tf.float32)}),
]
result["errors_batch"] = [run(lambda r=r, f=f: tf.io.parse_example(r, f)) for r, f in ERRORS]
result["errors_single"] = [run(lambda r=r, f=f: tf.io.parse_single_example(r[-1], f)) for r, f in ERRORS]
result["error_names"] = run(lambda: tf.io.parse_example([example(b=[1])], {"a": FL([], tf.float32)},
                                                        example_names=["first"]))

SEQUENCE_ERRORS = [
    ({"nope": FL([], tf.int64)}, {}), ({"length": FL([], tf.float32)}, {}), ({"length": FL([2], tf.int64)}, {}),
    ({"tags": VL(tf.int64)}, {}), ({}, {"nope": FS([], tf.int64)}), ({}, {"tokens": FS([], tf.float32)}),
    ({}, {"frames": FS([3], tf.float32)}), ({}, {"words": FS([], tf.string)}), ({}, {"words": VL(tf.int64)}),
]
result["sequence_errors"] = [run(lambda c=c, s=s: tf.io.parse_single_sequence_example(SEQUENCES[0], c, s))
                             for c, s in SEQUENCE_ERRORS]
result["sequence_corrupt"] = run(lambda: tf.io.parse_single_sequence_example(b"\x0a\x05ab", CONTEXT, {}))

RAW = [bytes(range(8)), bytes(range(8, 16))]
result["decode_raw"] = [run(lambda t=t, e=e: tf.io.decode_raw(RAW, t, little_endian=e))
                        for t in (tf.uint8, tf.int16, tf.uint16, tf.int32, tf.float16, tf.float32, tf.int64,
                                  tf.float64, tf.bool)
                        for e in (True, False)]
result["decode_raw_cases"] = [
    run(lambda: tf.io.decode_raw(RAW[0], tf.int32)),
    run(lambda: tf.io.decode_raw([[RAW[0]], [RAW[1]]], tf.int16)),
    run(lambda: tf.io.decode_raw([b"\x01\x02\x03\x04", b"\x01\x02"], tf.int16)),
    run(lambda: tf.io.decode_raw([b"\x01\x02\x03"], tf.int16)),
    run(lambda: tf.io.decode_raw([b"\x01\x02\x03\x04", b"\x01\x02"], tf.int16, fixed_length=6)),
    run(lambda: tf.io.decode_raw([b"\x01\x02\x03\x04"], tf.int16, fixed_length=3)),
]

CSV = [
    (["1,2.5,a", "3,,b"], [[0], [1.0], ["x"]], {}),
    (["1,,a"], [[0], [], ["x"]], {}),
    (["1,2"], [[0], [1.0], ["x"]], {}),
    (["1,2,3,4"], [[0], [1.0], ["x"]], {}),
    (["x,2,3"], [[0], [1.0], ["x"]], {}),
    (["1,y,3"], [[0], [1.0], ["x"]], {}),
    (["1,2,y"], [[0], [1], [tf.constant(0, tf.int64)]], {}),
    (["1,2,y"], [[0], [1], [tf.constant(0.0, tf.float64)]], {}),
    (['1,"a,b",3', '2,"say ""hi""",4'], [[0], ["x"], [0]], {}),
    (['1,"a b",3'], [[0], ["x"], [0]], {"use_quote_delim": False}),
    (['1,"a"b,3'], [[0], ["x"], [0]], {}),
    (['1,"ab,3'], [[0], ["x"], [0]], {}),
    (["1|2"], [[0], [0]], {"field_delim": "|"}),
    (["1,NA", "NA,3"], [[7], [8]], {"na_value": "NA"}),
    (["1,2,3,4"], [[0], [0]], {"select_cols": [1, 3]}),
    (["12345678901234"], [tf.constant([0], tf.int64)], {}),
    (["12345678901234"], [[0]], {}),
    ([" 1, 2.5 ,a ", "+5,-1e3, "], [[0], [1.0], ["x"]], {}),
    ([""], [[0], [1]], {}),
    (["1,"], [[0], [4]], {}),
    (["inf,nan,-inf,1e40"], [[0.0], [0.0], [0.0], [0.0]], {}),
    (["0x10,1.0"], [[0], [0]], {}),
    ([["1,2"], ["3,4"]], [[0], [0]], {}),
]
result["decode_csv"] = [run(lambda r=r, d=d, k=k: tf.io.decode_csv(r, d, **k)) for r, d, k in CSV]

SPARSE = [([[0, 1], [1, 2]], [1.0, 2.0], [2, 3]), ([[0, 1], [0, 5]], [1.0, 2.0], [2, 3]),
          ([[0, 1], [0, 0]], [1.0, 2.0], [2, 3]), ([[0, 1], [0, 1]], [1.0, 2.0], [2, 3]),
          ([[1, 0], [-1, 0]], [1.0, 2.0], [2, 3])]
result["to_dense"] = [run(lambda i=i, v=v, s=s: tf.sparse.to_dense(tf.sparse.SparseTensor(i, v, s), default_value=-1.0))
                      for i, v, s in SPARSE]
result["to_dense_unvalidated"] = [run(lambda i=i, v=v, s=s: tf.sparse.to_dense(
    tf.sparse.SparseTensor(i, v, s), validate_indices=False)) for i, v, s in SPARSE]
result["reorder"] = run(lambda: tf.sparse.reorder(tf.sparse.SparseTensor([[2, 1], [0, 2], [1, 0], [0, 1]],
                                                                         [1, 2, 3, 4], [3, 3])))
TENSORS = [tf.constant([[1.5, 2.0]]), tf.constant(3), tf.constant([b"a", b"bc\x00"]), tf.constant([], tf.int64),
           tf.constant([True, False]), tf.constant(np.array([1, 2], np.uint8)), tf.constant(np.float16(1.5))]
result["serialize_tensor"] = [run(lambda t=t: tf.io.serialize_tensor(t)) for t in TENSORS]
result["parse_tensor"] = [run(lambda t=t: tf.io.parse_tensor(tf.io.serialize_tensor(t), t.dtype)) for t in TENSORS]
result["parse_tensor_errors"] = [run(lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant([1.0])), tf.int32)),
                                 run(lambda: tf.io.parse_tensor(tf.io.serialize_tensor(tf.constant(1.0, tf.float64)),
                                                                tf.float32)),
                                 run(lambda: tf.io.parse_tensor(b"\xff\xff", tf.int32)),
                                 run(lambda: tf.io.parse_tensor([b"a"], tf.int32))]
result["read_missing"] = run(lambda: tf.io.read_file(MISSING_PATH))

def graph_ops(build):
    graph = tf1.Graph()
    with graph.as_default():
        build()
    return sorted([op.name, op.type] for op in graph.get_operations())

result["graph_parse_example"] = graph_ops(lambda: tf.io.parse_example(
    tf1.placeholder(tf.string, [None]), {"a": FL([2], tf.float32, default_value=[1.0, 2.0]), "b": VL(tf.int64),
                                         "c": FL([], tf.string)}))
result["graph_parse_single_example"] = graph_ops(lambda: tf.io.parse_single_example(
    tf1.placeholder(tf.string, []), {"a": FL([2], tf.float32), "b": VL(tf.int64)}))
result["graph_parse_single_sequence_example"] = graph_ops(lambda: tf.io.parse_single_sequence_example(
    tf1.placeholder(tf.string, []), {"n": FL([], tf.int64), "v": VL(tf.string)},
    {"tok": FS([], tf.int64), "w": VL(tf.float32), "img": FS([2], tf.float32, allow_missing=True)}))
result["graph_files"] = graph_ops(lambda: [tf.io.read_file("x"), tf.io.write_file("y", "z"),
                                           tf.io.decode_raw(tf1.placeholder(tf.string, [None]), tf.int16),
                                           tf.sparse.to_dense(tf.sparse.SparseTensor([[0]], [1.0], [2]))])
'''


def source(framework: str, other_records: list, missing_path: str) -> str:
    """The program for `framework` ("tensorflow" or "webflow"), with the other engine's records (hex) and a path
    that does not exist."""
    return (HEADER[framework] + f"OTHER_RECORDS = {other_records!r}\nMISSING_PATH = {missing_path!r}\n" + PROGRAM)
