"""The readers of outside bytes that tools/fuzz_table.py fuzzes: per reader a valid seed input, the call that
reads damaged bytes, and the errors it may answer with (its documented ones, as tests/fuzz/ allows them).

A target is `Target(seed, read, allowed)`: `read(data)` feeds the damaged bytes to the reader (through a file in
a scratch folder where the reader takes a path). Anything raised outside `allowed` is a leak; so is an allowed
type listed in fuzz_support.LEAKS (a KeyError or a MemoryError is a bug even where ValueError is allowed).
Seeds are built here at start-up, the same files tests/fuzz/ starts from.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
import tempfile
import traceback
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import webflow as wf
import webflow.compat.v1 as tf
from webflow.framework import errors


@dataclass
class Target:
    seed: bytes
    read: Callable[[bytes], object]
    allowed: tuple


SCRATCH = tempfile.mkdtemp(prefix="webflow-fuzz-table-")


def _file(name: str, data: bytes) -> str:
    path = os.path.join(SCRATCH, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return path


def _decode_error() -> type:
    from google.protobuf.message import DecodeError

    return DecodeError


# --- MNIST IDX ---------------------------------------------------------------------------------------------------
def _idx() -> dict:
    from webflow.datasets import mnist

    seed = bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(range(6))
    return {
        "mnist_idx": Target(seed, mnist.parse_idx, (mnist.IDXFormatError,)),
        "mnist_idx_gz": Target(gzip.compress(seed, mtime=0),
                               lambda data: mnist.read_idx(_file("train-images-idx3-ubyte.gz", data)),
                               (mnist.IDXFormatError,)),
    }


# --- TFRecord files and event files -----------------------------------------------------------------------------
def _records() -> dict:
    from webflow.io import tfrecord
    from webflow.summary.logdir_reader import LogdirReader
    from webflow.summary.summary_iterator import summary_iterator

    plain = b"".join(tfrecord.encode_record(r) for r in [b"", b"a", b"hello world" * 3, bytes(range(256))])
    events_folder = os.path.join(SCRATCH, "logs")
    os.makedirs(events_folder, exist_ok=True)

    def iterate(compression: str) -> Callable[[bytes], object]:
        return lambda data: list(tfrecord.tf_record_iterator(_file("f.tfrecord", data), compression))

    def events(data: bytes) -> None:
        path = os.path.join(events_folder, "events.out.tfevents.1.host")
        with open(path, "wb") as handle:
            handle.write(data)
        try:
            list(summary_iterator(path))
        finally:
            LogdirReader(events_folder).reload()   # the TensorBoard panel's reader: notes damage, never raises

    return {
        "tfrecord": Target(plain, iterate(""), (errors.OpError,)),
        "tfrecord_zlib": Target(zlib.compress(plain), iterate("ZLIB"), (errors.OpError,)),
        "tfrecord_gzip": Target(gzip.compress(plain, mtime=0), iterate("GZIP"), (errors.OpError,)),
        "tfrecord_dataset": Target(plain, lambda data: [t.numpy() for t in wf.data.TFRecordDataset(
            _file("d.tfrecord", data))], (errors.OpError,)),
        "event_file": Target(_event_file(tfrecord), events, (errors.OpError, _decode_error())),
        "event_wire": Target(_event(), _decode_event, (ValueError,)),
    }


def _event() -> bytes:
    from webflow.protos import event_pb2, histogram_pb2, summary_pb2, tensor_pb2

    tensor = tensor_pb2.TensorProto(dtype=1, float_val=[1.5])
    tensor.tensor_shape.dim.add(size=3)
    values = [summary_pb2.Summary.Value(tag="loss", simple_value=0.25),
              summary_pb2.Summary.Value(tag="w", histo=histogram_pb2.HistogramProto(
                  min=0, max=1, num=2, bucket_limit=[0.5, 1], bucket=[1, 1])),
              summary_pb2.Summary.Value(tag="t", tensor=tensor)]
    return event_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(value=values)).SerializeToString()


def _event_file(tfrecord) -> bytes:
    from webflow.protos import event_pb2

    version = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString()
    return tfrecord.encode_record(version) + tfrecord.encode_record(_event())


def _decode_event(data: bytes) -> object:
    from webflow.summary import event_wire

    return event_wire.decode_event(data)


# --- tf.train.Example, parse_tensor ------------------------------------------------------------------------------
def _parsing() -> dict:
    from webflow.ops import example_parsing
    from webflow.protos import example_pb2, feature_pb2

    feature = {"label": feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[7, -3])),
               "pixels": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[0.5, 1.5, 2.5])),
               "name": feature_pb2.Feature(bytes_list=feature_pb2.BytesList(value=[b"seven"]))}
    example = example_pb2.Example(features=feature_pb2.Features(feature=feature)).SerializeToString()
    spec = {"label": wf.io.FixedLenFeature([2], wf.int64, default_value=[0, 0]),
            "pixels": wf.io.VarLenFeature(wf.float32),
            "name": wf.io.FixedLenFeature([], wf.string, default_value="")}

    def parse(decoder: str) -> Callable[[bytes], object]:
        def read(data: bytes) -> object:
            example_parsing.set_decoder(decoder)
            try:
                return wf.io.parse_single_example(data, spec)
            finally:
                example_parsing.set_decoder(None)
        return read

    tensor = wf.io.serialize_tensor(wf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy()
    return {
        "example": Target(example, parse("protobuf"), (errors.OpError,)),
        "example_wire": Target(example, parse("wire"), (errors.OpError,)),
        "parse_tensor": Target(tensor, lambda data: wf.io.parse_tensor(data, wf.float32), (errors.OpError,)),
    }


# --- checkpoints (tf.train.Checkpoint / Saver / keras save_weights all write this) -------------------------------
def _checkpoints() -> dict:
    folder = os.path.join(SCRATCH, "ckpt")
    root = wf.train.Checkpoint(v=wf.Variable([1.0, 2.0, 3.0]), s=wf.Variable(["ab", "c"]),
                               n=wf.Variable(7, dtype=wf.int64))
    prefix = root.write(os.path.join(folder, "ck"))
    with open(prefix + ".index", "rb") as handle:
        index = handle.read()
    with open(prefix + ".data-00000-of-00001", "rb") as handle:
        data = handle.read()
    allowed = (errors.OpError, ValueError, AssertionError)   # AssertionError: assert_consumed on a mismatch

    def read(damaged_index: bytes, damaged_data: bytes) -> None:
        target = os.path.join(SCRATCH, "damaged", "ck")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        for suffix, content in ((".index", damaged_index), (".data-00000-of-00001", damaged_data)):
            with open(target + suffix, "wb") as handle:
                handle.write(content)
        reader = wf.train.load_checkpoint(target)
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)
        fresh = wf.train.Checkpoint(v=wf.Variable([0.0, 0.0, 0.0]), s=wf.Variable(["", ""]),
                                    n=wf.Variable(0, dtype=wf.int64))
        fresh.read(target).assert_consumed()

    return {"checkpoint_index": Target(index, lambda damaged: read(damaged, data), allowed),
            "checkpoint_data": Target(data, lambda damaged: read(index, damaged), allowed)}


# --- GraphDef, MetaGraphDef, SavedModel ---------------------------------------------------------------------------
def _graphs() -> dict:
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.Variable(tf.ones([3, 2]), name="w")
        y = tf.nn.relu(tf.matmul(x, w) + tf.constant([1.0, -1.0]), name="y")
        tf.add_to_collection("outputs", y)
        meta = tf.train.export_meta_graph().SerializeToString()
        graph_def = graph.as_graph_def().SerializeToString()
    allowed = (errors.OpError, ValueError, _decode_error(), OSError)

    def import_graph(data: bytes) -> None:
        with tf.Graph().as_default():
            tf.import_graph_def(tf.GraphDef.FromString(data), name="")

    def import_meta(data: bytes) -> None:
        with tf.Graph().as_default():
            try:
                tf.train.import_meta_graph(_file("model.meta", data))
            except KeyError as error:   # as_graph_element's own KeyError (TensorFlow's answer too)
                if not str(error.args[0]).startswith("The name "):   # then the name's repr: ' or " quoted
                    raise

    saved = _saved_model()

    def load_saved(data: bytes) -> None:
        with open(os.path.join(saved, "saved_model.pb"), "wb") as handle:
            handle.write(data)
        wf.saved_model.load(saved)

    with open(os.path.join(saved, "saved_model.pb"), "rb") as handle:
        saved_seed = handle.read()
    return {"graph_def": Target(graph_def, import_graph, allowed),
            "meta_graph": Target(meta, import_meta, allowed),
            "saved_model": Target(saved_seed, load_saved, allowed + (NotImplementedError,))}


def _saved_model() -> str:
    class Doubler(wf.Module):
        def __init__(self):
            super().__init__()
            self.scale = wf.Variable(2.0)

        @wf.function(input_signature=[wf.TensorSpec([None], wf.float32)])
        def __call__(self, x):
            return x * self.scale

    original, copy = os.path.join(SCRATCH, "sm"), os.path.join(SCRATCH, "sm-damaged")
    wf.saved_model.save(Doubler(), original)
    shutil.copytree(original, copy)
    return copy


# --- weights files: Keras's .keras archive (zip + HDF5 weights) ---------------------------------------------------
class LibraryError(Exception):
    """A KeyError, RuntimeError or EOFError raised inside zipfile or h5py while reading an archive: what tf_keras 2.21
    lets through from the same damaged file too (checked: h5py's "Unable to synchronously open object" KeyError,
    zipfile's "There is no item named 'config.json'" and its EOFError on a truncated member), so TensorFlow's answer,
    not a webflow leak."""


@contextlib.contextmanager
def _library_errors() -> Iterator[None]:
    try:
        yield
    except (KeyError, RuntimeError, EOFError) as error:
        innermost = traceback.extract_tb(error.__traceback__)[-1].filename
        if innermost.endswith("zipfile.py") or f"{os.sep}h5py{os.sep}" in innermost or innermost.endswith(".pyx"):
            raise LibraryError(f"{type(error).__name__}: {error}") from error
        raise


def _keras() -> dict:
    import zipfile

    model = wf.keras.Sequential([wf.keras.Input((3,)), wf.keras.layers.Dense(2)])
    path = os.path.join(SCRATCH, "seed.keras")
    model.save(path)
    with open(path, "rb") as handle:
        archive = handle.read()
    with zipfile.ZipFile(path) as opened:
        weights = opened.read("model.weights.h5")
    # a damaged zip, config or HDF5 file: zipfile's BadZipFile, json's ValueError, h5py's OSError, and what
    # LibraryError stands for
    allowed = (errors.OpError, ValueError, OSError, zipfile.BadZipFile, LibraryError)

    def load_archive(data: bytes) -> None:
        with _library_errors():
            wf.keras.models.load_model(_file("model.keras", data))

    def load_weights(data: bytes) -> None:
        with zipfile.ZipFile(path) as source, zipfile.ZipFile(os.path.join(SCRATCH, "w.keras"), "w") as target:
            for name in source.namelist():
                target.writestr(name, data if name == "model.weights.h5" else source.read(name))
        with _library_errors():
            wf.keras.models.load_model(os.path.join(SCRATCH, "w.keras"))

    return {"keras_archive": Target(archive, load_archive, allowed),
            "keras_weights_h5": Target(weights, load_weights, allowed)}


# --- images and audio --------------------------------------------------------------------------------------------
def _media() -> dict:
    pixels = wf.constant([[[0, 10, 20], [30, 40, 50]], [[60, 70, 80], [90, 100, 110]]], wf.uint8)
    wav = wf.audio.encode_wav(wf.constant([[0.0, 0.5], [-0.5, 1.0], [0.25, -1.0]]), 8000).numpy()
    gif = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
    allowed = (errors.OpError,)
    return {"png": Target(wf.io.encode_png(pixels).numpy(), lambda d: wf.io.decode_png(d, channels=3), allowed),
            "jpeg": Target(wf.io.encode_jpeg(pixels).numpy(), wf.io.decode_jpeg, allowed),
            "gif": Target(gif, wf.io.decode_gif, allowed),
            "wav": Target(wav, wf.audio.decode_wav, allowed)}


# target name -> the function that builds its group (table order)
GROUPS: dict[str, Callable[[], dict]] = {
    **dict.fromkeys(["mnist_idx", "mnist_idx_gz"], _idx),
    **dict.fromkeys(["tfrecord", "tfrecord_zlib", "tfrecord_gzip", "tfrecord_dataset", "event_file", "event_wire"],
                    _records),
    **dict.fromkeys(["example", "example_wire", "parse_tensor"], _parsing),
    **dict.fromkeys(["checkpoint_index", "checkpoint_data"], _checkpoints),
    **dict.fromkeys(["graph_def", "meta_graph", "saved_model"], _graphs),
    **dict.fromkeys(["keras_archive", "keras_weights_h5"], _keras),
    **dict.fromkeys(["png", "jpeg", "gif", "wav"], _media),
}


_BUILT: dict[Callable, dict] = {}


def target(name: str) -> Target:
    """The target `name` (builds its group's seeds, once per process)."""
    group = GROUPS[name]
    if group not in _BUILT:
        _BUILT[group] = group()
    return _BUILT[group][name]
