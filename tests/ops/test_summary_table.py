"""Op table rows for the summary ops (ops/summary_ops.py): ScalarSummary, HistogramSummary, ImageSummary,
TensorSummaryV2, MergeSummary, and AudioSummaryV2 (ops/audio_ops.py). Each row's output is one serialized `Summary`
proto (a scalar string), compared byte for byte with a reference written here from the formats themselves: the
protobuf wire format by hand for scalars, TensorFlow's histogram.cc bucket rule with `bisect`, summary_image_op.cc's
scaling and a PNG made from the PNG specification for images, WAV files from Python's wave module for audio. No
gradients: summary ops are not differentiable, in TensorFlow either. tests/summary/ compares the same ops with real
TensorFlow's bytes.
"""

import bisect
import struct
import sys
import zlib

import numpy as np
import pytest
from op_harness import OpCase, check_case
from test_audio_table import wav_file

import webflow as wf
from webflow.ops import audio_ops, summary_ops
from webflow.ops.registry import apply_op
from webflow.protos import histogram_pb2, summary_pb2
from webflow.runtime.session import Session

rng = np.random.default_rng(24)


def string(data: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = data
    return out


# --- scalars: the wire format by hand ----------------------------------------------------------------------------
def _length_delimited(field: int, payload: bytes) -> bytes:
    assert len(payload) < 128  # one-byte lengths are enough here
    return bytes([field << 3 | 2, len(payload)]) + payload


def scalar_summary_bytes(pairs) -> bytes:
    """Summary{value: [{tag (field 1, string), simple_value (field 2, float32: wire type 5)}]}."""
    values = [_length_delimited(1, _length_delimited(1, tag.encode()) + b"\x15" + struct.pack("<f", value))
              for tag, value in pairs]
    return b"".join(values)


# --- histograms: histogram.cc's rule ------------------------------------------------------------------------------
def tf_bucket_limits() -> list:
    limits, v = [], 1.0e-12
    while v < 1.0e20:
        limits.append(v)
        v *= 1.1
    return [-x for x in reversed(limits + [sys.float_info.max])] + [0.0] + limits + [sys.float_info.max]


LIMITS = tf_bucket_limits()


def histogram_summary_bytes(tag: str, values) -> bytes:
    counts = [0.0] * len(LIMITS)
    total = squares = 0.0
    for v in np.asarray(values, np.float64).reshape(-1).tolist():
        counts[bisect.bisect_right(LIMITS, v)] += 1  # the first limit greater than v
        total += v
        squares += v * v
    proto = histogram_pb2.HistogramProto(min=float(np.min(values)), max=float(np.max(values)),
                                         num=float(np.size(values)), sum=total, sum_squares=squares)
    i = 0
    while i < len(counts):  # a run of empty buckets is one entry: the run's last limit, count 0
        j = i
        if counts[i] == 0:
            while j + 1 < len(counts) and counts[j + 1] == 0:
                j += 1
        proto.bucket_limit.append(LIMITS[j])
        proto.bucket.append(counts[j])
        i = j + 1
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=proto)]).SerializeToString()


# --- images: summary_image_op.cc's scaling, PNG from its specification -------------------------------------------
def png(pixels: np.ndarray) -> bytes:
    """An 8-bit PNG of an [h, w, c] uint8 array: no row filter, one zlib stream at the default level."""
    height, width, channels = pixels.shape
    color_type = {1: 0, 3: 2, 4: 6}[channels]

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + row.tobytes() for row in pixels)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def tf_scaled(image: np.ndarray) -> np.ndarray:
    """One float32 image to uint8: 255/max if nothing is negative, else 127/max|x| and +128; non-finite pixels
    opaque red."""
    finite = np.isfinite(image).all(axis=-1)
    lo, hi = np.float32(image[finite].min()), np.float32(image[finite].max())
    if lo < 0:
        scale, offset = np.float32(127) / max(abs(lo), abs(hi)), np.float32(128)
    else:
        scale, offset = np.float32(255) / hi, np.float32(0)
    with np.errstate(invalid="ignore"):
        out = (image * scale + offset).astype(np.uint8)
    out[~finite] = np.array([255, 0, 0, 255], np.uint8)[:image.shape[-1]]
    return out


def image_summary_bytes(tag: str, images: np.ndarray, max_images: int) -> bytes:
    summary = summary_pb2.Summary()
    for i in range(min(max_images, len(images))):
        pixels = images[i] if images.dtype == np.uint8 else tf_scaled(images[i])
        height, width, depth = pixels.shape
        summary.value.add(tag=f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image",
                          image=summary_pb2.Summary.Image(height=height, width=width, colorspace=depth,
                                                          encoded_image_string=png(pixels)))
    return summary.SerializeToString()


def with_nan(images: np.ndarray) -> np.ndarray:
    images = images.copy()
    images[0, 1, 2, 0] = np.nan
    return images


# --- tensors -----------------------------------------------------------------------------------------------------
def tensor_summary_bytes(tag: str, value: np.ndarray, dtype_enum: int) -> bytes:
    tensor = b"\x08" + bytes([dtype_enum]) + _length_delimited(2, b"".join(
        _length_delimited(2, b"\x08" + bytes([d])) for d in value.shape)) + _length_delimited(4, value.tobytes())
    return _length_delimited(1, _length_delimited(1, tag.encode()) + _length_delimited(8, tensor) + b"J\x00")


def merged(*summaries) -> bytes:
    return b"".join(summaries)  # a Summary's values are one repeated field: concatenation merges


# --- audio: WAV files from Python's wave module (test_audio_table.py) ---------------------------------------------
def audio_summary_bytes(tag: str, clips: np.ndarray, rate: float, max_outputs: int) -> bytes:
    """One Summary.Audio per clip (up to max_outputs): the float rate as given, the WAV at the rate rounded."""
    clips = clips if clips.ndim == 3 else clips[:, :, None]
    summary = summary_pb2.Summary()
    for i in range(min(max_outputs, len(clips))):
        audio = summary_pb2.Summary.Audio(sample_rate=rate, num_channels=clips.shape[2], length_frames=clips.shape[1],
                                          encoded_audio_string=wav_file(clips[i], round(rate)),
                                          content_type="audio/wav")
        summary.value.add(tag=f"{tag}/audio/{i}" if max_outputs > 1 else f"{tag}/audio", audio=audio)
    return summary.SerializeToString()


SCALAR = np.float32(rng.standard_normal())
VECTOR = rng.standard_normal(40).astype(np.float32)
WIDE = (rng.standard_normal(200) * 1e4).astype(np.float64)
IMAGES = rng.uniform(0, 1, (3, 4, 5, 3)).astype(np.float32)
SIGNED = rng.standard_normal((2, 3, 2, 1)).astype(np.float32)
RGBA = rng.integers(0, 256, (2, 2, 3, 4), dtype=np.uint8)
CLIPS = rng.uniform(-1.2, 1.2, (4, 30, 2)).astype(np.float32)

CASES = [
    OpCase("scalar_summary", lambda x: summary_ops.scalar("loss", x), [SCALAR],
           lambda x: string(scalar_summary_bytes([("loss", float(x))])), grad=False),
    OpCase("scalar_summary_int32", lambda x: summary_ops.scalar("count", x), [np.int32(7)],
           lambda x: string(scalar_summary_bytes([("count", 7.0)])), grad=False),
    OpCase("scalar_summary_float64_family", lambda x: summary_ops.scalar("acc", x, family="eval"),
           [np.float64(0.1)], lambda x: string(scalar_summary_bytes([("eval/eval/acc", 0.1)])), grad=False),
    OpCase("scalar_summary_op_vector", lambda x: apply_op("ScalarSummary", [["a", "b"], x]),
           [np.array([1.5, -2.0], np.float32)], lambda x: string(scalar_summary_bytes([("a", 1.5), ("b", -2.0)])),
           grad=False),
    OpCase("histogram_summary", lambda x: summary_ops.histogram("weights", x), [VECTOR],
           lambda x: string(histogram_summary_bytes("weights", x)), grad=False),
    OpCase("histogram_summary_wide_float64", lambda x: summary_ops.histogram("w", x), [WIDE.reshape(10, 20)],
           lambda x: string(histogram_summary_bytes("w", x)), grad=False),
    OpCase("histogram_summary_int32_with_zeros", lambda x: summary_ops.histogram("i", x),
           [np.array([0, 0, 3, -1, 1000000], np.int32)], lambda x: string(histogram_summary_bytes("i", x)),
           grad=False),
    OpCase("image_summary_float", lambda x: summary_ops.image("pic", x, max_outputs=2), [IMAGES],
           lambda x: string(image_summary_bytes("pic", x, 2)), grad=False),
    OpCase("image_summary_negative_one_output", lambda x: summary_ops.image("signed", x, max_outputs=1), [SIGNED],
           lambda x: string(image_summary_bytes("signed", x, 1)), grad=False),
    OpCase("image_summary_nan_is_bad_color", lambda x: summary_ops.image("nan", x), [with_nan(IMAGES)],
           lambda x: string(image_summary_bytes("nan", x, 3)), grad=False),
    OpCase("image_summary_uint8_rgba", lambda x: summary_ops.image("rgba", x), [RGBA],
           lambda x: string(image_summary_bytes("rgba", x, 3)), grad=False),
    OpCase("tensor_summary_float", lambda x: summary_ops.tensor_summary("t", x),
           [np.array([[1.5, 2.0, -1.0]], np.float32)], lambda x: string(tensor_summary_bytes("t", x, 1)), grad=False),
    OpCase("tensor_summary_int64", lambda x: summary_ops.tensor_summary("n", x), [np.array([3, 4], np.int64)],
           lambda x: string(tensor_summary_bytes("n", x, 9)), grad=False),
    OpCase("audio_summary_stereo", lambda x: audio_ops.audio_summary("voice", x, 8000), [CLIPS],
           lambda x: string(audio_summary_bytes("voice", x, 8000.0, 3)), grad=False),
    OpCase("audio_summary_mono_one_output_fractional_rate", lambda x: audio_ops.audio_summary("m", x, 22050.4,
                                                                                            max_outputs=1),
           [CLIPS[:, :, 0]], lambda x: string(audio_summary_bytes("m", x, 22050.4, 1)), grad=False),
    OpCase("merge_summary", lambda x: apply_op("MergeSummary", [summary_ops.scalar("a", x[0]),
                                                                summary_ops.histogram("b", x)], {"N": 2}),
           [VECTOR[:5]], lambda x: string(merged(scalar_summary_bytes([("a", float(x[0]))]),
                                                 histogram_summary_bytes("b", x))), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


def test_the_hand_written_references_are_what_protobuf_writes():
    """The by-hand wire format above agrees with the protobuf library."""
    assert scalar_summary_bytes([("loss", 0.5)]) == summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)]).SerializeToString()
    assert summary_ops.TEXT_PLUGIN_METADATA == summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")).SerializeToString()
    assert len(LIMITS) == 1551 and LIMITS[775] == 0.0


@pytest.mark.parametrize("bad, what", [(np.nan, "Nan"), (np.inf, "Infinity")])
def test_histogram_of_nan_or_infinity_is_an_error_naming_the_op(bad, what):
    graph = wf.Graph()
    with graph.as_default():
        x = wf.constant(np.array([1.0, bad], np.float32))
        summary = summary_ops.histogram("weights", x)
        with pytest.raises(wf.errors.InvalidArgumentError, match=f"{what} in summary histogram for: weights"):
            Session(graph=graph).run(summary)


def test_scalar_of_a_vector_is_an_error_naming_the_shapes():
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match=r"tags and values are not the same shape: \[\] != \[2\] \(tag 'x'\)"):
        summary_ops.scalar("x", wf.constant([1.0, 2.0]))


def test_merge_of_a_duplicate_tag_is_an_error():
    a = summary_ops.scalar("same", 1.0)
    with pytest.raises(wf.errors.InvalidArgumentError, match="Duplicate tag same found in summary inputs"):
        apply_op("MergeSummary", [a, a], {"N": 2})


def test_image_summary_wants_a_rank_4_tensor_of_1_3_or_4_channels():
    with pytest.raises(wf.errors.InvalidArgumentError, match="Tensor must be 4-D with last dim 1, 3, or 4"):
        summary_ops.image("x", wf.zeros([1, 2, 2, 2]))
    with pytest.raises(TypeError, match="has DataType int32 not in list of allowed values"):
        summary_ops.image("x", wf.zeros([1, 2, 2, 3], wf.int32))
