"""Audio against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON; skipped without it): TF1's `tf.summary.audio` gives the
same Summary bytes (WAV files included) in both engines, `tf.audio.encode_wav` the same WAV bytes and
`decode_wav` the same samples, and TF2's `tf.summary.audio` writes the same tensor and metadata."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from summary_oracle import SKIP_REASON, TF_PYTHON, run_oracle
from tf_subprocess import run_tensorflow, run_webflow

import webflow as wf
from webflow.summary import summary_v2

needs_tensorflow = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# halves of 1/32768 (roundf), values beyond [-1, 1] (clipping), NaN and infinities, random noise
TF1_PROGRAM = """
rng = np.random.default_rng(8)
clips = rng.uniform(-1.3, 1.3, (4, 40, 2)).astype(np.float32)
clips[0, :6, 0] = np.array([0.5, 1.5, -2.5, 32767.5, -32768.5, 3.0], np.float32) / 32768
clips[0, :4, 1] = [np.nan, np.inf, -np.inf, 1.0]
x = tf.placeholder(tf.float32, [None, None, 2], name="x")
with tf.name_scope("train"):
    a = tf.summary.audio("voice", x, 16000)
    b = tf.summary.audio("left", x[:, :, 0], 22050.6, max_outputs=1, family="mono")
    c = tf.summary.audio("rate", x[:1], tf.constant(8000.0), max_outputs=5)
wav = tf.audio.encode_wav(x[0], 11025)
decoded = tf.audio.decode_wav(wav, desired_channels=3, desired_samples=45)
plain_decoded = tf.audio.decode_wav(wav)
with tf.Session() as sess:
    outs = sess.run([a, b, c, wav, decoded.audio, decoded.sample_rate, plain_decoded.audio], {x: clips})
graph = tf.get_default_graph()
result = {"bytes": [o.hex() for o in outs[:4]], "decoded": outs[4].tolist(), "rate": int(outs[5]),
          "plain": outs[6].tolist(),
          "nodes": [[op.name, op.type] for op in graph.get_operations() if "Wav" in op.type or "Audio" in op.type],
          "collection": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}
"""


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    return run_tensorflow({"tf1": TF1_PROGRAM})


@needs_tensorflow
def test_tf1_audio_summaries_and_wav_files_are_tensorflows_bytes(tensorflow_results):
    ours, theirs = run_webflow(TF1_PROGRAM), tensorflow_results["tf1"]
    assert ours["nodes"] == theirs["nodes"]
    assert [n[1] for n in theirs["nodes"]] == ["AudioSummaryV2"] * 3 + ["EncodeWav", "DecodeWav", "DecodeWav"]
    assert ours["collection"] == theirs["collection"] == ["train/voice:0", "train/mono/left:0", "train/rate:0"]
    assert len(ours["bytes"]) == len(theirs["bytes"]) == 4
    for mine, expected in zip(ours["bytes"], theirs["bytes"]):
        assert mine == expected
    assert ours["decoded"] == theirs["decoded"] and ours["rate"] == theirs["rate"] == 11025
    assert ours["plain"] == theirs["plain"]


TF2_PROGRAM = """
rng = np.random.default_rng(9)
clips = rng.uniform(-1.2, 1.2, (3, 25, 2)).astype(np.float32)
writer = tf.summary.create_file_writer(LOGDIR)
with writer.as_default(step=4):
    tf.summary.audio("speech", clips, 16000)
    tf.summary.audio("one", clips, 8000, max_outputs=1, description="the first")
    with tf.name_scope("outer"):
        tf.summary.audio("none", clips, 8000, step=7, max_outputs=0)
    tf.compat.v1.summary.audio("old", tf.constant(clips[:, :, 0]), 8000, family="fam")  # TF1's, written by TF2's
writer.close()
events = []
for name in sorted(os.listdir(LOGDIR)):
    for event in tf.compat.v1.train.summary_iterator(os.path.join(LOGDIR, name)):
        if event.HasField("summary"):
            for value in event.summary.value:
                events.append([event.step, value.tag, value.tensor.SerializeToString().hex(),
                               value.metadata.SerializeToString().hex()])
result = {"events": events}
"""


def _tf2_source(logdir: Path, engine: str) -> str:
    return (f"import os, numpy as np\nimport {engine} as tf\nimport {engine}.compat.v1\n"
            f"LOGDIR = {str(logdir)!r}\n" + TF2_PROGRAM)


@needs_tensorflow
def test_tf2_audio_writes_tensorflows_tensor_and_metadata(tmp_path):
    theirs = run_oracle(_tf2_source(tmp_path / "tf", "tensorflow"))
    scope: dict = {}
    try:
        exec(_tf2_source(tmp_path / "wf", "webflow"), scope)
    finally:
        summary_v2.set_step(None)
    ours = scope["result"]
    assert [e[:2] for e in theirs["events"]] == [[4, "speech"], [4, "one"], [7, "outer/none"], [4, "fam/fam/old"]]
    assert ours["events"] == theirs["events"]


def test_tf2_audio_errors_are_tensorflows(tmp_path):
    writer = wf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=1):
        with pytest.raises(ValueError, match=r"Tensor  must have rank 3.  Received rank 2, shape \(2, 5\)"):
            wf.summary.audio("x", np.zeros((2, 5), np.float32), 8000)
        with pytest.raises(wf.errors.InvalidArgumentError, match="Condition x >= 0 did not hold element-wise"):
            wf.summary.audio("x", np.zeros((2, 5, 1), np.float32), 8000, max_outputs=-1)
        with pytest.raises(ValueError, match="Unknown encoding: 'mp3'"):
            wf.summary.audio("x", np.zeros((1, 5, 1), np.float32), 8000, encoding="mp3")
    writer.close()
