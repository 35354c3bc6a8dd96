"""The notebook TensorBoard panel's Python side: the logdir reader and the document.

Oracle: the real TensorBoard's EventAccumulator (plugin_event_accumulator, which applies TensorBoard's data_compat)
in WEBFLOW_TF_PYTHON's venv reads the same logdir — two runs written by webflow (TF1 FileWriter, TF2 writer) and two
by TensorFlow 2.21 (TF2 writer, TF1 FileWriter with a graph) — and must find the same tags, steps and values.
Without the oracle venv those tests skip; the rest (live refresh, damaged files, the magic, the text form) do not
need it.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf
from webflow.lab import tensorboard_panel as tensorboard_module
from webflow.lab.tensorboard_document import MIME_TYPE, image_source, tensorboard_document, thin
from webflow.summary import summary_v2
from webflow.summary.logdir_reader import LogdirReader, find_runs

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "summary"))
from summary_oracle import SKIP_REASON, TF_PYTHON, run_oracle  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
rng = np.random.default_rng(5)
DATA = (rng.standard_normal(200) * 3).astype(np.float32)
IMAGES = rng.uniform(0, 1, (2, 6, 5, 3)).astype(np.float32)
LOSSES = [2.0, 1.25, 0.75, 0.5, 0.375]
XSS = "<img src=x onerror=alert(1)>"


def write_webflow_tf2(logdir: str) -> None:
    writer = wf.summary.create_file_writer(logdir)
    try:
        with writer.as_default():
            for step, value in enumerate(LOSSES):
                wf.summary.scalar("loss", value, step=step)
                wf.summary.scalar(XSS, -value, step=step)
            wf.summary.histogram("weights", DATA, step=0)
            wf.summary.histogram("weights", DATA * 2, step=1)
            wf.summary.image("pic", IMAGES, step=2, max_outputs=2)
            wf.summary.text("notes", "hello <b>there</b>", step=3)
    finally:
        writer.close()
        summary_v2.set_step(None)


def write_webflow_tf1(logdir: str) -> None:
    tf.disable_v2_behavior()
    try:
        tf.reset_default_graph()
        x = tf.placeholder(tf.float32, [None], name="x")
        images = tf.placeholder(tf.float32, [None, 6, 5, 3], name="images")
        merged = tf.summary.merge([tf.summary.scalar("batch_mean", tf.reduce_mean(x)),
                                   tf.summary.histogram("activations", x),
                                   tf.summary.image("pic", images, max_outputs=1)])
        with tf.Session() as sess:
            writer = tf.summary.FileWriter(logdir, sess.graph)
            for step in range(3):
                writer.add_summary(sess.run(merged, {x: DATA * (step + 1), images: IMAGES}), step * 10)
            writer.close()
    finally:
        tf.enable_v2_behavior()


# Run under TensorFlow 2.21: writes two runs, then reads every run of LOGDIR with TensorBoard's accumulator.
ORACLE = """
import numpy as np
import tensorflow as tf
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.util import tensor_util

data, images = np.array(DATA, np.float32), np.array(IMAGES, np.float32)
writer = tf.summary.create_file_writer(LOGDIR + "/tf_tf2")
with writer.as_default():
    for step, value in enumerate(LOSSES):
        tf.summary.scalar("loss", value, step=step)
    tf.summary.histogram("weights", data, step=0)
    tf.summary.histogram("weights", data * 2, step=1)
    tf.summary.image("pic", images, step=2, max_outputs=2)
    tf.summary.text("notes", "hello <b>there</b>", step=3)
writer.close()
tf1 = tf.compat.v1
with tf1.Graph().as_default():
    x = tf1.placeholder(tf1.float32, [None], name="x")
    ims = tf1.placeholder(tf1.float32, [None, 6, 5, 3], name="images")
    merged = tf1.summary.merge([tf1.summary.scalar("batch_mean", tf1.reduce_mean(x)),
                                tf1.summary.histogram("activations", x),
                                tf1.summary.image("pic", ims, max_outputs=1)])
    with tf1.Session() as sess:
        file_writer = tf1.summary.FileWriter(LOGDIR + "/tf_tf1", sess.graph)
        for step in range(3):
            file_writer.add_summary(sess.run(merged, {x: data * (step + 1), ims: images}), step * 10)
        file_writer.close()

def plain(kind, tensor):
    array = tensor_util.make_ndarray(tensor)
    if kind == "scalars":
        return float(array)
    if kind == "histograms":
        return array.tolist()
    if kind == "images":
        return [int(array[0]), int(array[1])] + [image.hex() for image in array[2:]]
    return {"shape": list(array.shape), "values": [s.decode() for s in array.reshape(-1)]}

result = {}
for run in sorted(os.listdir(LOGDIR)):
    acc = plugin_event_accumulator.EventAccumulator(os.path.join(LOGDIR, run), size_guidance={"tensors": 0})
    acc.Reload()
    kinds = {}
    for kind, plugin in (("scalars", "scalars"), ("histograms", "histograms"), ("images", "images"),
                         ("text", "text")):
        kinds[kind] = {tag: [[e.step, plain(kind, e.tensor_proto)] for e in acc.Tensors(tag)]
                       for tag in (acc.PluginTagToContent(plugin) if plugin in acc.ActivePlugins() else {})}
    graph = None
    if acc.Tags()["graph"]:
        graph = sorted(node.name for node in acc.Graph().node)
    result[run] = {"kinds": kinds, "graph": graph}
"""


def _ours(runs: dict) -> dict:
    """The reader's view in the oracle's shape."""
    out = {}
    for run, data in runs.items():
        kinds = {
            "scalars": {tag: [[s, v] for s, _, v in items] for tag, items in data.scalars.items()},
            "histograms": {tag: [[s, rows] for s, _, rows in items] for tag, items in data.histograms.items()},
            "images": {},
            "text": {tag: [[s, {"shape": shape, "values": values}] for s, _, shape, values in items]
                     for tag, items in data.text.items()},
        }
        for tag, items in data.images.items():  # one entry per step: [width, height, image, image ...]
            per_step: dict = {}
            for step, _, width, height, encoded in items:
                per_step.setdefault(step, [width, height]).append(encoded.hex())
            kinds["images"][tag] = [[step, value] for step, value in per_step.items()]
        graph = sorted(name for name, _, _ in data.graph) if data.graph is not None else None
        out[run] = {"kinds": kinds, "graph": graph}
    return out


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("logs")
    write_webflow_tf2(str(root / "webflow_tf2"))
    write_webflow_tf1(str(root / "webflow_tf1"))
    return str(root)


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_reader_reads_what_tensorboard_reads(tmp_path) -> None:
    logdir = str(tmp_path)
    write_webflow_tf2(str(tmp_path / "webflow_tf2"))
    write_webflow_tf1(str(tmp_path / "webflow_tf1"))
    source = (f"import os\nLOGDIR = {logdir!r}\nDATA = {DATA.tolist()!r}\nIMAGES = {IMAGES.tolist()!r}\n"
              f"LOSSES = {LOSSES!r}\n" + ORACLE)
    expected = run_oracle(source)
    ours = _ours(LogdirReader(logdir).reload().runs)
    assert sorted(expected) == sorted(ours) == ["tf_tf1", "tf_tf2", "webflow_tf1", "webflow_tf2"]
    for run in expected:
        for kind in ("scalars", "histograms", "images", "text"):
            assert ours[run]["kinds"][kind] == expected[run]["kinds"][kind], (run, kind)
        assert ours[run]["graph"] == expected[run]["graph"], run
    # the same summaries, written by webflow and by TensorFlow, give the same tags and steps
    for engine in ("tf2", "tf1"):
        for kind in ("scalars", "histograms", "images", "text"):
            theirs, mine = expected[f"tf_{engine}"]["kinds"][kind], ours[f"webflow_{engine}"]["kinds"][kind]
            assert {tag: [s for s, _ in items] for tag, items in theirs.items()} == \
                   {tag: [s for s, _ in items] for tag, items in mine.items() if tag != XSS}, (engine, kind)
    assert expected["tf_tf1"]["graph"] and ours["webflow_tf1"]["graph"]


def test_runs_are_folders_of_event_files(logdir: str, tmp_path) -> None:
    assert sorted(find_runs(logdir)) == ["webflow_tf1", "webflow_tf2"]
    write_webflow_tf2(str(tmp_path))  # event files directly in the logdir: the run "."
    write_webflow_tf2(str(tmp_path / "a" / "b"))
    assert sorted(find_runs(str(tmp_path))) == [".", "a/b"]


def test_document_holds_every_kind(logdir: str) -> None:
    document = tensorboard_document(LogdirReader(logdir).reload().runs, logdir=logdir)
    json.dumps(document, allow_nan=False)  # what the browser's JSON.parse accepts
    assert document["version"] == 1 and document["runs"] == ["webflow_tf1", "webflow_tf2"]
    assert [point[2] for point in document["scalars"]["loss"]["webflow_tf2"]] == LOSSES
    assert [point[0] for point in document["scalars"]["batch_mean"]["webflow_tf1"]] == [0, 10, 20]
    assert document["scalars"][XSS]["webflow_tf2"][0][2] == -2.0  # the tag stays the string it was
    histogram = document["histograms"]["weights"]["webflow_tf2"]
    assert [h["step"] for h in histogram] == [0, 1] and sum(row[2] for row in histogram[0]["buckets"]) == 200
    images = document["images"]["pic"]["webflow_tf2"]
    assert [(i["step"], i["width"], i["height"]) for i in images] == [(2, 5, 6), (2, 5, 6)]
    assert images[0]["src"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert document["text"]["notes"]["webflow_tf2"][0]["values"] == ["hello <b>there</b>"]
    graph = document["graphs"]["webflow_tf1"]["document"]
    assert {"x", "images"} <= {node["name"] for node in graph["nodes"]}
    assert {"source": "x", "target": "Mean", "tensor": "x", "input_index": 0, "shape": "", "dtype": "",
            "control": False} in graph["edges"]
    text = tensorboard_module.TensorBoardPanel(logdir).text()
    assert "loss [webflow_tf2]: 0.375 at step 4 (5 points)" in text and "graph [webflow_tf1]" in text


def test_thinning_keeps_first_and_last() -> None:
    points = list(range(5000))
    kept = thin(points, 1000)
    assert len(kept) == 1000 and kept[0] == 0 and kept[-1] == 4999 and kept == sorted(kept)
    assert thin(points[:10], 1000) == points[:10]


def test_only_images_a_browser_shows_become_data_urls() -> None:
    assert image_source(b"\x89PNG\r\n\x1a\nxyz").startswith("data:image/png;base64,")
    assert image_source(b"\xff\xd8\xff\xe0").startswith("data:image/jpeg;base64,")
    assert image_source(b"<svg onload=alert(1)>") is None  # never an SVG or HTML payload


def test_live_panel_updates_the_same_output_as_training_writes(tmp_path) -> None:
    calls = []

    class Handle:
        def update(self, data, raw=False):
            calls.append(("update", data))

    def display(data, raw=False, display_id=False):
        calls.append(("display", data))
        return Handle()

    writer = wf.summary.create_file_writer(str(tmp_path / "train"))
    panel = tensorboard_module.tensorboard(str(tmp_path), live=True, every=0.0, display=display)
    assert calls[0][0] == "display" and calls[0][1][MIME_TYPE]["runs"] == ["train"]  # file_version only so far
    with writer.as_default():
        for step in range(3):
            wf.summary.scalar("loss", 1.0 / (step + 1), step=step)
            writer.flush()
            assert panel.refresh()
    assert not panel.refresh()  # nothing new: no update sent
    writer.close()
    summary_v2.set_step(None)
    panel.close()
    assert [kind for kind, _ in calls] == ["display", "update", "update", "update", "update"]
    last = calls[-1][1][MIME_TYPE]
    assert last["live"] is False
    assert [p[2] for p in last["scalars"]["loss"]["train"]] == [1.0, 0.5, float(np.float32(1 / 3))]
    assert calls[1][1][MIME_TYPE]["live"] is True


def _event_file(folder) -> str:
    return [os.path.join(folder, name) for name in os.listdir(folder) if "tfevents" in name][0]


def test_a_record_being_written_waits_and_a_corrupt_one_is_reported(tmp_path) -> None:
    write_webflow_tf2(str(tmp_path / "run"))
    path = _event_file(tmp_path / "run")
    with open(path, "rb") as f:
        whole = f.read()
    with open(path, "wb") as f:
        f.write(whole[:-7])  # the last record cut short, as while the writer is in the middle of it
    reader = LogdirReader(str(tmp_path)).reload()
    run = reader.runs["run"]
    assert run.errors == [] and run.text == {}  # the text was the last event
    with open(path, "ab") as f:
        f.write(whole[-7:])
    reader.reload()
    assert run.text["notes"][0][3] == ["hello <b>there</b>"] and run.errors == []

    damaged = bytearray(whole)
    (length,) = struct.unpack("<Q", damaged[:8])
    first_end = 12 + length + 4
    damaged[first_end + 12 + 3] ^= 0xFF  # a byte inside the second record's data
    with open(path, "wb") as f:
        f.write(bytes(damaged))
    fresh = LogdirReader(str(tmp_path)).reload()
    assert fresh.runs["run"].errors == [f"corrupted record at {first_end} in {path}"]
    document = tensorboard_document(fresh.runs, logdir=str(tmp_path))
    assert document["errors"] == [{"run": "run", "message": f"corrupted record at {first_end} in {path}"}]


def test_magic_takes_tensorboards_arguments(tmp_path, monkeypatch, capsys) -> None:
    write_webflow_tf2(str(tmp_path / "run"))
    shown = []
    monkeypatch.setattr(tensorboard_module, "tensorboard", lambda logdir, **kwargs: shown.append(logdir))
    tensorboard_module.tensorboard_magic(f"--logdir {tmp_path}")
    tensorboard_module.tensorboard_magic(f"--logdir={tmp_path} --port 6006")
    assert shown == [str(tmp_path), str(tmp_path)]
    assert "ignores: --port 6006" in capsys.readouterr().err
    tensorboard_module.tensorboard_magic("")
    assert "A logdir must be specified" in capsys.readouterr().err and len(shown) == 2


def test_load_ext_registers_the_magic() -> None:
    import webflow.lab as lab

    class Shell:
        registered = {}

        def set_custom_exc(self, *args):
            pass

        def register_magic_function(self, function, magic_kind, magic_name):
            self.registered[(magic_kind, magic_name)] = function

    shell = Shell()
    lab.load_ipython_extension(shell)
    lab.unload_ipython_extension(shell)
    assert shell.registered[("line", "tensorboard")] is tensorboard_module.tensorboard_magic


NO_NUMPY = """
import sys
sys.modules["numpy"] = None
import json
import webflow.lab as lab
panel = lab.TensorBoardPanel(sys.argv[1])
document = panel.document()
print(json.dumps({"numpy": sys.modules["numpy"] is not None, "protobuf": "google.protobuf" in sys.modules,
                  "document": document}))
"""


def test_panel_reads_without_numpy_or_protobuf(logdir: str) -> None:
    """What Pyodide has: neither NumPy nor protobuf. The document is the same as with both."""
    done = subprocess.run([sys.executable, "-c", NO_NUMPY, logdir], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["numpy"] is False and result["protobuf"] is False
    assert result["document"] == tensorboard_document(LogdirReader(logdir).reload().runs, logdir=logdir)


def test_reading_in_small_chunks_and_records_bigger_than_one(tmp_path, monkeypatch) -> None:
    """The tail reads at most _CHUNK bytes per piece; a record longer than that is read whole."""
    from webflow.summary import event_tail

    write_webflow_tf1(str(tmp_path / "whole"))
    expected = LogdirReader(str(tmp_path)).reload().runs["whole"]
    monkeypatch.setattr(event_tail, "_CHUNK", 64)  # the graph and image events are bigger than this
    small = LogdirReader(str(tmp_path)).reload().runs["whole"]
    assert small.errors == [] and small.graph == expected.graph
    assert small.scalars == expected.scalars and small.images == expected.images
