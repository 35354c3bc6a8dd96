"""`graph_document(graph, ...)`: a Graph (plus what one Session.run measured) as the JSON document of SCHEMA.md.

The document is plain data (dicts, lists, str, numbers, None): `json.dumps` takes it as is, and the
TypeScript renderer in labextension/ draws it. Everything comes from the engine's public objects:
`graph.get_operations()`, `op.inputs`, `op.control_inputs`, `op.traceback` (where the op was built),
`op.outputs[i].shape`, and `run_metadata.step_stats.dev_stats` (NodeExecStats: timing and backend).
"""

from __future__ import annotations

import linecache
from typing import Any

from webflow.lab.formatting import attr_text, dtype_text, shape_text
from webflow.lab.kernels import kernel_info

VERSION = 1
MIME_TYPE = "application/vnd.webflow.graph+json"
PLACEHOLDER_TYPES = ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault")
VARIABLE_TYPES = ("VariableV2", "Variable", "VarHandleOp", "TemporaryVariable")


def node_kind(op_type: str, name: str) -> str:
    """placeholder | variable | gradient | constant | summary | op (SCHEMA.md: in this order of precedence)."""
    if op_type in PLACEHOLDER_TYPES:
        return "placeholder"
    if op_type in VARIABLE_TYPES:
        return "variable"
    if name.startswith("gradients"):  # the subgraph tf.gradients / optimizer.minimize built
        return "gradient"
    if op_type == "Const":
        return "constant"
    if "Summary" in op_type:  # ScalarSummary, HistogramSummary, MergeSummary, WriteScalarSummary ...
        return "summary"
    return "op"


def graph_document(graph: Any, *, run_metadata: Any = None, executed: Any = None, error: dict | None = None,
                   title: str | None = None, live: bool = False, profile: dict | None = None) -> dict:
    """The schema's document for `graph`.

    run_metadata: a RunMetadata filled by a FULL_TRACE run: gives each op's backend and `timing_us`
    (the last entry for that op), and, when `executed` is None, which ops ran.
    executed: op names that ran in the run shown (overrides run_metadata's).
    error: the document's `error` section (see shape_errors.py), shown highlighted.
    """
    ops = graph.get_operations()
    stats = last_stats_by_node(run_metadata)
    for stat in list(stats.values()):  # ops run inside a fused kernel (_FusedMatMul ...) ran too, in its time
        for name in getattr(stat, "fused_nodes", ()):
            stats.setdefault(name, stat)
    ran = set(executed) if executed is not None else set(stats)
    ran |= _constants_feeding(ops, ran)
    nodes = [_node(op, stats.get(op.name), op.name in ran) for op in ops]
    edges = [edge for op in ops for edge in op_edges(op)]
    if profile is None and run_metadata is not None:
        profile = profile_section(run_metadata)
    return {"version": VERSION, "title": title or f"Graph ({len(ops)} ops)", "live": bool(live),
            "nodes": nodes, "edges": edges, "error": error, "profile": profile}


def profile_section(run_metadata: Any) -> dict:
    """The schema's `profile` section: one row per node (calls summed), sorted by first start (profile.py makes
    tables and traces from the same RunMetadata)."""
    rows: dict[str, dict] = {}
    for stat in run_metadata.step_stats.dev_stats:
        row = rows.get(stat.node_name)
        if row is None:
            rows[stat.node_name] = {"node": stat.node_name, "type": stat.op_type, "backend": stat.backend,
                                    "start_us": float(stat.all_start_micros),
                                    "duration_us": float(stat.all_end_rel_micros), "calls": 1}
        else:
            row["duration_us"] += float(stat.all_end_rel_micros)
            row["calls"] += 1
    ops = sorted(rows.values(), key=lambda row: row["start_us"])
    return {"total_us": sum(row["duration_us"] for row in ops), "ops": ops}


def last_stats_by_node(run_metadata: Any) -> dict:
    """{op name: its last NodeExecStats} from a RunMetadata (empty without one)."""
    if run_metadata is None:
        return {}
    return {stat.node_name: stat for stat in run_metadata.step_stats.dev_stats}


def _constants_feeding(ops: list, ran: set) -> set:
    """Consts whose value an executed op used: the executor looks them up instead of running them."""
    if not ran:
        return set()
    return {t.op.name for op in ops if op.name in ran for t in op.inputs if t.op.type == "Const"}


def _node(op: Any, stat: Any, executed: bool) -> dict:
    backend = getattr(stat, "backend", None)
    name = op.name
    return {
        "name": name,
        "type": op.type,
        "kind": node_kind(op.type, name),
        "scope": name.rsplit("/", 1)[0] if "/" in name else "",
        "device": (stat.device if stat is not None else op.device) or "",
        "backend": backend,
        "attrs": {key: attr_text(value) for key, value in op.node_def["attr"].items() if not key.startswith("_")},
        "outputs": [{"name": t.name, "shape": shape_text(t.shape), "dtype": dtype_text(t.dtype)} for t in op.outputs],
        "source": source_of(op.traceback),
        "kernel": kernel_info(op, backend),
        "timing_us": None if stat is None else float(stat.all_end_rel_micros),
        "executed": bool(executed),
    }


def op_edges(op: Any) -> list:
    """Data edges (one per input, labelled with the tensor's static shape and dtype), then control edges."""
    edges = [{"source": t.op.name, "target": op.name, "tensor": t.name, "input_index": index,
              "shape": shape_text(t.shape), "dtype": dtype_text(t.dtype), "control": False}
             for index, t in enumerate(op.inputs)]
    edges += [{"source": c.name, "target": op.name, "tensor": None, "input_index": None,
               "shape": None, "dtype": None, "control": True} for c in op.control_inputs]
    return edges


def source_of(traceback: Any) -> dict | None:
    """{"file", "line", "function", "code"} of where an op was built (`op.traceback`), or None if unknown."""
    if not traceback:
        return None
    file, line, function = traceback
    if not line or file == "<unknown>":
        return None
    code = linecache.getline(file, line).strip()
    return {"file": file, "line": int(line), "function": function, "code": code or None}


__all__ = ["graph_document", "node_kind", "op_edges", "source_of", "last_stats_by_node", "profile_section",
           "MIME_TYPE", "VERSION"]
