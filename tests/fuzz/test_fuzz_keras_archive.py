"""Fuzzed Keras `.keras` archives (keras/saving_archive.py: a zip of config.json and the HDF5 weights file):
`keras.models.load_model` answers damage as tf_keras 2.21 does on the same bytes: ValueError (json, a missing
weights file: "Expected a model.weights.h5 or model.weights.npz file."), zipfile's BadZipFile, OSError from h5py,
and the KeyError / RuntimeError / EOFError that tf_keras lets through from inside zipfile and h5py. A KeyError,
OverflowError or IndexError from webflow's own code is a leak."""

from __future__ import annotations

import traceback
import zipfile

import pytest
from fuzz_support import corpus_files, expect_clean, mutated
from hypothesis import given

import webflow as wf

pytest.importorskip("h5py")
ALLOWED = (ValueError, OSError, zipfile.BadZipFile)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    path = tmp_path_factory.mktemp("keras") / "seed.keras"
    wf.keras.Sequential([wf.keras.Input((3,)), wf.keras.layers.Dense(2)]).save(str(path))
    return path


def _load(path) -> None:
    """load_model, with the KeyError/RuntimeError/EOFError raised inside zipfile or h5py (tf_keras's too) let pass."""
    try:
        wf.keras.models.load_model(str(path))
    except (KeyError, RuntimeError, EOFError) as error:
        innermost = traceback.extract_tb(error.__traceback__)[-1].filename
        if not (innermost.endswith(("zipfile.py", ".pyx")) or "/h5py/" in innermost):
            raise


def _with_weights(archive, target, weights: bytes):
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(target, "w") as copy:
        for name in source.namelist():
            copy.writestr(name, weights if name == "model.weights.h5" else source.read(name))
    return target


def test_mutated_archive(tmp_path, archive):
    @given(mutated(archive.read_bytes()))
    def check(data):
        target = tmp_path / "model.keras"
        target.write_bytes(data)
        expect_clean(lambda: _load(target), ALLOWED)

    check()


def test_mutated_weights_file(tmp_path, archive):
    with zipfile.ZipFile(archive) as opened:
        weights = opened.read("model.weights.h5")

    @given(mutated(weights))
    def check(data):
        expect_clean(lambda: _load(_with_weights(archive, tmp_path / "w.keras", data)), ALLOWED)

    check()


def test_an_archive_without_weights_is_tf_keras_value_error(tmp_path, archive):
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(tmp_path / "m.keras", "w") as copy:
        for name in source.namelist():
            if name != "model.weights.h5":
                copy.writestr(name, source.read(name))
    with pytest.raises(ValueError, match=r"^Expected a model\.weights\.h5 or model\.weights\.npz file\.$"):
        wf.keras.models.load_model(str(tmp_path / "m.keras"))


@pytest.mark.parametrize("path", corpus_files("keras_archive"), ids=lambda p: p.name)
def test_keras_archive_corpus(tmp_path, path):
    target = tmp_path / "model.keras"
    target.write_bytes(path.read_bytes())
    expect_clean(lambda: _load(target), ALLOWED)


@pytest.mark.parametrize("path", corpus_files("keras_weights_h5"), ids=lambda p: p.name)
def test_keras_weights_corpus(tmp_path, archive, path):
    expect_clean(lambda: _load(_with_weights(archive, tmp_path / "w.keras", path.read_bytes())), ALLOWED)
