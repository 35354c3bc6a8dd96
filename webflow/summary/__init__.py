"""`tf.summary` of TF2: `create_file_writer`, and `scalar / histogram / image / text / audio` written at once
while executing eagerly (summary_v2.py, audio_v2.py), `trace_on / trace_export` (trace.py). TF1's `tf.summary`
(summary ops, FileWriter) is v1.py; README.md says more. Nothing here loads protobuf until an event is written."""

from webflow.summary import experimental
from webflow.summary.audio_v2 import audio
from webflow.summary.summary_v2 import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    histogram,
    image,
    record_if,
    scalar,
    should_record_summaries,
    text,
    write,
)
from webflow.summary.trace import trace_export, trace_off, trace_on

__all__ = ["SummaryWriter", "audio", "create_file_writer", "create_noop_writer", "experimental", "flush",
           "histogram", "image", "record_if", "scalar", "should_record_summaries", "text", "trace_export", "trace_off",
           "trace_on", "write"]
