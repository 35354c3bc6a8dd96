"""`tf.compat.v1.summary`: TF1's summary ops (ops/summary_ops.py; audio: ops/audio_ops.py), FileWriter and
FileWriterCache (writer.py), and the proto classes `Summary`, `SummaryDescription`, `Event`, `SessionLog`,
`TaggedRunMetadata` (loaded, with protobuf, when first used).

As in TensorFlow, `scalar / histogram / image / text / audio` called eagerly while a TF2 default writer and a default
step are set write through TF2's functions (summary_v2.py) and return an empty string; otherwise they build
(or, eagerly, run) the summary op. (TensorFlow also takes the global step as the step; webflow does not.)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from webflow.framework import context
from webflow.ops import audio_ops, summary_ops
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor
from webflow.ops.manip_ops import expand_dims
from webflow.ops.summary_ops import merge, merge_all, tensor_summary
from webflow.summary import audio_v2, summary_v2
from webflow.summary.writer import FileWriter, FileWriterCache

_PROTOS = {"Summary": "summary_pb2", "SummaryDescription": "summary_pb2", "Event": "event_pb2",
           "SessionLog": "event_pb2", "TaggedRunMetadata": "event_pb2"}


def __getattr__(name: str) -> Any:
    """The proto classes, imported on first use (so that `import webflow` loads no protobuf)."""
    if name in _PROTOS:
        import importlib

        return getattr(importlib.import_module(f"webflow.protos.{_PROTOS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _invoke_v2() -> bool:
    """Whether a TF1 summary call should write through TF2's functions (summary.py's _should_invoke_v2_op)."""
    if not context.executing_eagerly():
        return False
    if not summary_v2.has_default_writer():
        warnings.warn("Cannot activate TF2 compatibility support for TF1 summary ops: default summary writer not "
                      "found.", stacklevel=3)
        return False
    if summary_v2.get_step() is None:
        warnings.warn("Cannot activate TF2 compatibility support for TF1 summary ops: global step not set. To set "
                      "step for summary writer, use `tf.summary.SummaryWriter.as_default(step=_)`, "
                      "`tf.summary.experimental.set_step()`.", stacklevel=3)
        return False
    return True


@contextlib.contextmanager
def _compat_summary_scope(name: str, family: str | None) -> Iterator[str]:
    """TF1's tag (with `family`), then no name scope at all, so TF2's function uses that tag as it is."""
    with summary_ops.summary_scope(name, family) as (tag, _), summary_ops.summary_scope(name="", family=None):
        yield tag


def scalar(name: str, tensor: Any, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.scalar` (ops/summary_ops.py)."""
    if _invoke_v2():
        with _compat_summary_scope(name, family) as tag:
            summary_v2.scalar(tag, tensor, step=summary_v2.get_step())
        return constant(b"")
    return summary_ops.scalar(name, tensor, collections, family)


def histogram(name: str, values: Any, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.histogram` (ops/summary_ops.py)."""
    if _invoke_v2():
        with _compat_summary_scope(name, family) as tag:
            summary_v2.histogram(tag, values, step=summary_v2.get_step())
        return constant(b"")
    return summary_ops.histogram(name, values, collections, family)


def image(name: str, tensor: Any, max_outputs: int = 3, collections: Any = None, family: str | None = None) -> Any:
    """`tf.compat.v1.summary.image` (ops/summary_ops.py)."""
    if _invoke_v2():
        with _compat_summary_scope(name, family) as tag:
            summary_v2.image(tag, tensor, step=summary_v2.get_step(), max_outputs=max_outputs)
        return constant(b"")
    return summary_ops.image(name, tensor, max_outputs, collections, family)


def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3, collections: Any = None,
          family: str | None = None) -> Any:
    """`tf.compat.v1.summary.audio` (ops/audio_ops.py: AudioSummaryV2)."""
    if _invoke_v2():
        clips = convert_to_tensor(tensor)
        if clips.shape.rank == 2:  # TF2's audio wants [k, frames, channels]
            clips = expand_dims(clips, 2)
        with _compat_summary_scope(name, family) as tag:
            audio_v2.audio(tag, clips, sample_rate, step=summary_v2.get_step(), max_outputs=max_outputs)
        return constant(b"")
    return audio_ops.audio_summary(name, tensor, sample_rate, max_outputs, collections, family)


def text(name: str, tensor: Any, collections: Any = None) -> Any:
    """`tf.compat.v1.summary.text` (ops/summary_ops.py)."""
    if _invoke_v2():
        summary_v2.text(name, tensor, step=summary_v2.get_step())
        return constant(b"")
    return summary_ops.text(name, tensor, collections)


# (the proto classes are left out of __all__: a star import would load protobuf)
__all__ = ["FileWriter", "FileWriterCache", "audio", "histogram", "image", "merge", "merge_all", "scalar",
           "tensor_summary", "text"]
