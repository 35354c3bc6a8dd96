"""`tf.compat.v1.train.summary_iterator(path)`: the Event protos of an event file, one per record, in order.

The file is read with webflow/io/tfrecord.py (a damaged record raises DataLossError); each record is parsed as
webflow's `Event` (webflow/protos/event.proto), so files written by TensorFlow read as well as webflow's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webflow.io.tfrecord import tf_record_iterator


def summary_iterator(path: Any) -> Iterator[Any]:
    """Iterates over the Events of the event file `path` (the first one is the file_version event). The file is
    opened now: a missing one raises NotFoundError here, as in TensorFlow."""
    return _events(tf_record_iterator(path))


def _events(records: Any) -> Iterator[Any]:
    from webflow.protos import event_pb2

    for record in records:
        yield event_pb2.Event.FromString(record)


__all__ = ["summary_iterator"]
