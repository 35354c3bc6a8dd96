"""String tensors in the notebook graph view (webflow.lab): a graph with string constants, string ops and a
vocabulary table becomes a JSON document whose Const nodes show their (shortened) bytes and dtype `string`."""

import json

import webflow.compat.v1 as tf
from webflow.lab.graph_document import graph_document


def test_string_constants_and_ops_in_the_graph_document() -> None:
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(["hello", "wörld"], name="words")
        tf.constant("x" * 500, name="long_text")
        lines = tf.placeholder(tf.string, [None], name="lines")
        table = tf.contrib.lookup.index_table_from_tensor(["a", "b"])
        table.lookup(tf.string_split(lines).values)
    document = json.loads(json.dumps(graph_document(graph)))  # (JSON all the way: bytes must not leak through)
    nodes = {node["name"]: node for node in document["nodes"]}
    assert nodes["words"]["attrs"]["value"] == "[b'hello', b'w\\xc3\\xb6rld'] string"
    long_text = nodes["long_text"]["attrs"]["value"]
    assert long_text.endswith("... string") and len(long_text) < 100
    assert nodes["lines"]["outputs"][0]["dtype"] == "string"
    types = {node["type"] for node in document["nodes"]}
    assert {"StringSplit", "HashTableV2", "LookupTableImportV2", "LookupTableFindV2"} <= types
