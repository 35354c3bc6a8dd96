"""The real TensorBoard (installed beside TensorFlow in WEBFLOW_TF_PYTHON's venv; skipped without it) reads webflow's
event files: its EventAccumulator finds the scalars, histograms (with TensorFlow's own buckets for the same data),
images (TensorFlow's pixels), text and graph of a TF1 FileWriter's file and the tensors of a TF2 writer's file, and
a `tensorboard --logdir` server serves webflow's scalars over its HTTP data API."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest
from summary_oracle import SKIP_REASON, TF_PYTHON, decode_png, run_oracle

import webflow as wf
import webflow.compat.v1 as tf
from webflow.summary import summary_v2

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

rng = np.random.default_rng(11)
DATA = (rng.standard_normal(300) * 2).astype(np.float32)
IMAGES = rng.uniform(-1, 3, (2, 5, 4, 3)).astype(np.float32)
LOSSES = [1.0, 0.5, 0.25, 0.125, 0.0625]


def write_tf1_run(logdir: str) -> None:
    """A TF1 training loop's summaries: a scalar, a histogram, an image and a text per step, and the graph."""
    tf.disable_v2_behavior()
    tf.reset_default_graph()
    loss = tf.placeholder(tf.float32, [], name="loss_value")
    weights = tf.placeholder(tf.float32, [None], name="weights_value")
    images = tf.placeholder(tf.float32, [None, 5, 4, 3], name="images")
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", weights)
    tf.summary.image("pic", images, max_outputs=1)
    tf.summary.text("notes", tf.constant("step notes"))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, sess.graph)
        for step, value in enumerate(LOSSES):
            writer.add_summary(sess.run(merged, {loss: value, weights: DATA, images: IMAGES}), step * 10)
        writer.close()


def write_tf2_run(logdir: str) -> None:
    writer = wf.summary.create_file_writer(logdir)
    try:
        with writer.as_default():
            for step, value in enumerate(LOSSES):
                wf.summary.scalar("loss", value, step=step)
            wf.summary.histogram("weights", DATA, step=0)
            wf.summary.text("notes", "hello", step=0)
    finally:
        writer.close()
        summary_v2.set_step(None)


ACCUMULATOR_PROGRAM = """
import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.util import tensor_util

acc = EventAccumulator(TF1_DIR, size_guidance={"scalars": 0, "histograms": 0, "images": 0, "tensors": 0})
acc.Reload()
histogram = acc.Histograms("weights")[-1].histogram_value
graph = acc.Graph()
result = {
    "tags": {k: sorted(v) if isinstance(v, list) else v for k, v in acc.Tags().items()},
    "scalars": [[e.step, e.value] for e in acc.Scalars("loss")],
    "histogram": [list(histogram.bucket_limit), list(histogram.bucket), histogram.min, histogram.max, histogram.num,
                  histogram.sum, histogram.sum_squares],
    "images": [[e.step, e.width, e.height, e.encoded_image_string.hex()] for e in acc.Images("pic/image")],
    "text": [[e.step, [s.decode() for s in e.tensor_proto.string_val]] for e in acc.Tensors("notes")],
    "graph": [node.name for node in graph.node],
}

# TensorFlow's own histogram and image summaries of the same data
tf1 = tf.compat.v1
tf1.disable_eager_execution()
with tf1.Graph().as_default(), tf1.Session() as sess:
    h, i = sess.run([tf1.summary.histogram("weights", tf1.constant(np.array(DATA, np.float32))),
                     tf1.summary.image("pic", tf1.constant(np.array(IMAGES, np.float32)), max_outputs=1)])
tf_histogram = tf1.Summary.FromString(h).value[0].histo
result["tf_histogram"] = [list(tf_histogram.bucket_limit), list(tf_histogram.bucket), tf_histogram.min,
                          tf_histogram.max, tf_histogram.num, tf_histogram.sum, tf_histogram.sum_squares]
result["tf_image"] = tf1.Summary.FromString(i).value[0].image.encoded_image_string.hex()

tensors = plugin_event_accumulator.EventAccumulator(TF2_DIR, size_guidance={"tensors": 0})
tensors.Reload()
result["tf2_plugins"] = {p: sorted(tensors.PluginTagToContent(p)) for p in tensors.ActivePlugins()}
result["tf2_scalars"] = [[e.step, float(tensor_util.make_ndarray(e.tensor_proto))] for e in tensors.Tensors("loss")]
result["tf2_histogram"] = tensor_util.make_ndarray(tensors.Tensors("weights")[0].tensor_proto).tolist()
result["tf2_text"] = [s.decode() for s in tensors.Tensors("notes")[0].tensor_proto.string_val]
"""


@pytest.fixture(scope="module")
def accumulated(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("runs")
    write_tf1_run(str(root / "tf1"))
    tf.enable_v2_behavior()
    write_tf2_run(str(root / "tf2"))
    source = (f"TF1_DIR = {str(root / 'tf1')!r}\nTF2_DIR = {str(root / 'tf2')!r}\n"
              f"DATA = {DATA.tolist()!r}\nIMAGES = {IMAGES.tolist()!r}\n" + ACCUMULATOR_PROGRAM)
    return run_oracle(source)


def test_event_accumulator_finds_every_kind(accumulated):
    tags = accumulated["tags"]
    assert tags["scalars"] == ["loss"] and tags["histograms"] == ["weights"] and tags["images"] == ["pic/image"]
    assert tags["tensors"] == ["notes"] and tags["graph"] is True and tags["meta_graph"] is True


def test_event_accumulator_scalars(accumulated):
    assert accumulated["scalars"] == [[10 * step, value] for step, value in enumerate(LOSSES)]


def test_event_accumulator_histogram_is_tensorflows(accumulated):
    assert accumulated["histogram"] == accumulated["tf_histogram"]
    assert len(accumulated["histogram"][0]) > 20 and sum(accumulated["histogram"][1]) == len(DATA)


def test_event_accumulator_image_has_tensorflows_pixels(accumulated):
    steps = [image[0] for image in accumulated["images"]]
    assert steps == [0, 10, 20, 30, 40]
    step, width, height, encoded = accumulated["images"][-1]
    assert (width, height) == (4, 5)
    np.testing.assert_array_equal(decode_png(bytes.fromhex(encoded)),
                                  decode_png(bytes.fromhex(accumulated["tf_image"])))


def test_event_accumulator_text_and_graph(accumulated):
    assert accumulated["text"][0] == [0, ["step notes"]] and len(accumulated["text"]) == 5
    assert {"loss_value", "weights_value", "loss", "weights", "pic", "notes", "Merge/MergeSummary"} <= \
        set(accumulated["graph"])


def test_plugin_event_accumulator_reads_the_tf2_file(accumulated):
    assert accumulated["tf2_plugins"] == {"scalars": ["loss"], "histograms": ["weights"], "text": ["notes"]}
    assert accumulated["tf2_scalars"] == [[step, value] for step, value in enumerate(LOSSES)]
    histogram = np.array(accumulated["tf2_histogram"])
    assert histogram.shape == (30, 3) and histogram[:, 2].sum() == len(DATA)
    assert accumulated["tf2_text"] == ["hello"]


# --- a TensorBoard server --------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read().decode())


def _stop(server: subprocess.Popen) -> None:
    """Stops the server and anything it started (its own process group), politely first."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(server.pid, sig)
        except ProcessLookupError:
            return
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass


def test_tensorboard_serves_webflows_scalars(tmp_path):
    logdir = str(tmp_path / "logs")
    write_tf1_run(logdir)
    port = _free_port()
    log_path = tmp_path / "tensorboard.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen([TF_PYTHON, "-m", "tensorboard.main", "--logdir", logdir, "--port", str(port),
                                   "--host", "127.0.0.1"], stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline, tags, last_error = time.monotonic() + 120, {}, None
        while time.monotonic() < deadline and "loss" not in tags.get(".", {}) and server.poll() is None:
            try:
                tags = _get_json(f"{base}/data/plugin/scalars/tags")
            except (urllib.error.URLError, ConnectionError, json.JSONDecodeError) as error:
                last_error = error
            time.sleep(1)
        assert "loss" in tags.get(".", {}), (f"TensorBoard did not list the run's scalars: {tags} ({last_error})\n"
                                             + log_path.read_text(errors="replace")[-3000:])
        query = urllib.parse.urlencode({"run": ".", "tag": "loss"})
        points = _get_json(f"{base}/data/plugin/scalars/scalars?{query}")
        assert [[step, value] for _, step, value in points] == [[10 * s, v] for s, v in enumerate(LOSSES)]
        assert all(wall > 1e9 for wall, _, _ in points)
    finally:
        _stop(server)
