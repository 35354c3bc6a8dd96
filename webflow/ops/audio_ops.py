"""Audio ops: `EncodeWav`, `DecodeWav` (`tf.audio.encode_wav / decode_wav`) and `AudioSummaryV2`
(`tf.compat.v1.summary.audio`), with TensorFlow's WAV rules (backends/portable/wav_codec.py: 16-bit PCM, roundf,
clipping; backends/numpy/wav.py converts whole arrays).

None of them has a gradient: AudioSummaryV2 is NotDifferentiable, as every summary op; EncodeWav and DecodeWav have
no gradient registered in TensorFlow either (tf.gradients through them raises LookupError).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import wav
from webflow.backends.portable import audio_kernels, wav_codec
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.graph import GraphKeys
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.summary_ops import (
    _input,
    _shape_text,
    _string_scalar,
    _summary_shape,
    _text,
    collect,
    summary_scope,
)


def _require_rank(shape: Any, rank: int) -> None:
    if shape.rank is not None and shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {shape.rank}")


# --- EncodeWav -----------------------------------------------------------------------------------------------
def _encode_wav_shape(inputs: list, attrs: dict) -> tuple:
    _require_rank(inputs[0].shape, 2)
    _require_rank(inputs[1].shape, 0)
    return output_spec((), dtypes.string)


@register_op("EncodeWav", "EncodeWav", inputs=("audio", "sample_rate"), shape=_encode_wav_shape,
             portable=audio_kernels.encode_wav)
def encode_wav_kernel(audio: Any, sample_rate: Any) -> Any:
    """A WAV file (scalar string) of float32 audio [frames, channels]: each sample clip(roundf(x * 32768)) as
    16-bit PCM, after the 44-byte RIFF header (backends/numpy/wav.py)."""
    audio, sample_rate = np.asarray(audio), np.asarray(sample_rate)
    wav_codec.check_encode_inputs(audio.shape, sample_rate.shape)
    return _string_scalar(wav.encode_wav(audio, int(sample_rate)))


def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> Any:
    """`tf.audio.encode_wav(audio, sample_rate)`: float32 [frames, channels] samples in [-1, 1] as a WAV file."""
    return apply_op("EncodeWav", [audio, sample_rate], {}, name=name)


# --- DecodeWav -----------------------------------------------------------------------------------------------
def _decode_wav_shape(inputs: list, attrs: dict) -> list:
    _require_rank(inputs[0].shape, 0)
    dims = []
    for key, what in (("desired_samples", "samples"), ("desired_channels", "channels")):
        value = int(attrs.get(key, -1))
        if value < -1:
            raise ShapeError(f"{what} must be non-negative, got {value}")
        dims.append(None if value == -1 else value)
    return [output_spec(dims, dtypes.float32), output_spec((), dtypes.int32)]


@register_op("DecodeWav", "DecodeWav", inputs=("contents",), shape=_decode_wav_shape, portable=audio_kernels.decode_wav)
def decode_wav_kernel(contents: Any, desired_channels: int = -1, desired_samples: int = -1) -> list:
    """The float32 [samples, channels] audio (each int16 sample s as s / 32768) and the int32 sample rate of a
    16-bit PCM WAV file; `desired_samples` cuts or zero-pads, `desired_channels` cuts or repeats the last one."""
    contents = np.asarray(contents)
    wav_codec.check_decode_input(contents.shape)
    audio, rate = wav.decode_wav(contents[()], int(desired_channels), int(desired_samples))
    return [audio, np.asarray(rate, np.uint32).astype(np.int32)]


DecodeWav = namedtuple("DecodeWav", ["audio", "sample_rate"])


def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: str | None = None) -> DecodeWav:
    """`tf.audio.decode_wav(contents)`: (audio float32 [samples, channels], sample_rate int32) of a WAV file."""
    audio, rate = apply_op("DecodeWav", [contents], {"desired_channels": int(desired_channels),
                                                      "desired_samples": int(desired_samples)}, name=name)
    return DecodeWav(audio, rate)


# --- AudioSummaryV2 ------------------------------------------------------------------------------------------
@register_op("AudioSummaryV2", "AudioSummaryV2", inputs=("tag", "tensor", "sample_rate"), shape=_summary_shape)
def audio_summary_v2_kernel(tag: Any, tensor: Any, sample_rate: Any, max_outputs: int = 3) -> Any:
    """A Summary with up to `max_outputs` Summary.Audio values of a float [batch, frames(, channels)] tensor,
    tagged "<tag>/audio/<i>" ("<tag>/audio" when max_outputs is 1), each a WAV file (content type audio/wav) at
    lrintf(sample_rate) frames per second; the Audio's sample_rate is the float as given."""
    from webflow.protos import summary_pb2

    tag, tensor = np.asarray(tag), np.asarray(tensor, np.float32)
    if tag.ndim != 0:
        raise InvalidArgumentError(None, None, "Tag must be a scalar")
    if tensor.ndim not in (2, 3):
        raise InvalidArgumentError(None, None, f"Tensor must be 3-D or 2-D, got: {_shape_text(tensor.shape)}")
    rate = np.float32(np.asarray(sample_rate))
    if not rate > 0:
        raise InvalidArgumentError(None, None, "sample_rate must be > 0")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    whole_rate = int(np.rint(rate))  # lrintf: to nearest, halves to even
    summary = summary_pb2.Summary()
    for i in range(min(int(max_outputs), batch)):
        if whole_rate == 0:
            raise InvalidArgumentError(None, None, "sample_rate must be >= 1 after truncation")
        audio = summary_pb2.Summary.Audio(sample_rate=float(rate), num_channels=channels, length_frames=frames,
                                          content_type="audio/wav",
                                          encoded_audio_string=wav.encode_wav(tensor[i].reshape(frames, channels),
                                                                              whole_rate))
        base = _text(tag[()])
        summary.value.add(tag=f"{base}/audio/{i}" if max_outputs > 1 else f"{base}/audio", audio=audio)
    return _string_scalar(summary.SerializeToString())


NotDifferentiable("AudioSummaryV2")


def audio_summary(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3, collections: Any = None,
                  family: str | None = None) -> Any:
    """`tf.compat.v1.summary.audio`: an AudioSummaryV2 of up to `max_outputs` clips of a float32
    [batch, frames, channels] (or [batch, frames]) tensor in [-1, 1], added to GraphKeys.SUMMARIES."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        rate = _input(float(sample_rate) if isinstance(sample_rate, int) else sample_rate, "sample_rate", scope,
                      (dtypes.float32,))
        clips = _input(tensor, "tensor", scope, (dtypes.float32,))
        value = apply_op("AudioSummaryV2", [tag, clips, rate], {"max_outputs": int(max_outputs)}, name=scope)
        collect(value, collections, [GraphKeys.SUMMARIES])
    return value


__all__ = ["encode_wav", "decode_wav", "DecodeWav", "audio_summary"]
