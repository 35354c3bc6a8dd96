"""The no-NumPy kernels of EncodeWav and DecodeWav (ops/audio_ops.py) on CArrays, through wav_codec.py."""

from __future__ import annotations

import array

from webflow.backends.arrays.carray import CArray
from webflow.backends.portable import wav_codec
from webflow.framework import dtypes


def encode_wav(audio: CArray, sample_rate: CArray) -> CArray:
    """EncodeWav: float32 [frames, channels] -> a WAV file (scalar string)."""
    from webflow.backends.arrays import carray

    wav_codec.check_encode_inputs(tuple(audio.shape), tuple(sample_rate.shape))
    frames, channels = audio.shape
    data = wav_codec.encode(audio.data.tolist(), frames, channels, int(sample_rate.item()))
    return carray.from_value(data, dtypes.string)


def decode_wav(contents: CArray, *, desired_channels: int = -1, desired_samples: int = -1) -> list:
    """DecodeWav: a WAV file -> [float32 [samples, channels], int32 sample rate]."""
    from webflow.backends.arrays import carray

    wav_codec.check_decode_input(tuple(contents.shape))
    value = contents.data[0]
    channels, rate, frames, pcm = wav_codec.parse(value.encode("utf-8") if isinstance(value, str) else bytes(value))
    shape, samples = wav_codec.fit(wav_codec.pcm_to_floats(pcm), frames, channels, int(desired_samples),
                                   int(desired_channels))
    rate = rate - 2**32 if rate >= 2**31 else rate  # the uint32 rate into an int32 output, as the C++ assigns it
    return [CArray(array.array("f", samples), shape, dtypes.float32), carray.from_value(rate, dtypes.int32)]


__all__ = ["encode_wav", "decode_wav"]
