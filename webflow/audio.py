"""`wf.audio` (and `tf.compat.v1.audio`): WAV files as TensorFlow writes and reads them (ops/audio_ops.py)."""

from webflow.ops.audio_ops import decode_wav, encode_wav

__all__ = ["decode_wav", "encode_wav"]
