"""Variables: state that survives between runs. This module holds the TF1 graph-mode variable and `tf.Variable`.

- `RefVariable` (TF1 graph mode): a `VariableV2` op whose value lives in the Session's resource store,
  initialised by its `Assign` op and read through `<name>/read`; names, dtypes (`float32_ref`) and
  collections as TensorFlow. `assign`, `assign_add`, `assign_sub` update either kind of variable.
- `ResourceVariable` (eager, TF2) is in resource_variable_ops.py; `Variable` makes one when executing eagerly.
- What both share (arithmetic on a variable, the collections and their initializers) is in variables.py.
Values are never mutated in place: each assign stores a new array.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import context, dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError
from webflow.framework.graph import GraphKeys
from webflow.framework.init_scope import building_function_in_eager
from webflow.framework.tensor_shape import TensorShape
from webflow.framework.uninitialized import UNINITIALIZED
from webflow.ops import array_ops
from webflow.ops.convert import convert_to_tensor, register_tensor_conversion_function
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.update_lock import VARIABLE_UPDATES
from webflow.ops.variables import _VariableOperators, stored_shape


# --- VariableV2 and the ref ops (TF1) ------------------------------------------------------------------
def _variable_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(attrs["shape"], attrs["dtype"]._as_ref())


@register_op("VariableV2", "Variable", shape=_variable_shape, needs_context=True, stateful=True)
def variable_kernel(context: Any, *, shape: Any, dtype: Any, container: str = "", shared_name: str = "") -> Any:
    """output = a reference to the variable: its value in this session, or UNINITIALIZED.

    Assign may consume an uninitialized reference; the executor raises FailedPreconditionError when
    any other op reads one (see executor.check_initialized).
    """
    return context.resources.get(context.op_name, UNINITIALIZED)


def _assign_shape(inputs: list, attrs: dict) -> tuple:
    ref, value = inputs
    if attrs.get("validate_shape", True) and not ref.shape.is_compatible_with(value.shape):
        raise ShapeError(f"Shapes must be equal rank, but are {ref.shape.rank} and {value.shape.rank}"
                         if ref.shape.rank != value.shape.rank else
                         f"Dimension 0 in both shapes must be equal, but are {ref.shape} and {value.shape}")
    shape = ref.shape if attrs.get("validate_shape", True) else value.shape
    return output_spec(shape, ref.dtype)


@register_op("Assign", "Assign", inputs=("ref", "value"), shape=_assign_shape, same_dtype=(0, 1),
             needs_context=True, stateful=True)
def assign_kernel(context: Any, ref: Any, value: Any, *, validate_shape: bool = True, use_locking: bool = True) -> Any:
    """ref <- value; output = the new value."""
    key = context.ref_key(0)
    with VARIABLE_UPDATES:  # another thread's assign_add must not store between this check and the store
        if validate_shape and key in context.resources and stored_shape(context.resources[key]) != stored_shape(value):
            raise InvalidArgumentError(None, context.op, f"Assign requires shapes of both tensors to match. "
                                       f"lhs shape= {list(stored_shape(context.resources[key]))} "
                                       f"rhs shape= {list(stored_shape(value))}")
        context.resources[key] = value
    return value


def _update_kernel(sign: int):
    def kernel(context: Any, ref: Any, value: Any, *, use_locking: bool = False) -> Any:
        key = context.ref_key(0)
        with VARIABLE_UPDATES:  # read, add and store as one step: no other thread's update is lost (update_lock.py)
            if key not in context.resources:
                raise FailedPreconditionError(None, context.op, f"Attempting to use uninitialized value {key}")
            old = context.resources[key]
            if stored_shape(old) != stored_shape(value) and math.prod(stored_shape(value)) != 1:
                raise InvalidArgumentError(None, context.op, f"Must have the same shape: {list(stored_shape(old))} "
                                           f"vs {list(stored_shape(value))}")
            new = backend_values.add(old, value, sign)
            if context.op is not None:  # a bfloat16 variable keeps the rounded sum
                new = bfloat16.stored(new, context.op.inputs[0].dtype)
            context.resources[key] = new
        return new

    return kernel


def _ref_update_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[0].shape, inputs[0].dtype)


register_op("AssignAdd", "AssignAdd", inputs=("ref", "value"), shape=_ref_update_shape, same_dtype=(0, 1),
            needs_context=True, stateful=True)(_update_kernel(+1))
register_op("AssignSub", "AssignSub", inputs=("ref", "value"), shape=_ref_update_shape, same_dtype=(0, 1),
            needs_context=True, stateful=True)(_update_kernel(-1))
OPS_REF_UPDATES = ("Assign", "AssignAdd", "AssignSub")
for _op_type in ("VariableV2",) + OPS_REF_UPDATES:
    NotDifferentiable(_op_type)


@register_op("IsVariableInitialized", "IsVariableInitialized", inputs=("ref",),
             shape=lambda inputs, attrs: output_spec((), dtypes.bool), needs_context=True)
def is_variable_initialized_kernel(context: Any, ref: Any = None) -> Any:
    """output = whether the variable has a value in this session."""
    return backend_values.scalar(context.ref_key(0) in context.resources, dtypes.bool)


# --- the Python object -------------------------------------------------------------------------------
def _add_to_collections(graph: Any, variable: Any, collections: Any, trainable: bool) -> None:
    collections = [GraphKeys.GLOBAL_VARIABLES] if collections is None else list(collections)
    if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections.append(GraphKeys.TRAINABLE_VARIABLES)
    graph.add_to_collections(set(collections), variable)


class RefVariable(_VariableOperators):
    """A TF1 graph variable: `VariableV2` + `Assign` initializer + `read` identity."""

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, collections: Any = None,
                 validate_shape: bool = True, caching_device: Any = None, name: str | None = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None, import_scope: Any = None,
                 constraint: Any = None, synchronization: Any = None, aggregation: Any = None,
                 shape: Any = None):
        if variable_def is not None:   # rebuilt over ops a graph already holds (import_meta_graph)
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        self._trainable = True if trainable is None else bool(trainable)
        self._constraint = constraint
        graph = context.get_default_graph()
        self._graph = graph
        with graph.name_scope(name or "Variable") as scope:
            if callable(initial_value):
                with graph.name_scope("Initializer"):
                    initial_value = initial_value()
            self._initial_value = convert_to_tensor(initial_value, dtype=dtype, name="initial_value")
            value_shape = self._initial_value.shape
            if shape is not None:
                value_shape = TensorShape(shape)
            elif not validate_shape:
                value_shape = TensorShape(None)
            elif not value_shape.is_fully_defined():
                raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
            self._variable = apply_op("VariableV2", [], {
                "shape": value_shape, "dtype": self._initial_value.dtype.base_dtype,
                "container": "", "shared_name": ""}, name=scope)
            self._initializer_op = apply_op("Assign", [self._variable, self._initial_value],
                                            {"validate_shape": validate_shape, "use_locking": True},
                                            name="Assign").op
            self._snapshot = array_ops.identity(self._variable, name="read")
        _add_to_collections(graph, self, collections, self._trainable)
        self._save_slice_info = None

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        """The variable whose ops a VariableDef names (a message or its bytes), in the default graph, each name
        under `import_scope/` when given; nothing is added to the graph or to a collection (as TensorFlow)."""
        from webflow.protos import variable_pb2

        if not isinstance(variable_def, variable_pb2.VariableDef):
            data = variable_def if isinstance(variable_def, bytes) else variable_def.SerializeToString()
            variable_def = variable_pb2.VariableDef.FromString(data)
        graph = self._graph = context.get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._snapshot = element(variable_def.snapshot_name)
        self._initial_value = element(variable_def.initial_value_name) if variable_def.initial_value_name else None
        self._trainable = variable_def.trainable
        self._constraint = None
        self._save_slice_info = None

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This variable's VariableDef (webflow/protos/variable.proto), names relative to `export_scope`."""
        from webflow.protos import variable_pb2

        def relative(name: str) -> str:
            return name[len(export_scope) + 1:] if export_scope and name.startswith(export_scope + "/") else name

        return variable_pb2.VariableDef(
            variable_name=relative(self._variable.name), initializer_name=relative(self._initializer_op.name),
            snapshot_name=relative(self._snapshot.name), trainable=self._trainable,
            initial_value_name=relative(self._initial_value.name) if self._initial_value is not None else "")

    @staticmethod
    def from_proto(variable_def: Any, import_scope: str | None = None) -> RefVariable:
        return RefVariable(variable_def=variable_def, import_scope=import_scope)

    # --- what it is ----------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> Any:
        return self._variable.op

    @property
    def dtype(self) -> Any:
        return self._variable.dtype

    @property
    def shape(self) -> TensorShape:
        return self._variable.shape

    @property
    def graph(self) -> Any:
        return self._graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Any:
        return self._constraint

    @property
    def initializer(self) -> Any:
        return self._initializer_op

    @property
    def initial_value(self) -> Any:
        return self._initial_value

    def _ref(self) -> Any:
        return self._variable

    def _as_graph_element(self) -> Any:
        return self._variable

    def _gradient_source(self) -> Any:
        return self._variable

    def _as_control_input(self) -> Any:
        return self._variable.op

    # --- reading and writing --------------------------------------------------------------------
    def value(self) -> Any:
        return self._snapshot

    def read_value(self) -> Any:
        return array_ops.identity(self._variable, name="read")

    def initialized_value(self) -> Any:
        """The value if initialised, else the initial value (so other initial values can depend on it)."""
        from webflow.ops import control_flow_ops

        if hasattr(control_flow_ops, "cond"):
            initialized = apply_op("IsVariableInitialized", [self._variable])
            return control_flow_ops.cond(initialized, self.read_value, lambda: self._initial_value)
        return self._initial_value

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        result = apply_op("Assign", [self._variable, value], {"validate_shape": True, "use_locking": use_locking},
                          name=name)
        return result if read_value else result.op

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        result = apply_op("AssignAdd", [self._variable, delta], {"use_locking": use_locking}, name=name)
        return result if read_value else result.op

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        result = apply_op("AssignSub", [self._variable, delta], {"use_locking": use_locking}, name=name)
        return result if read_value else result.op

    def eval(self, session: Any = None) -> Any:
        return self._variable.eval(session=session)

    def load(self, value: Any, session: Any = None) -> None:
        from webflow.framework.default_session import session_for

        session = session_for(self._graph, session, "load()")
        session._resources[self._variable.op.name] = Session_feed(self, value)

    def set_shape(self, shape: Any) -> None:
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


def Session_feed(variable: Any, value: Any) -> Any:  # noqa: N802 - reads like the TF call it replaces
    if not HAVE_NUMPY:  # Pyodide: a CArray of the variable's dtype (Saver.restore loads these)
        array = backend_values.array(value, variable.dtype.base_dtype)
    else:
        array = np.asarray(value, dtype=variable.dtype.base_dtype.as_numpy_dtype)
    if not variable.shape.is_compatible_with(array.shape):
        raise ValueError(f"Cannot load value of shape {array.shape} into variable {variable.name} "
                         f"of shape {variable.shape}")
    return array


VariableTypes = (RefVariable, ResourceVariable)


class _VariableFactory(type):
    """Makes `tf.Variable(...)` build the kind of variable the context needs, and `isinstance(v, tf.Variable)` hold
    for both kinds (and their subclasses, e.g. Keras's AutoCastVariable), as for TensorFlow's tf.Variable."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if context.executing_eagerly() or building_function_in_eager():   # in a wf.function: lifted out, as TF2's
            kwargs.pop("collections", None)
            kwargs.pop("expected_shape", None)
            return ResourceVariable(*args, **kwargs)
        return RefVariable(*args, **kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, VariableTypes)

    def __subclasscheck__(cls, subclass: Any) -> bool:
        return isinstance(subclass, type) and issubclass(subclass, VariableTypes)


class Variable(metaclass=_VariableFactory):
    """`tf.Variable`: a ResourceVariable when executing eagerly, a RefVariable while building a graph."""


def _ref_variable_to_tensor(variable: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Any:
    return variable._ref() if as_ref else variable.value()


register_tensor_conversion_function(RefVariable, _ref_variable_to_tensor)


# --- assigning to either kind of variable ---------------------------------------------------------------
def assign(ref: Any, value: Any, validate_shape: bool | None = None, use_locking: bool | None = None,
           name: str | None = None) -> Any:
    if isinstance(ref, ResourceVariable):
        return ref.assign(value, name=name)
    target = ref._ref() if isinstance(ref, RefVariable) else ref
    return apply_op("Assign", [target, value], {"validate_shape": validate_shape is not False,
                                                "use_locking": bool(use_locking)}, name=name)


def assign_add(ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None) -> Any:
    if isinstance(ref, ResourceVariable):
        return ref.assign_add(value, name=name)
    target = ref._ref() if isinstance(ref, RefVariable) else ref
    return apply_op("AssignAdd", [target, value], {"use_locking": bool(use_locking)}, name=name)


def assign_sub(ref: Any, value: Any, use_locking: bool | None = None, name: str | None = None) -> Any:
    if isinstance(ref, ResourceVariable):
        return ref.assign_sub(value, name=name)
    target = ref._ref() if isinstance(ref, RefVariable) else ref
    return apply_op("AssignSub", [target, value], {"use_locking": bool(use_locking)}, name=name)


def is_variable_initialized(variable: Any) -> Any:
    return apply_op("IsVariableInitialized", [variable._ref()])


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("IsVariableInitialized",):
    NotDifferentiable(_op_type)
