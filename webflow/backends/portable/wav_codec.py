"""WAV files as TensorFlow writes and reads them (tensorflow/core/lib/wav/wav_io.cc), in pure Python: the rules
behind EncodeWav, DecodeWav and AudioSummaryV2 (ops/audio_ops.py) for every backend. The NumPy kernels
(backends/numpy/wav.py) use the header and parsing here and convert the samples with NumPy; the portable kernels
(audio_kernels.py) convert them one by one with `float_to_int16`.

Encoding: a 44-byte header — "RIFF", file size - 8, "WAVE"; "fmt ", 16, format 1 (PCM), channels, sample rate,
bytes per second (rate * 2 * channels), bytes per frame (2 * channels), 16 bits; "data", data size — then 16-bit
little-endian samples frame by frame. A float sample x becomes roundf(x * 32768) (halves away from zero), clipped
to [-32768, 32767]: 1.0 gives 32767, -1.0 gives -32768; NaN gives 0 (what x86 makes of the C++ cast).
Decoding: the same header (JUNK-like chunks before "fmt " and unknown chunks after it are skipped); each int16
sample s becomes s / 32768.
"""

from __future__ import annotations

import array
import math
import struct
import sys

from webflow.framework.errors import InvalidArgumentError

UINT32_MAX = 2**32 - 1
UINT16_MAX = 2**16 - 1
INT32_MAX = 2**31 - 1
HEADER_SIZE = 44
SCALE = 32768.0
_SKIPPED_BEFORE_FORMAT = (b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml")


def _error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def _shape_text(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def check_encode_inputs(audio_shape: tuple, rate_shape: tuple) -> None:
    """EncodeWav's run-time checks of its inputs' shapes (encode_wav_op.cc's messages)."""
    if len(audio_shape) != 2:
        raise _error(f"audio must be 2-dimensional{_shape_text(audio_shape)}")
    if len(rate_shape) != 0:
        raise _error(f"Input sample_rate should be a scalar tensor, got {_shape_text(rate_shape)} instead.")


def check_decode_input(contents_shape: tuple) -> None:
    """DecodeWav's run-time check of its input's shape (decode_wav_op.cc's message)."""
    if len(contents_shape) != 0:
        raise _error(f"contents must be scalar, got shape {_shape_text(contents_shape)}")


def float_to_int16(x: float) -> int:
    """FloatToInt16Sample of one float32 sample. x * 32768 is exact (a power of two); rounding half away from
    zero is floor(|y| + 0.5) in float64, where that sum is exact for every float32 y that could round up."""
    y = x * SCALE
    if math.isnan(y):
        return 0
    rounded = math.copysign(math.floor(abs(y) + 0.5), y) if math.isfinite(y) else y
    return int(min(max(rounded, -32768.0), 32767.0))


def header(frames: int, channels: int, sample_rate: int) -> bytes:
    """The 44 bytes before the samples; the rate is taken as C++'s size_t (a negative int32 wraps)."""
    rate = sample_rate % 2**64
    if rate == 0 or rate > UINT32_MAX:
        raise _error(f"sample_rate must be in (0, 2^32), got: {rate}")
    if channels == 0 or channels > UINT16_MAX:
        raise _error(f"num_channels must be in (0, 2^16), got: {channels}")
    data_size = frames * channels * 2
    if HEADER_SIZE + data_size > UINT32_MAX:
        raise _error("Provided channels and frames cannot be encoded as a WAV.")
    return struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", HEADER_SIZE + data_size - 8, b"WAVE", b"fmt ", 16, 1,
                       channels, rate, rate * 2 * channels, 2 * channels, 16, b"data", data_size)


def encode(samples: list, frames: int, channels: int, sample_rate: int) -> bytes:
    """A WAV file of `frames * channels` float samples given frame by frame."""
    head = header(frames, channels, sample_rate)
    pcm = array.array("h", [float_to_int16(x) for x in samples])
    if sys.byteorder == "big":
        pcm.byteswap()
    return head + pcm.tobytes()


class _Reader:
    """Reads a WAV string front to back with wav_io.cc's bounds checks and messages."""

    def __init__(self, data: bytes):
        self.data, self.offset = data, 0

    def take(self, size: int) -> bytes:
        if self.offset + size > len(self.data):
            raise _error("Data too short when trying to read string")
        piece = self.data[self.offset:self.offset + size]
        self.offset += size
        return piece

    def number(self, fmt: str) -> int:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def expect(self, text: bytes) -> None:
        found = self.take(len(text))
        if found != text:
            raise _error(f"Header mismatch: Expected {text.decode()} but found {found.decode('latin-1')}")


def parse(data: bytes) -> tuple:
    """(channels, sample rate, frames, the little-endian int16 samples as bytes) of a 16-bit PCM WAV file."""
    reader = _Reader(bytes(data))
    reader.expect(b"RIFF")
    reader.number("<I")
    reader.expect(b"WAVE")
    chunk = reader.take(4)
    while chunk != b"fmt ":
        if chunk not in _SKIPPED_BEFORE_FORMAT:
            raise _error(f"Unexpected field {chunk.decode('latin-1')}")
        reader.take(reader.number("<I"))
        chunk = reader.take(4)
    channels, rate, bytes_per_frame = _read_format(reader)
    pcm = None
    while reader.offset < len(reader.data):
        chunk_id, size = reader.take(4), reader.number("<I")
        if size > INT32_MAX:
            raise _error(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: {size} bytes, but the limit "
                         f"is {INT32_MAX}")
        if chunk_id != b"data":
            reader.offset += size
            continue
        if pcm is not None:
            raise _error("More than one data chunk found in WAV")
        frames = size // bytes_per_frame
        pcm = reader.take(frames * channels * 2)
    if pcm is None:
        raise _error("No data chunk found in WAV")
    return channels, rate, len(pcm) // (2 * channels), pcm


def _read_format(reader: _Reader) -> tuple:
    """(channels, sample rate, bytes per frame) from the "fmt " chunk, checked as wav_io.cc checks it (its
    messages, missing spaces included)."""
    size = reader.number("<I")
    if size not in (16, 18):
        raise _error(f"Bad format chunk size for WAV: Expected 16 or 18, but got{size}")
    audio_format = reader.number("<H")
    if audio_format != 1:
        raise _error(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = reader.number("<H")
    if channels < 1:
        raise _error(f"Bad number of channels for WAV: Expected at least 1, but got {channels}")
    rate, bytes_per_second = reader.number("<I"), reader.number("<I")
    bytes_per_frame, bits = reader.number("<H"), reader.number("<H")
    if bits != 16:
        raise _error(f"Can only read 16-bit WAV files, but received {bits}")
    expected_frame = (bits * channels + 7) // 8
    if bytes_per_frame != expected_frame:
        raise _error(f"Bad bytes per sample in WAV header: Expected {expected_frame} but got {bytes_per_frame}")
    expected_second = (bytes_per_frame * rate) % 2**32
    if bytes_per_second != expected_second:
        raise _error(f"Bad bytes per second in WAV header: Expected {expected_second} but got {bytes_per_second} "
                     f"(sample_rate={rate}, bytes_per_sample={bytes_per_frame})")
    if size == 18:
        reader.offset += 2
    return channels, rate, bytes_per_frame


def pcm_to_floats(pcm: bytes) -> list:
    """Each little-endian int16 sample s as s / 32768."""
    samples = array.array("h", pcm)
    if sys.byteorder == "big":
        samples.byteswap()
    return [s / SCALE for s in samples]


def output_size(frames: int, channels: int, desired_samples: int, desired_channels: int) -> tuple:
    """DecodeWav's (frames, channels): the file's, or the desired ones (-1 keeps the file's)."""
    return (frames if desired_samples == -1 else desired_samples,
            channels if desired_channels == -1 else desired_channels)


def fit(samples: list, frames: int, channels: int, desired_samples: int, desired_channels: int) -> tuple:
    """((frames, channels), flat samples) of DecodeWav: frames cut or zero-padded, channels cut or the last one
    repeated."""
    out_frames, out_channels = output_size(frames, channels, desired_samples, desired_channels)
    out = []
    for frame in range(out_frames):
        for channel in range(out_channels):
            source = min(channel, channels - 1)
            out.append(samples[frame * channels + source] if frame < frames else 0.0)
    return (out_frames, out_channels), out


__all__ = ["check_encode_inputs", "check_decode_input", "float_to_int16", "header", "encode", "parse", "pcm_to_floats",
           "output_size", "fit"]
