"""`explain(exc)`: why an op could not be built or run, pointed at the learner's own source line.

In the spirit of TensorSensor: for `y = x + b` failing with "Dimensions must be equal ...", say

    File "train.py", line 12, in <module>
      y = x + b
          ^   ^
    Cause: + on tensor operand x w/shape (3, 1) and operand b w/shape (2, 1)
    x's dimension 0 is 3 and b's dimension 0 is 2: they must be equal (or one of them 1) to broadcast.

How the failing op is found, from the exception's traceback (the exception itself is never changed):
- build time (graph mode): the frame of `registry.run_shape_rule` (a shape ValueError) or of
  `registry._apply_in_graph` (a dtype TypeError) holds the op def, the op's name and its input tensors;
- eager: the frame of `registry._apply_eagerly` holds the op def and the input tensors;
- run time (Session.run): the InvalidArgumentError's `.op`, the values it got (the executor frame's
  `args`, when present) and `op.traceback`, the line that built it.
The source line is the innermost frame outside webflow (or op.traceback for run-time errors); the
operator or call is found with `ast` (source_spans.py) and operands are read without running user code.
"""

from __future__ import annotations

import os
import re
from typing import Any

from webflow.framework.errors import OpError
from webflow.framework.tensor import TensorBase
from webflow.lab import error_frames, source_spans
from webflow.lab.formatting import dtype_text, shape_text, value_shape

_WEBFLOW_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_REGISTRY_FILE = os.path.join(_WEBFLOW_DIR, "ops", "registry.py")
_EXECUTOR_FILE = os.path.join(_WEBFLOW_DIR, "runtime", "executor.py")
BROADCASTING = {"AddV2", "Add", "Sub", "Mul", "RealDiv", "Div", "FloorDiv", "FloorMod", "Maximum", "Minimum", "Pow",
                "SquaredDifference", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                "LogicalAnd", "LogicalOr", "SelectV2"}


class FailedOp:
    """What is known about the op that failed: type, name, inputs (tensors or values) and phase."""

    def __init__(self, phase: str, opdef: Any, op_name: str | None, inputs: list, attrs: dict,
                 graph: Any = None, op: Any = None, values: list | None = None):
        self.phase = phase              # "build" | "eager" | "run"
        self.opdef = opdef
        self.op_type = opdef.type if opdef is not None else getattr(op, "type", "?")
        self.op_name = op_name
        self.inputs = inputs
        self.attrs = attrs
        self.graph = graph
        self.op = op
        self.values = values            # run time: the values the kernel got

    def input_shape(self, index: int) -> tuple | None:
        if self.values is not None and index < len(self.values):
            return value_shape(self.values[index])
        if index < len(self.inputs):
            return operand_shape(self.inputs[index])
        return None

    def input_dtype(self, index: int) -> str | None:
        if index < len(self.inputs):
            return dtype_text(getattr(self.inputs[index], "dtype", None))
        return None


def operand_shape(value: Any) -> tuple | None:
    """Shape of a tensor, variable, array or Python number/list (only webflow/NumPy/builtin objects are asked)."""
    module = type(value).__module__.split(".")[0]
    if isinstance(value, TensorBase) or module in ("webflow", "numpy"):
        shape = getattr(value, "shape", None)
        return None if shape is None else value_shape(value)
    if module == "builtins":
        return value_shape(value)
    return None


# --- finding the failing op in a traceback ---------------------------------------------------------------
def _frames(exc: BaseException) -> list:
    """[(frame, lasti, lineno)] from outermost to innermost (a live frame's f_lineno has moved on since)."""
    found, tb = [], exc.__traceback__
    while tb is not None:
        found.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    return found


def _frame_of(frames: list, file: str, function: str) -> Any:
    for frame, _, _ in reversed(frames):
        if frame.f_code.co_name == function and os.path.abspath(frame.f_code.co_filename) == file:
            return frame
    return None


def failed_op(exc: BaseException) -> FailedOp | None:
    """The op the exception is about, or None when it did not come from a webflow op."""
    frames = _frames(exc)
    frame = _frame_of(frames, _REGISTRY_FILE, "run_shape_rule")
    if frame is not None:
        f = frame.f_locals
        tensors = list(f["tensors"])
        graph = next((t.graph for t in tensors if hasattr(t, "graph")), None)
        return FailedOp("build", f["opdef"], f["op_name"], tensors, dict(f.get("attrs") or {}), graph)
    frame = _frame_of(frames, _REGISTRY_FILE, "_apply_in_graph")
    if frame is not None:
        f = frame.f_locals
        scope = f.get("scope")
        name = scope[:-1] if scope else f.get("name") or f["opdef"].default_name
        inputs = list(f.get("tensors") or f.get("inputs") or [])
        return FailedOp("build", f["opdef"], name, inputs, dict(f.get("attrs") or {}), f.get("graph"))
    frame = _frame_of(frames, _REGISTRY_FILE, "_apply_eagerly")
    if frame is not None:
        f = frame.f_locals
        inputs = list(f.get("tensors") or f.get("inputs") or [])
        return FailedOp("eager", f["opdef"], None, inputs, dict(f.get("attrs") or {}))
    op = getattr(exc, "op", None) if isinstance(exc, OpError) else None
    if op is None or not hasattr(op, "inputs"):
        return None
    values = _kernel_inputs(frames, op) or _shapes_in_message(exc, op)
    return FailedOp("run", op.op_def, op.name, list(op.inputs), dict(op.node_def["attr"]), op.graph, op, values)


def _kernel_inputs(frames: list, op: Any) -> list | None:
    """The values the failed kernel got, from the executor's frame that ran it: its `args` list, or (the lean run
    loop) its `values` dict read at the step's `input_uids`."""
    for frame, _, _ in reversed(frames):
        if os.path.abspath(frame.f_code.co_filename) != _EXECUTOR_FILE:
            continue
        local = frame.f_locals
        args = local.get("args")
        if isinstance(args, list) and len(args) == len(op.inputs):
            return list(args)
        values, uids = local.get("values"), local.get("input_uids")
        if isinstance(values, dict) and isinstance(uids, (list, tuple)) and len(uids) == len(op.inputs) \
                and all(uid in values for uid in uids):
            return [values[uid] for uid in uids]
    return None


def _shapes_in_message(exc: BaseException, op: Any) -> list | None:
    """Run-time shapes from the executor's message `(x:0 [3,1], b:0 [2,1])`, when its frame is not there."""
    found = re.findall(r"(\S+:\d+) \[([0-9,]*)\]", str(exc))
    if len(found) != len(op.inputs):
        return None
    return [_ShapeOnly(tuple(int(d) for d in dims.split(",") if d)) for _, dims in found]


class _ShapeOnly:
    def __init__(self, shape: tuple):
        self.shape = shape


def user_frame(exc: BaseException) -> tuple[Any, int, int] | None:
    """(frame, lasti, lineno) of the innermost frame outside webflow and the standard library (Pyodide's zipped
    one too: a `with` block's error passes through contextlib): the learner's line."""
    return error_frames.user_frame_of(_frames(exc))


# --- the explanation ---------------------------------------------------------------------------------------
class Explanation:
    """`.text` for a terminal, `.document` (a graph document with its `error` section) for the notebook."""

    def __init__(self, exc: BaseException, failed: FailedOp | None, located: Any, source: dict | None,
                 operands: list, cause: str | None, detail: str | None):
        self.exception = exc
        self.failed = failed
        self.located = located
        self.source = source
        self.operands = operands
        self.cause = cause
        self.detail = detail
        self.text = self._text()
        self.document = self._document() if failed is not None else None

    @property
    def found(self) -> bool:
        """True when the exception came from a webflow op (else text is just the exception's message)."""
        return self.failed is not None

    def _text(self) -> str:
        exc, failed = self.exception, self.failed
        if failed is None:
            return f"{type(exc).__name__}: {exc}"
        what = {"build": "could not be built", "eager": "failed (eager)", "run": "failed in Session.run"}[failed.phase]
        name = f" '{failed.op_name}'" if failed.op_name else ""
        lines = [f"webflow: the {failed.op_type} op{name} {what} ({_kind(exc)})"]
        if self.source is not None:
            built = " (where the op was built)" if failed.phase == "run" else ""
            lines.append(f'  {error_frames.where(self.source["file"], self.source["line"])}, in '
                         f'{self.source.get("function") or "?"}{built}')
            if self.source.get("code"):  # None when the line cannot be read back (exec'd code, `python -c`)
                lines += ["    " + line for line in marked_code(self.source["code"], self.operands)]
        if self.cause:
            lines.append("Cause: " + self.cause)
        if self.detail:
            lines.append(self.detail)
        return "\n".join(lines)

    def _document(self) -> dict:
        from webflow.lab.graph_document import graph_document, node_kind

        failed, exc = self.failed, self.exception
        name = failed.op_name or failed.op_type
        error = {"node": name, "type": type(exc).__name__, "message": str(exc), "explanation": self.text,
                 "summary": "\n".join(line for line in (self.cause, self.detail) if line),
                 "where": error_frames.where(self.source["file"], self.source["line"])
                 if self.source and self.source.get("file") else None,
                 "frames": error_frames.traceback_frames(exc),
                 "phase": failed.phase, "source": self.source,
                 "operands": [{k: v for k, v in o.items() if k != "dims"} for o in self.operands]}
        title = f"{failed.op_type} '{name}' {'failed' if failed.phase != 'build' else 'could not be built'}"
        if failed.graph is not None:
            document = graph_document(failed.graph, error=error, title=title)
        else:
            document = {"version": 1, "title": title, "live": False, "nodes": [], "edges": [], "error": error,
                        "profile": None}
        names = {node["name"] for node in document["nodes"]}
        if name not in names:  # the op does not exist (build/eager error): a stand-in node marks it
            document["nodes"].append({
                "name": name, "type": failed.op_type, "kind": node_kind(failed.op_type, name),
                "scope": name.rsplit("/", 1)[0] if "/" in name else "", "device": "", "backend": None,
                "attrs": {}, "outputs": [], "source": self.source, "kernel": None, "timing_us": None,
                "executed": False, "synthetic": True})
            for index, tensor in enumerate(failed.inputs):
                if getattr(tensor, "op", None) is not None and tensor.op.name in names:
                    document["edges"].append({
                        "source": tensor.op.name, "target": name, "tensor": tensor.name, "input_index": index,
                        "shape": shape_text(tensor.shape), "dtype": dtype_text(tensor.dtype), "control": False})
        for node in document["nodes"]:
            if node["name"] == name:
                node["error"] = True
        return document

    def __str__(self) -> str:
        return self.text

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        from webflow.lab.graph_document import MIME_TYPE

        if self.document is None:
            return {"text/plain": self.text}
        return {MIME_TYPE: self.document, "text/plain": self.text}


def _kind(exc: BaseException) -> str:
    """`ValueError`, or `ShapeError, a ValueError` for webflow's subclasses of a built-in exception."""
    name = type(exc).__name__
    builtin = next((k.__name__ for k in type(exc).__mro__ if k.__module__ == "builtins"), name)
    return name if builtin in (name, "Exception") else f"{name}, a {builtin}"


def marked_code(code: str, operands: list) -> list[str]:
    """The code lines, each followed by a line of ^ under the operands that start on it."""
    out, offset = [], 0
    for line in code.split("\n"):
        marks = [" "] * len(line)
        for operand in operands:
            start, end = operand["start"] - offset, operand["end"] - offset
            if 0 <= start < len(line):
                for column in range(start, min(end, len(line))):
                    marks[column] = "^"
        out.append(line)
        if "^" in marks:
            out.append("".join(marks).rstrip())
        offset += len(line) + 1
    return out


def explain(exc: BaseException) -> Explanation:
    """An Explanation of `exc` (its `.found` is False when no webflow op was involved)."""
    failed = failed_op(exc)
    if failed is None:
        return Explanation(exc, None, None, None, [], None, None)
    located, frame = _locate(exc, failed)
    source = None
    operands: list[dict] = []
    if located is not None:
        function = frame.f_code.co_name if frame is not None else (failed.op.traceback[2] if failed.op else "")
        source = {"file": located.file, "line": located.line, "function": function, "code": located.code}
        operands = _operands(located, failed, frame)
    elif failed.op is not None:
        from webflow.lab.graph_document import source_of

        source = source_of(failed.op.traceback)
    return Explanation(exc, failed, located, source, operands, _cause(located, operands, exc),
                       _detail(failed, operands))


def _locate(exc: BaseException, failed: FailedOp) -> tuple[Any, Any]:
    """(Located or None, the learner's frame or None)."""
    default_name = failed.opdef.default_name if failed.opdef is not None else None
    if failed.phase == "run":
        file, line, _ = failed.op.traceback
        # ops built earlier by the same line (e.g. the first `+` of `a + b + c`) tell which candidate it is
        same = [op for op in failed.graph.get_operations()
                if op.traceback[:2] == (file, line) and op.type == failed.op_type and op._id < failed.op._id]
        return source_spans.locate(file, line, op_type=failed.op_type, default_name=default_name,
                                   occurrence=len(same)), None
    found = user_frame(exc)
    if found is None:
        return None, None
    frame, lasti, lineno = found
    position = source_spans.position_of(frame.f_code, lasti)
    located = source_spans.locate(frame.f_code.co_filename, lineno, position=position,
                                  op_type=failed.op_type, default_name=default_name)
    return located, frame


def _operands(located: Any, failed: FailedOp, frame: Any) -> list[dict]:
    """Operand dicts {text, start, end, shape, dtype, input_index} for the operands that are op inputs."""
    by_name = located.is_binop or source_spans.call_matches(located.node, failed.op_type,
                                                              failed.opdef.default_name if failed.opdef else None)
    input_names = list(failed.opdef.inputs) if failed.opdef is not None else []
    result = []
    for operand in located.operands:
        value = source_spans.safe_value(operand.node, frame) if frame is not None else source_spans.MISSING
        index = None
        if by_name:
            index = operand.position if operand.keyword is None else (
                input_names.index(operand.keyword) if operand.keyword in input_names else None)
        elif value is not source_spans.MISSING:  # an unrelated call (a layer...): match inputs by identity
            index = next((i for i, t in enumerate(failed.inputs) if t is value), None)
        if index is not None and index >= len(failed.inputs):
            index = None
        shape = failed.input_shape(index) if index is not None else None
        dtype = failed.input_dtype(index) if index is not None else None
        if shape is None and value is not source_spans.MISSING:
            shape = operand_shape(value)
        if index is None and shape is None:
            continue
        result.append({"text": operand.text, "name": short_name(operand.text, index, input_names),
                       "shape": None if shape is None else shape_text(shape),
                       "dtype": dtype, "start": operand.start, "end": operand.end, "input_index": index,
                       "dims": shape})
    return result


def short_name(text: str, index: int | None, input_names: list) -> str:
    """What the explanation calls an operand: its own text when short (`w`, `weights["w"]`), else the op's input name
    (`a`, `x`), so that `tf.constant([[1., 2.], ...])` is not repeated whole in every sentence."""
    if len(text) <= 16 and "\n" not in text:
        return text
    if index is not None and index < len(input_names):
        return input_names[index]
    return f"input {index}" if index is not None else "an operand"


def _cause(located: Any, operands: list, exc: BaseException) -> str | None:
    if located is None or not operands:
        return None
    word = "w/dtype" if isinstance(exc, TypeError) else "w/shape"
    noun = "operand" if located.is_binop else "argument"

    def part(o: dict) -> str:
        described = o["dtype"] if word == "w/dtype" else o["shape"]
        return f"{noun} {o.get('name', o['text'])} {word} {described}"

    parts = [part(o) for o in operands]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{located.symbol} on tensor {joined}"


def _detail(failed: FailedOp, operands: list) -> str | None:
    """Which dimension disagrees, for broadcasting ops and MatMul."""
    by_index = {o["input_index"]: o for o in operands if o["input_index"] is not None}
    shapes = [failed.input_shape(i) for i in range(min(len(failed.inputs), 2))]
    names = [by_index[i].get("name", by_index[i]["text"]) if i in by_index else f"input {i}"
             for i in range(len(shapes))]
    if len(shapes) < 2 or shapes[0] is None or shapes[1] is None:
        return None
    a, b = shapes
    if failed.op_type in BROADCASTING:
        for back in range(1, min(len(a), len(b)) + 1):
            x, y = a[-back], b[-back]
            if x is not None and y is not None and x != y and 1 not in (x, y):
                return (f"{names[0]}'s dimension {len(a) - back} is {x} and {names[1]}'s dimension {len(b) - back} "
                        f"is {y}: they must be equal (or one of them 1) to broadcast.")
    if failed.op_type in ("MatMul", "BatchMatMulV2") and len(a) >= 2 and len(b) >= 2:
        flip_a = bool(failed.attrs.get("transpose_a") or failed.attrs.get("adj_x"))
        flip_b = bool(failed.attrs.get("transpose_b") or failed.attrs.get("adj_y"))
        inner_a, inner_b = a[-2] if flip_a else a[-1], b[-1] if flip_b else b[-2]
        if inner_a is not None and inner_b is not None and inner_a != inner_b:
            return (f"matrix product: {names[0]} has {inner_a} {'rows' if flip_a else 'columns'} but {names[1]} has "
                    f"{inner_b} {'columns' if flip_b else 'rows'}; they must be equal.")
    return None


__all__ = ["explain", "Explanation", "failed_op", "marked_code", "user_frame"]
