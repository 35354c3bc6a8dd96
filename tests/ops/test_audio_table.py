"""Op table rows for the WAV ops (ops/audio_ops.py): EncodeWav and DecodeWav. (AudioSummaryV2's rows are in
test_summary_table.py, with the other summary ops.)

Oracles: Python's `wave` module writes and reads the RIFF/WAVE container (16-bit PCM, the same 44-byte header);
each sample is rounded with `decimal` (exact arithmetic, halves away from zero as C's roundf) and clipped to int16.
No gradients: TensorFlow registers none for these ops. tests/summary/test_summary_audio.py compares the bytes
with real TensorFlow's.
"""

import decimal
import io
import struct
import wave

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(31)


def int16_sample(x: float) -> int:
    """roundf(x * 32768) clipped to [-32768, 32767], NaN -> 0, by exact decimal arithmetic."""
    if np.isnan(x):
        return 0
    if np.isinf(x):
        return 32767 if x > 0 else -32768
    exact = (decimal.Decimal(float(x)) * 32768).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP)
    return max(-32768, min(32767, int(exact)))


def wav_file(audio: np.ndarray, sample_rate: int) -> bytes:
    """A WAV file written by Python's wave module: float [frames, channels] -> 16-bit PCM."""
    frames, channels = audio.shape
    samples = [int16_sample(x) for x in np.asarray(audio, np.float32).reshape(-1).tolist()]
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(channels)
        file.setsampwidth(2)
        file.setframerate(sample_rate)
        file.writeframes(struct.pack(f"<{len(samples)}h", *samples))
    return out.getvalue()


def read_wav(data: bytes) -> tuple:
    """(float32 [frames, channels] samples, rate) read by the wave module."""
    with wave.open(io.BytesIO(data), "rb") as file:
        channels, rate, frames = file.getnchannels(), file.getframerate(), file.getnframes()
        pcm = file.readframes(frames)
    values = np.array(struct.unpack(f"<{frames * channels}h", pcm), np.float32) / 32768
    return values.reshape(frames, channels).astype(np.float32), rate


def string(data: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = data
    return out


def fitted(samples: np.ndarray, channels: int, frames: int) -> np.ndarray:
    """DecodeWav's desired sizes: frames cut or zero-padded; channels cut or the last one repeated."""
    out = np.zeros((frames, channels), np.float32)
    for c in range(channels):
        source = samples[:, min(c, samples.shape[1] - 1)]
        out[:min(frames, len(source)), c] = source[:frames]
    return out


# edge samples: halves (x * 32768 = k + 0.5), beyond [-1, 1], NaN and infinities
EDGES = np.array([[0.5 / 32768, -0.5 / 32768], [1.5 / 32768, -2.5 / 32768], [1.0, -1.0], [1.5, -7.0],
                  [np.nan, np.inf], [-np.inf, 0.49999997 / 32768]], np.float32)
STEREO = rng.uniform(-1.1, 1.1, (50, 2)).astype(np.float32)
MONO = rng.uniform(-1, 1, (17, 1)).astype(np.float32)
STEREO_WAV = wav_file(STEREO, 16000)
MONO_WAV = wav_file(MONO, 8000)

CASES = [
    OpCase("encode_wav_stereo", lambda x: wf.audio.encode_wav(x, 16000), [STEREO],
           lambda x: string(wav_file(x, 16000)), grad=False),
    OpCase("encode_wav_mono_rate_tensor", lambda x: wf.audio.encode_wav(x, wf.constant(44100)), [MONO],
           lambda x: string(wav_file(x, 44100)), grad=False),
    OpCase("encode_wav_rounding_clipping_nan", lambda x: wf.audio.encode_wav(x, 3), [EDGES],
           lambda x: string(wav_file(x, 3)), grad=False),
    OpCase("decode_wav_stereo", lambda s: list(wf.audio.decode_wav(s)), [string(STEREO_WAV)],
           lambda s: [read_wav(s[()])[0], np.int32(16000)], grad=False, fully_static=False),
    OpCase("decode_wav_desired_sizes_pad_and_repeat",
           lambda s: list(wf.audio.decode_wav(s, desired_channels=3, desired_samples=20)), [string(MONO_WAV)],
           lambda s: [fitted(read_wav(s[()])[0], 3, 20), np.int32(8000)], grad=False),
    OpCase("decode_wav_desired_sizes_cut",
           lambda s: list(wf.audio.decode_wav(s, desired_channels=1, desired_samples=7)), [string(STEREO_WAV)],
           lambda s: [fitted(read_wav(s[()])[0], 1, 7), np.int32(16000)], grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


def test_the_decimal_rounding_is_roundf():
    """Halves go away from zero; the float32 just below a half goes down; clipping at the int16 ends."""
    assert [int16_sample(x) for x in EDGES.reshape(-1).tolist()] == [1, -1, 2, -3, 32767, -32768, 32767, -32768,
                                                                     0, 32767, -32768, 0]


def test_encode_wav_of_no_frames_is_the_header_alone():
    # (not a table row: tests/no_numpy_tables.py passes inputs as lists, and [] loses the shape [0, 3])
    data = wf.audio.encode_wav(np.zeros((0, 3), np.float32), 100).numpy()
    assert data == wav_file(np.zeros((0, 3), np.float32), 100) and len(data) == 44


def test_encode_then_decode_gives_the_int16_samples_back():
    audio = wf.audio.decode_wav(wf.audio.encode_wav(STEREO, 22050)).audio.numpy()
    expected = np.clip(np.array([[int16_sample(x) for x in row] for row in STEREO.tolist()]), -32768, 32767) / 32768
    np.testing.assert_array_equal(audio, expected.astype(np.float32))


@pytest.mark.parametrize("data, message", [
    (b"RIFX" + STEREO_WAV[4:], "Header mismatch: Expected RIFF but found RIFX"),
    (STEREO_WAV[:30], "Data too short when trying to read string"),
    (STEREO_WAV[:34] + b"\x08\x00" + STEREO_WAV[36:], "Can only read 16-bit WAV files, but received 8"),
    (STEREO_WAV[:36], "No data chunk found in WAV"),
])
def test_decode_wav_of_a_bad_file_is_tensorflows_error(data, message):
    with pytest.raises(wf.errors.InvalidArgumentError, match=message):
        wf.audio.decode_wav(data)


def test_encode_wav_errors_and_shape_rules():
    with pytest.raises(wf.errors.InvalidArgumentError, match=r"sample_rate must be in \(0, 2\^32\), got: 0"):
        wf.audio.encode_wav(MONO, 0)
    with pytest.raises(wf.errors.InvalidArgumentError, match="num_channels must be in"):
        wf.audio.encode_wav(np.zeros((3, 0), np.float32), 10)
    with wf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
            wf.audio.encode_wav(wf.constant([0.5]), 10)
        decoded = wf.audio.decode_wav(wf.constant(b"x"), desired_samples=5)
        assert decoded.audio.shape.as_list() == [5, None] and decoded.sample_rate.shape.rank == 0


def test_audio_summary_errors_are_tensorflows():
    from webflow.ops import audio_ops

    with pytest.raises(wf.errors.InvalidArgumentError, match=r"Tensor must be 3-D or 2-D, got: \[2\]"):
        audio_ops.audio_summary("a", np.zeros(2, np.float32), 8000)
    with pytest.raises(wf.errors.InvalidArgumentError, match="sample_rate must be > 0"):
        audio_ops.audio_summary("a", np.zeros((1, 4), np.float32), -1.0)
    with pytest.raises(wf.errors.InvalidArgumentError, match="sample_rate must be >= 1 after truncation"):
        audio_ops.audio_summary("a", np.zeros((1, 4), np.float32), 0.4)
    assert audio_ops.audio_summary("a", np.zeros((0, 4), np.float32), 0.4).numpy() == b""  # no clip: no check
