"""WAV files with NumPy: the sample conversion of backends/portable/wav_codec.py (which holds the header, the parsing
and the rules, wav_io.cc's) done on whole arrays, for the NumPy kernels of EncodeWav, DecodeWav and AudioSummaryV2.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import wav_codec


def float_to_int16(audio: Any) -> Any:
    """wav_codec.float_to_int16 on every sample: roundf(x * 32768) clipped to int16, NaN to 0. The product is exact
    in float32 (a power of two); rounding half away from zero is floor(|y| + 0.5) in float64, where it is exact."""
    scaled = (np.asarray(audio, np.float32) * np.float32(wav_codec.SCALE)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        rounded = np.copysign(np.floor(np.abs(scaled) + 0.5), scaled)
        clipped = np.clip(rounded, -32768.0, 32767.0)
    return np.where(np.isnan(clipped), 0.0, clipped).astype(np.int16)


def encode_wav(audio: Any, sample_rate: int) -> bytes:
    """A WAV file of `audio`, a float [frames, channels] array, at `sample_rate` frames per second."""
    audio = np.asarray(audio, np.float32)
    frames, channels = audio.shape
    return wav_codec.header(frames, channels, sample_rate) + float_to_int16(audio).astype("<i2").tobytes()


def decode_wav(data: bytes, desired_channels: int = -1, desired_samples: int = -1) -> tuple:
    """(float32 [frames, channels] samples, sample rate) of a 16-bit PCM WAV file, fitted to the desired sizes as
    DecodeWav does (wav_codec.fit: frames cut or zero-padded, channels cut or the last one repeated)."""
    channels, rate, frames, pcm = wav_codec.parse(data)
    samples = np.frombuffer(pcm, "<i2").reshape(frames, channels).astype(np.float32) / np.float32(wav_codec.SCALE)
    out_frames, out_channels = wav_codec.output_size(frames, channels, desired_samples, desired_channels)
    out = np.zeros((out_frames, out_channels), np.float32)
    kept = min(frames, out_frames)
    out[:kept] = samples[:kept][:, np.minimum(np.arange(out_channels), channels - 1)]
    return out, rate


__all__ = ["float_to_int16", "encode_wav", "decode_wav"]
