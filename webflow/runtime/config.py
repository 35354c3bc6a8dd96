"""`ConfigProto`, `RunOptions`, `RunMetadata`: the knobs and reports of `Session.run`, as plain objects."""

from __future__ import annotations

from typing import Any


class GPUOptions:
    def __init__(self, allow_growth: bool = False, per_process_gpu_memory_fraction: float = 1.0, **kwargs: Any):
        self.allow_growth = allow_growth
        self.per_process_gpu_memory_fraction = per_process_gpu_memory_fraction


class ConfigProto:
    """Session configuration; `log_device_placement` and `operation_timeout_in_ms` change behaviour (one CPU
    device here)."""

    def __init__(self, log_device_placement: bool = False, allow_soft_placement: bool = False,
                 inter_op_parallelism_threads: int = 0, intra_op_parallelism_threads: int = 0,
                 device_count: dict | None = None, gpu_options: GPUOptions | None = None,
                 operation_timeout_in_ms: int = 0, **kwargs: Any):
        self.log_device_placement = log_device_placement
        self.operation_timeout_in_ms = operation_timeout_in_ms  # how long a queue op may wait (0: forever)
        self.allow_soft_placement = allow_soft_placement
        self.inter_op_parallelism_threads = inter_op_parallelism_threads
        self.intra_op_parallelism_threads = intra_op_parallelism_threads
        self.device_count = dict(device_count or {})
        self.gpu_options = gpu_options or GPUOptions()


class RunOptions:
    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(self, trace_level: int = 0, timeout_in_ms: int = 0, **kwargs: Any):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms


class NodeExecStats:
    """Timing of one op in one run (microseconds since the run started), like TF's NodeExecStats."""

    def __init__(self, node_name: str, op_type: str, start_micros: float, duration_micros: float,
                 output_shapes: list, device: str, backend: str = "numpy", fused_nodes: tuple = ()):
        self.node_name = node_name
        self.op_type = op_type
        self.all_start_micros = start_micros
        self.op_start_rel_micros = 0
        self.all_end_rel_micros = duration_micros
        self.output_shapes = output_shapes
        self.device = device
        self.backend = backend  # which kernel ran the op: numpy, native (C) or wasm (C in Pyodide)
        self.timeline_label = f"{node_name} = {op_type}() [backend: {backend}]"
        self.fused_nodes = fused_nodes  # a fused step (_FusedMatMul ...): the other graph ops its kernel ran


class StepStats:
    def __init__(self) -> None:
        self.dev_stats: list[NodeExecStats] = []


class RunMetadata:
    """Filled by `Session.run(..., options=RunOptions(trace_level=FULL_TRACE), run_metadata=...)`."""

    def __init__(self) -> None:
        self.step_stats = StepStats()
        self.partition_graphs: list = []
