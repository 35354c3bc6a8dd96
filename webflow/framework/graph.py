"""`Graph` and `Operation`: the data structure that graph mode builds and `Session.run` executes.

Naming follows TensorFlow exactly: `unique_name` appends `_1`, `_2` ... per (lower-cased) name, and
op names and name scopes share one namespace, so `with name_scope("add")` after an op `add` gives
`add_1/`.

Longer than ~400 lines because Graph and Operation are one structure: a Graph creates, numbers and names its
Operations (unique names, name scopes, control dependencies, devices), and each Operation points back to its
Graph for its id, its control inputs and `op.run()`; TensorFlow keeps them, with GraphKeys, in one
framework/ops.py.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any

from webflow.framework import context
from webflow.framework.device import merge_devices
from webflow.framework.tensor import Tensor

_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")
_WEBFLOW_DIR = __file__.rsplit("framework", 1)[0]


class GraphKeys:
    """Standard collection names, as in `tf.GraphKeys`."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


# Writes a Graph as TensorFlow's GraphDef message: io/graph_def.py registers it on import (framework never imports
# io/, which needs protobuf), and the facades import io/.
_graph_def_writer: Any = None


def set_graph_def_writer(writer: Any) -> None:
    global _graph_def_writer
    _graph_def_writer = writer


def user_source_line() -> tuple[str, int, str]:
    """(file, line, function) of the innermost caller outside webflow: where a learner built this op."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_WEBFLOW_DIR):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0, "")
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)


class Operation:
    """A node: an op type applied to input tensors, producing output tensors."""

    def __init__(self, graph: Graph, op_type: str, name: str, inputs: list, output_specs: list,
                 attrs: dict, control_inputs: list, device: str, opdef: Any = None):
        self._graph = graph
        self._type = op_type
        self._name = name
        self._inputs = tuple(inputs)
        self._attrs = attrs
        self._control_inputs = list(control_inputs)
        self._device = device
        self._opdef = opdef
        self._id = graph._next_id()
        self._source = user_source_line()
        self._outputs = [Tensor(self, i, dtype, shape) for i, (shape, dtype) in enumerate(output_specs)]

    @property
    def name(self) -> str:
        return self._name

    @property
    def type(self) -> str:
        return self._type

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def inputs(self) -> tuple:
        return self._inputs

    @property
    def outputs(self) -> list:
        return self._outputs

    def values(self) -> tuple:
        return tuple(self._outputs)

    @property
    def control_inputs(self) -> list:
        return self._control_inputs

    @property
    def device(self) -> str:
        return self._device

    def _set_device(self, device: str) -> None:
        self._device = device

    @property
    def node_def(self) -> dict:
        return {"name": self._name, "op": self._type, "device": self._device,
                "input": [t.name for t in self._inputs] + ["^" + op.name for op in self._control_inputs],
                "attr": dict(self._attrs)}

    @property
    def op_def(self) -> Any:
        return self._opdef

    @property
    def traceback(self) -> tuple[str, int, str]:
        return self._source

    def get_attr(self, name: str) -> Any:
        if name in self._attrs:
            return self._attrs[name]
        if name == "T" and self._inputs:
            return self._inputs[0].dtype.base_dtype
        if name == "_gradient_op_type" and getattr(self, "_gradient_op_type", None):
            return self._gradient_op_type.encode()  # bytes, as TensorFlow's string attrs
        raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")

    def _add_control_input(self, op: Operation) -> None:
        if op not in self._control_inputs:
            self._control_inputs.append(op)

    def _add_control_inputs(self, ops: list) -> None:
        for op in ops:
            self._add_control_input(op)

    def run(self, feed_dict: Any = None, session: Any = None) -> None:
        from webflow.framework.default_session import session_for

        session_for(self._graph, session, "run()").run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self) -> str:
        lines = [f'name: "{self._name}"', f'op: "{self._type}"']
        lines += [f'input: "{t.name if t.value_index else t.op.name}"' for t in self._inputs]
        lines += [f'input: "^{op.name}"' for op in self._control_inputs]
        if self._device:
            lines.append(f'device: "{self._device}"')
        return "\n".join(lines) + "\n"


class _ControlDependencies:
    """One `with graph.control_dependencies(...)` block; ops created inside it are 'seen'."""

    def __init__(self, control_inputs: list, new_stack: bool):
        self.control_inputs = control_inputs
        self.new_stack = new_stack
        self.seen_ops: set = set()


class Graph:
    """A dataflow graph: Operations, their names, collections, and the scopes used while building."""

    def __init__(self) -> None:
        self._ops_by_name: dict[str, Operation] = {}
        self._ops: list[Operation] = []
        self._names_in_use: dict[str, int] = {}
        self._name_stack = ""
        self._control_stack: list[_ControlDependencies] = []
        self._device_stack: list[str] = []
        self._colocation_stack: list[Operation] = []   # colocate_with blocks, innermost last
        self._collections: dict[str, list] = {}
        self._finalized = False
        self._id_counter = 0
        self._gradient_override_map: dict[str, str] = {}
        self._unfeedable: set = set()
        self._attr_scopes: list[dict] = []
        self._variable_scope_store: Any = None
        self.seed: int | None = None
        self._building_function = False

    # --- ids and versions -----------------------------------------------------------------------
    def _next_id(self) -> int:
        self._id_counter += 1
        return self._id_counter

    @property
    def _last_id(self) -> int:
        return self._id_counter

    @property
    def version(self) -> int:
        return self._id_counter

    @property
    def building_function(self) -> bool:
        return self._building_function

    # --- default graph --------------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph(self)

    def finalize(self) -> None:
        self._finalized = True

    @property
    def finalized(self) -> bool:
        return self._finalized

    def _unsafe_unfinalize(self) -> None:
        self._finalized = False

    # --- names ----------------------------------------------------------------------------------
    def unique_name(self, name: str, mark_as_used: bool = True) -> str:
        """`name` prefixed by the current scope, made unique with `_1`, `_2` ... as TensorFlow does."""
        if self._name_stack:
            name = self._name_stack + "/" + name
        name_key = name.lower()
        count = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = count + 1
        if count > 0:
            base_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_key}_{count}"
                count += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{count - 1}"
        return name

    def get_name_scope(self) -> str:
        return self._name_stack

    @contextlib.contextmanager
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Opens scope `name` (made unique); a name ending in '/' re-enters that exact scope; '' or None resets."""
        if name:
            pattern = _VALID_SCOPE_NAME if self._name_stack else _VALID_OP_NAME
            if not pattern.match(name):
                raise ValueError(f"'{name}' is not a valid scope name")
        old_stack = self._name_stack
        if not name:
            new_stack = ""
        elif name.endswith("/"):
            new_stack = name[:-1]
        else:
            new_stack = self.unique_name(name)
        self._name_stack = new_stack
        try:
            yield new_stack + "/" if new_stack else ""
        finally:
            self._name_stack = old_stack

    # --- building ops ---------------------------------------------------------------------------
    def _create_op(self, op_type: str, inputs: list, output_specs: list, name: str, attrs: dict,
                   opdef: Any = None, control_inputs: list | None = None) -> Operation:
        """Adds an op named exactly `name` (callers make it unique), applying the active scopes."""
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")
        if name in self._ops_by_name:
            raise ValueError(f"Duplicate node name in graph: '{name}'")
        for tensor in inputs:
            if tensor.graph is not self:
                raise ValueError(
                    f"Tensor {tensor} must be from the same graph as the op '{name}' ({op_type}) being created.")
        input_ops = [t.op for t in inputs]
        controls = self._control_inputs_for(input_ops) + list(control_inputs or [])
        device = self._device_stack[-1] if self._device_stack else ""
        op = Operation(self, op_type, name, inputs, output_specs, attrs, controls, device, opdef)
        if self._colocation_stack:   # TensorFlow records the groups of every op it is colocated with
            groups = {g for target in self._colocation_stack for g in _colocation_groups(target)}
            op._attrs["_class"] = sorted(groups)
        if op_type in self._gradient_override_map:  # as TensorFlow's _gradient_op_type: kept after the block ends
            op._gradient_op_type = self._gradient_override_map[op_type]
        self._ops_by_name[name] = op
        self._ops.append(op)
        self._names_in_use.setdefault(name.lower(), 1)
        for block in self._control_stack:
            block.seen_ops.add(op)
        return op

    def _control_inputs_for(self, input_ops: list) -> list:
        """Control inputs from enclosing `control_dependencies` blocks, skipping ones that are already dominated."""
        result: list = []
        for block in self._control_stack:
            if any(op in block.seen_ops for op in input_ops):
                continue
            result.extend(c for c in block.control_inputs if c not in input_ops and c not in result)
        return result

    @contextlib.contextmanager
    def control_dependencies(self, control_inputs: Any) -> Iterator[None]:
        """Ops built in this block run after `control_inputs`; `None` clears enclosing dependencies."""
        if control_inputs is None:
            saved, self._control_stack = self._control_stack, []
            try:
                yield
            finally:
                self._control_stack = saved
            return
        ops = []
        for item in control_inputs:
            if hasattr(item, "_as_control_input"):
                item = item._as_control_input()
            if isinstance(item, Tensor):
                item = item.op
            if not isinstance(item, Operation):
                raise TypeError(f"Control input must be an Operation or a Tensor: {item!r}")
            if item.graph is not self:
                raise ValueError(f"Control input {item.name} must be from the same graph as this op.")
            if item not in ops:
                ops.append(item)
        block = _ControlDependencies(ops, False)
        self._control_stack.append(block)
        try:
            yield
        finally:
            self._control_stack.remove(block)

    @contextlib.contextmanager
    def device(self, device_name: Any) -> Iterator[None]:
        if callable(device_name):
            raise NotImplementedError("device functions are not supported; pass a device string")
        outer = self._device_stack[-1] if self._device_stack else ""
        self._device_stack.append(merge_devices(outer, device_name or "") if device_name else "")
        try:
            yield
        finally:
            self._device_stack.pop()

    @contextlib.contextmanager
    def colocate_with(self, op: Any, ignore_existing: bool = False) -> Iterator[None]:
        """Ops built in this block are colocated with `op` (a Tensor's or variable's op): one device here, so only
        TensorFlow's record of it, the `_class` attr (`loc:@<op>`) that GraphDefs carry. `None` with
        `ignore_existing=True` clears the enclosing blocks."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
        saved = self._colocation_stack
        target = _colocation_target(op)
        self._colocation_stack = ([] if ignore_existing else list(saved)) + ([target] if target is not None else [])
        try:
            yield
        finally:
            self._colocation_stack = saved

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map: dict) -> Iterator[None]:
        """Inside the block, ops of type K use the gradient registered under op_type_map[K]."""
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    # --- lookups ----------------------------------------------------------------------------------
    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True) -> Any:
        """Resolves a Tensor, Operation or name to an element of this graph, with TF's errors."""
        if allow_tensor and hasattr(obj, "_as_graph_element"):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj.graph is not self:
                raise ValueError(f"Operation {obj!r} is not an element of this graph.")
            return obj
        kinds = " or ".join(k for k, ok in (("Tensor", allow_tensor), ("Operation", allow_operation)) if ok)
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {kinds}.")

    def _element_by_name(self, name: str, allow_tensor: bool, allow_operation: bool) -> Any:
        if ":" in name and allow_tensor:
            op_name, _, index = name.partition(":")
            try:
                index = int(index)
            except ValueError:
                raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not a valid one. "
                                 "Tensor names must be of the form \"<op_name>:<output_index>\".") from None
            if op_name not in self._ops_by_name:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, does not exist in the graph.")
            op = self._ops_by_name[op_name]
            if index >= len(op.outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The operation, "
                               f"{op_name!r}, exists but only has {len(op.outputs)} outputs.")
            return op.outputs[index]
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a Operation.")
        if name not in self._ops_by_name:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        if not allow_operation:
            raise ValueError(f"The name {name!r} refers to an Operation, not a Tensor. "
                             f"Tensor names must be of the form \"<op_name>:<output_index>\".")
        return self._ops_by_name[name]

    # --- collections ------------------------------------------------------------------------------
    def add_to_collection(self, name: str, value: Any) -> None:
        self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: Any, value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list:
        return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list:
        items = self._collections.get(name, [])
        if scope is None:
            return list(items)
        pattern = re.compile(scope)
        return [item for item in items if hasattr(item, "name") and pattern.match(item.name)]

    def get_all_collection_keys(self) -> list[str]:
        return [key for key in self._collections if isinstance(key, str)]

    def clear_collection(self, name: str) -> None:
        self._collections.pop(name, None)

    # --- feeding ----------------------------------------------------------------------------------
    def prevent_feeding(self, tensor: Tensor) -> None:
        self._unfeedable.add(tensor._uid)

    def is_feedable(self, tensor: Tensor) -> bool:
        return tensor._uid not in self._unfeedable

    # --- serialization ----------------------------------------------------------------------------
    def as_graph_def(self, from_version: int | None = None, add_shapes: bool = False) -> Any:
        """This graph as TensorFlow's GraphDef protocol buffer (io/graph_def.py; needs protobuf and NumPy).

        `from_version`: only the ops added after `graph.version` was that number; `add_shapes`: each node gets
        an `_output_shapes` attr with its outputs' static shapes."""
        if _graph_def_writer is None:
            raise RuntimeError("Graph.as_graph_def needs webflow.io (import webflow or webflow.compat.v1 loads it)")
        return _graph_def_writer(self, from_version=from_version, add_shapes=add_shapes)

    @property
    def graph_def_versions(self) -> Any:
        """The VersionDef a GraphDef of this graph carries (TensorFlow's producer version)."""
        return self.as_graph_def(from_version=self._id_counter).versions

    def __repr__(self) -> str:
        return f"<webflow.Graph with {len(self._ops)} ops>"


def _colocation_target(op: Any) -> Operation | None:
    """The Operation a colocate_with argument stands for: itself, a Tensor's op, a variable's op."""
    if op is None or isinstance(op, Operation):
        return op
    return op.op   # a Tensor's op; a RefVariable's VariableV2, a ResourceVariable's VarHandleOp


def _colocation_groups(op: Operation) -> list:
    """TensorFlow's `op.colocation_groups()`: its own `_class` attr, else `[b"loc:@<op name>"]`."""
    return list(op._attrs.get("_class") or [b"loc:@" + op.name.encode()])


context.set_graph_factory(Graph)
