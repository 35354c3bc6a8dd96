"""Fuzzed GraphDef / MetaGraphDef / SavedModel files: import_graph_def, import_meta_graph and saved_model.load
must answer damage as TensorFlow does (protobuf's DecodeError for bytes that are no proto, ValueError from the
importer, an OpError or OSError naming the file), never an IndexError, KeyError, struct.error or MemoryError."""

from __future__ import annotations

import shutil

import pytest
from fuzz_support import corpus_files, expect_clean, mutated
from google.protobuf.message import DecodeError
from hypothesis import given

import webflow as wf
import webflow.compat.v1 as tf
from webflow.framework import errors

ALLOWED = (errors.OpError, ValueError, DecodeError, OSError)
# saved_model.load's deliberate answer when damage makes a TF2 SavedModel look like one webflow cannot load.
SAVED_MODEL_ALLOWED = ALLOWED + (NotImplementedError,)


def _graph_seed() -> tuple[bytes, bytes]:
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.nn.relu(tf.matmul(x, w) + tf.constant([1.0, -1.0]), name="y")
        tf.add_to_collection("outputs", y)
        meta = tf.train.export_meta_graph()
        return graph.as_graph_def().SerializeToString(), meta.SerializeToString()


GRAPH, META = _graph_seed()


def _import_graph(data: bytes) -> None:
    graph_def = tf.GraphDef.FromString(data)
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")


def _import_meta(path: str) -> None:
    with tf.Graph().as_default():
        try:
            tf.train.import_meta_graph(path)
        except KeyError as error:
            # TensorFlow's own answer to a collection naming a node or tensor the graph lacks: as_graph_element's
            # KeyError, every message of which starts "The name " and the name's repr ('...', or "..." around a ')
            if not str(error.args[0]).startswith("The name "):
                raise


@given(mutated(GRAPH))
def test_mutated_graph_def(data):
    expect_clean(lambda: _import_graph(data), ALLOWED)


def test_mutated_meta_graph(tmp_path):
    @given(mutated(META))
    def check(data):
        path = tmp_path / "model.meta"
        path.write_bytes(data)
        expect_clean(lambda: _import_meta(str(path)), ALLOWED)

    check()


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sm") / "model"

    class Doubler(wf.Module):
        def __init__(self):
            super().__init__()
            self.scale = wf.Variable(2.0)

        @wf.function(input_signature=[wf.TensorSpec([None], wf.float32)])
        def __call__(self, x):
            return x * self.scale

    wf.saved_model.save(Doubler(), str(folder))
    return folder


def test_mutated_saved_model_pb(tmp_path, saved_model):
    seed = (saved_model / "saved_model.pb").read_bytes()
    target = tmp_path / "model"
    shutil.copytree(saved_model, target)

    @given(mutated(seed))
    def check(data):
        (target / "saved_model.pb").write_bytes(data)
        expect_clean(lambda: wf.saved_model.load(str(target)), SAVED_MODEL_ALLOWED)

    check()


@pytest.mark.parametrize("path", corpus_files("graph_def"), ids=lambda p: p.name)
def test_graph_def_corpus(path):
    expect_clean(lambda: _import_graph(path.read_bytes()), ALLOWED)


@pytest.mark.parametrize("path", corpus_files("meta_graph"), ids=lambda p: p.name)
def test_meta_graph_corpus(path):
    expect_clean(lambda: _import_meta(str(path)), ALLOWED)


@pytest.mark.parametrize("path", corpus_files("saved_model"), ids=lambda p: p.name)
def test_saved_model_corpus(tmp_path, saved_model, path):
    target = tmp_path / "model"
    shutil.copytree(saved_model, target)
    (target / "saved_model.pb").write_bytes(path.read_bytes())
    expect_clean(lambda: wf.saved_model.load(str(target)), SAVED_MODEL_ALLOWED)
