"""TF2's `tf.summary.audio` (tensorboard/plugins/audio/summary_v2.py): up to `max_outputs` clips of a float32
[k, frames, channels] tensor in [-1, 1], each encoded as a WAV file by EncodeWav (ops/audio_ops.py), written as a
string [k, 2] tensor of (wav bytes, label "") rows, with the audio plugin's metadata (plugin "audio", content
AudioPluginData(encoding=WAV)).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import wav
from webflow.framework.errors import InvalidArgumentError
from webflow.summary.summary_v2 import _values, summary_scope, write

WAV_ENCODING = 11  # AudioPluginData.Encoding.WAV (tensorboard/plugins/audio/plugin_data.proto)


def _audio_metadata(description: str | None) -> bytes:
    """SummaryMetadata(plugin_data=PluginData(plugin_name="audio", content=AudioPluginData(encoding=WAV)))."""
    from webflow.protos import summary_pb2

    content = bytes([2 << 3, WAV_ENCODING])  # AudioPluginData field 2 (encoding), a varint; version 0 is left out
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name="audio", content=content))
    if description is not None:
        metadata.summary_description = description
    return metadata.SerializeToString()


def _audio_tensor(data: Any, sample_rate: Any, max_outputs: int) -> Any:
    clips = _values(data)
    if clips.ndim != 3:  # (tf.debugging.assert_rank's message, with no tensor name eagerly)
        raise ValueError(f"Tensor  must have rank 3.  Received rank {clips.ndim}, shape {tuple(clips.shape)}")
    if max_outputs < 0:  # (tf.debugging.assert_non_negative's)
        raise InvalidArgumentError(None, None, f"\nCondition x >= 0 did not hold element-wise:\nx (shape=() "
                                               f"dtype=int32) = \n{max_outputs}")
    rate = int(np.asarray(_values(sample_rate)))
    out = np.empty((min(max_outputs, clips.shape[0]), 2), dtype=object)
    for i in range(out.shape[0]):
        out[i] = [wav.encode_wav(clips[i].astype(np.float32), rate), b""]
    return out


def audio(name: str, data: Any, sample_rate: Any, step: Any = None, max_outputs: int = 3,
          encoding: str | None = None, description: str | None = None) -> Any:
    """`tf.summary.audio`: up to `max_outputs` clips of `data` (float32 [k, frames, channels], in [-1, 1]) at
    `sample_rate` (an int) frames per second, for TensorBoard's audio dashboard."""
    if encoding is None:
        encoding = "wav"
    if encoding != "wav":
        raise ValueError(f"Unknown encoding: {encoding!r}")
    with summary_scope(name, "audio_summary", values=[data, sample_rate, max_outputs, step]) as (tag, _):
        return write(tag, lambda: _audio_tensor(data, sample_rate, int(max_outputs)), step,
                     _audio_metadata(description))


__all__ = ["audio"]
