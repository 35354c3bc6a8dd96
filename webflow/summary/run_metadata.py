"""webflow's RunMetadata (runtime/config.py: plain Python objects, filled by `Session.run` with
`RunOptions(trace_level=FULL_TRACE)` or by `webflow.lab.profile()`) as TensorFlow's RunMetadata protocol buffer
(protos/config.proto, step_stats.proto), for `FileWriter.add_run_metadata` and TensorBoard.

webflow keeps one flat list of NodeExecStats, each naming its device; TensorFlow groups them per device
(StepStats.dev_stats[i].device, .node_stats). Each op becomes one NodeExecStats with TensorFlow's fields: node_name,
all_start_micros (microseconds since the epoch), op_start_rel_micros (0), op_end_rel_micros and all_end_rel_micros
(its duration), the same in nanoseconds, timeline_label, and one NodeOutput per output with its shape.
webflow records times from the run's first op, not the epoch: the run is taken to have ended when the
conversion happens (add_run_metadata is called right after the run), which TensorBoard's timings do not use.
"""

from __future__ import annotations

import time
from typing import Any

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"  # TensorFlow's full name of webflow's one device


def full_device_name(device: str | None) -> str:
    """`/device:CPU:0` (or nothing: an eager op) as TensorFlow names devices in step stats."""
    if not device:
        return CPU_DEVICE
    return device if device.startswith("/job:") else "/job:localhost/replica:0/task:0" + device


def run_metadata_proto(run_metadata: Any) -> Any:
    """TensorFlow's RunMetadata message of `run_metadata`: a webflow RunMetadata, a RunMetadata proto (from any
    protobuf module) or its serialized bytes."""
    from webflow.protos import config_pb2

    if isinstance(run_metadata, (bytes, bytearray, memoryview)):
        return config_pb2.RunMetadata.FromString(bytes(run_metadata))
    if hasattr(run_metadata, "SerializeToString"):
        return config_pb2.RunMetadata.FromString(run_metadata.SerializeToString())
    if not hasattr(run_metadata, "step_stats"):
        raise TypeError(f"expected a RunMetadata, got {type(run_metadata).__name__}")
    proto = config_pb2.RunMetadata()
    stats = list(run_metadata.step_stats.dev_stats)
    origin_micros = _origin_micros(stats)
    devices: dict = {}
    for stat in stats:
        device = full_device_name(getattr(stat, "device", ""))
        if device not in devices:
            devices[device] = proto.step_stats.dev_stats.add(device=device)
        _add_node_stats(devices[device], stat, origin_micros)
    for graph in getattr(run_metadata, "partition_graphs", []):  # GraphDefs, or webflow Graphs
        graph_def = graph.as_graph_def() if hasattr(graph, "as_graph_def") else graph
        proto.partition_graphs.add().ParseFromString(graph_def.SerializeToString())
    return proto


def _origin_micros(stats: list) -> float:
    """The wall time (microseconds since the epoch) of the run's start: now minus the run's length."""
    length = max((float(s.all_start_micros) + float(s.all_end_rel_micros) for s in stats), default=0.0)
    return time.time() * 1e6 - length


def _add_node_stats(device_stats: Any, stat: Any, origin_micros: float) -> None:
    from webflow.protos import step_stats_pb2

    start = origin_micros + float(stat.all_start_micros)
    duration = float(stat.all_end_rel_micros)
    node = step_stats_pb2.NodeExecStats(
        node_name=stat.node_name, all_start_micros=round(start), op_start_rel_micros=0,
        op_end_rel_micros=round(duration), all_end_rel_micros=round(duration),
        all_start_nanos=round(start * 1000), op_start_rel_nanos=0, op_end_rel_nanos=round(duration * 1000),
        all_end_rel_nanos=round(duration * 1000), timeline_label=getattr(stat, "timeline_label", ""))
    for slot, shape in enumerate(getattr(stat, "output_shapes", [])):
        output = node.output.add(slot=slot)
        output.tensor_description.shape.SetInParent()
        for size in shape:
            output.tensor_description.shape.dim.add(size=-1 if size is None else int(size))
    device_stats.node_stats.append(node)


__all__ = ["CPU_DEVICE", "full_device_name", "run_metadata_proto"]
