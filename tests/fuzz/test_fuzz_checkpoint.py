"""Fuzzed checkpoints: a damaged `.index` (LevelDB table, io/checkpoint_bundle.py) or `.data-*` file (tensor
bytes, string tensors in io/bundle_strings.py), and a damaged object graph (train/checkpoint.py) must raise
TensorFlow's errors (DataLossError, NotFoundError, ... or the ValueError/AssertionError tf.train.Checkpoint
raises on a mismatch), never leak an IndexError, struct.error, UnicodeDecodeError or MemoryError."""

from __future__ import annotations

import shutil

import pytest
from fuzz_support import corpus_files, expect_clean, mutated
from hypothesis import given

import webflow as wf
from webflow.framework import errors

ALLOWED = (errors.OpError, ValueError)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ckpt")
    root = wf.train.Checkpoint(v=wf.Variable([1.0, 2.0, 3.0]), s=wf.Variable(["ab", "c"]),
                               n=wf.Variable(7, dtype=wf.int64))
    prefix = root.write(str(folder / "ck"))
    return prefix, (folder / "ck.index").read_bytes(), (folder / "ck.data-00000-of-00001").read_bytes()


def _read_all(prefix: str) -> None:
    reader = wf.train.load_checkpoint(prefix)
    for name in reader.get_variable_to_shape_map():
        reader.get_tensor(name)


def _restore(prefix: str) -> None:
    root = wf.train.Checkpoint(v=wf.Variable([0.0, 0.0, 0.0]), s=wf.Variable(["", ""]),
                               n=wf.Variable(0, dtype=wf.int64))
    root.read(prefix).assert_consumed()


def _install(tmp_path, index: bytes, data: bytes) -> str:
    (tmp_path / "ck.index").write_bytes(index)
    (tmp_path / "ck.data-00000-of-00001").write_bytes(data)
    return str(tmp_path / "ck")


def test_mutated_index(tmp_path, checkpoint):
    _, index, data = checkpoint

    @given(mutated(index))
    def check(damaged):
        prefix = _install(tmp_path, damaged, data)
        expect_clean(lambda: _read_all(prefix), ALLOWED)
        expect_clean(lambda: _restore(prefix), ALLOWED + (AssertionError,))

    check()


def test_mutated_data(tmp_path, checkpoint):
    _, index, data = checkpoint

    @given(mutated(data))
    def check(damaged):
        prefix = _install(tmp_path, index, damaged)
        expect_clean(lambda: _read_all(prefix), ALLOWED)
        expect_clean(lambda: _restore(prefix), ALLOWED + (AssertionError,))

    check()


@pytest.mark.parametrize("path", corpus_files("checkpoint"), ids=lambda p: p.name)
def test_checkpoint_corpus(tmp_path, checkpoint, path):
    """Corpus files are `<name>.index` (damaged index, good data) or `<name>.data` (good index, damaged data)."""
    _, index, data = checkpoint
    damaged = path.read_bytes()
    prefix = _install(tmp_path, damaged, data) if path.suffix == ".index" else _install(tmp_path, index, damaged)
    expect_clean(lambda: _read_all(prefix), ALLOWED)
    expect_clean(lambda: _restore(prefix), ALLOWED + (AssertionError,))
    shutil.rmtree(tmp_path)


OBJECT_GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _with_object_graph(prefix: str, target: str, graph_bytes: bytes) -> str:
    """A copy of the checkpoint `prefix` at `target` whose object graph tensor is `graph_bytes`, every CRC right:
    only the TrackableObjectGraph proto inside is damaged."""
    import numpy as np

    from webflow.io import checkpoint_bundle

    reader = checkpoint_bundle.BundleReader(prefix)
    tensors = [(name, reader.tensor(name)) for name in sorted(reader.entries)]
    tensors = [(name, np.array(graph_bytes, dtype=object) if name == OBJECT_GRAPH else value)
               for name, value in tensors]
    checkpoint_bundle.write_bundle(target, tensors)
    return target


def test_mutated_object_graph(tmp_path, checkpoint):
    prefix = checkpoint[0]
    seed = wf.train.load_checkpoint(prefix).get_tensor(OBJECT_GRAPH)
    seed = seed.item() if hasattr(seed, "item") else seed

    @given(mutated(seed))
    def check(damaged):
        target = _with_object_graph(prefix, str(tmp_path / "og"), damaged)
        expect_clean(lambda: _restore(target), ALLOWED + (AssertionError,))

    check()


@pytest.mark.parametrize("path", corpus_files("object_graph"), ids=lambda p: p.name)
def test_object_graph_corpus(tmp_path, checkpoint, path):
    target = _with_object_graph(checkpoint[0], str(tmp_path / "og"), path.read_bytes())
    expect_clean(lambda: _restore(target), ALLOWED + (AssertionError,))
