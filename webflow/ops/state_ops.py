"""Variables: state that survives between runs.

- `RefVariable` (TF1 graph mode): a `VariableV2` op whose value lives in the Session's resource store,
  initialised by its `Assign` op and read through `<name>/read`; names, dtypes (`float32_ref`) and
  collections as TensorFlow.
- `ResourceVariable` (eager, TF2): holds its value directly; its `handle` is a resource tensor, and
  reads/writes are `ReadVariableOp`/`AssignVariableOp`, so tapes see (and watch) every read.
Values are never mutated in place: each assign stores a new array.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import context, dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError
from webflow.framework.graph import GraphKeys
from webflow.framework.tensor import OPERATORS, EagerTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.framework.uninitialized import UNINITIALIZED
from webflow.ops import array_ops
from webflow.ops.control_flow_ops import group
from webflow.ops.convert import constant_value, convert_to_tensor, register_tensor_conversion_function
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import no_outputs


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


def _shape(value: Any) -> tuple:
    """The shape of a stored value (an array, or a Python number), without needing NumPy for arrays."""
    return backend_values.shape_of(value)


@register_op("Assign", "Assign", inputs=("ref", "value"), shape=_assign_shape, same_dtype=(0, 1),
             needs_context=True, stateful=True)
def assign_kernel(context: Any, ref: Any, value: Any, *, validate_shape: bool = True, use_locking: bool = True) -> Any:
    """ref <- value; output = the new value."""
    key = context.ref_key(0)
    if validate_shape and key in context.resources and _shape(context.resources[key]) != _shape(value):
        raise InvalidArgumentError(None, context.op, f"Assign requires shapes of both tensors to match. "
                                   f"lhs shape= {list(_shape(context.resources[key]))} "
                                   f"rhs shape= {list(_shape(value))}")
    context.resources[key] = value
    return value


def _update_kernel(sign: int):
    def kernel(context: Any, ref: Any, value: Any, *, use_locking: bool = False) -> Any:
        key = context.ref_key(0)
        if key not in context.resources:
            raise FailedPreconditionError(None, context.op, f"Attempting to use uninitialized value {key}")
        old = context.resources[key]
        if _shape(old) != _shape(value) and math.prod(_shape(value)) != 1:
            raise InvalidArgumentError(None, context.op, f"Must have the same shape: {list(_shape(old))} vs "
                                       f"{list(_shape(value))}")
        new = backend_values.add(old, value, sign)
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


# --- resource variable ops (eager and traced functions) --------------------------------------------
def _read_variable_shape(inputs: list, attrs: dict) -> tuple:
    variable = constant_value(inputs[0])
    shape = variable.shape if variable is not None and hasattr(variable, "shape") else attrs.get("shape")
    return output_spec(shape, attrs["dtype"])


@register_op("ReadVariableOp", "ReadVariableOp", inputs=("resource",), shape=_read_variable_shape)
def read_variable_kernel(handle: Any, *, dtype: Any, shape: Any = None) -> Any:
    """output = the variable's current value."""
    value = handle._value
    if value is None:
        raise FailedPreconditionError(None, None, f"Could not find variable {handle.name}. This could mean that "
                                      "the variable has been deleted or was never initialized.")
    return value


@register_gradient("ReadVariableOp")
def _read_variable_grad(op: Any, grad: Any) -> Any:
    """The gradient of a read flows to the variable (its handle)."""
    return grad


def _as_stored(value: Any, dtype: Any) -> Any:
    """A variable's new value as an array of its dtype (an ndarray, or a CArray without NumPy)."""
    if HAVE_NUMPY:
        return np.asarray(value, dtype=dtype)
    return value.astype(dtype, copy=False) if isinstance(value, CArray) else backend_values.array(value, dtype)


def _resource_assign(handle: Any, value: Any, update: Any) -> None:
    variable = handle
    new = update(variable._value, value)
    if _shape(new) != _shape(variable._value) and variable._shape.is_fully_defined():
        raise InvalidArgumentError(None, None, f"Trying to assign to variable with tensor with wrong shape. "
                                   f"Expected {variable._shape} got {TensorShape(_shape(value))}")
    variable._value = _as_stored(new, variable._value.dtype)


@register_op("AssignVariableOp", "AssignVariableOp", inputs=("resource", "value"), shape=no_outputs, stateful=True)
def assign_variable_kernel(handle: Any, value: Any, *, dtype: Any) -> None:
    """variable <- value."""
    _resource_assign(handle, value, lambda old, new: new)


@register_op("AssignAddVariableOp", "AssignAddVariableOp", inputs=("resource", "value"), shape=no_outputs,
             stateful=True)
def assign_add_variable_kernel(handle: Any, value: Any, *, dtype: Any) -> None:
    """variable <- variable + value."""
    _resource_assign(handle, value, lambda old, new: backend_values.add(old, new, 1))


@register_op("AssignSubVariableOp", "AssignSubVariableOp", inputs=("resource", "value"), shape=no_outputs,
             stateful=True)
def assign_sub_variable_kernel(handle: Any, value: Any, *, dtype: Any) -> None:
    """variable <- variable - value."""
    _resource_assign(handle, value, lambda old, new: backend_values.add(old, new, -1))


for _op_type in ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp"):
    NotDifferentiable(_op_type)


# --- the Python objects ------------------------------------------------------------------------------
class _VariableOperators:
    """Arithmetic on a variable reads it first (`v * 2`)."""

    _is_variable = True

    def _binary(name: str, reverse: bool = False):  # noqa: N805 - class-body helper
        def method(self: Any, other: Any) -> Any:
            function = OPERATORS[name]
            return function(other, self.value()) if reverse else function(self.value(), other)

        return method

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", True)
    __truediv__, __rtruediv__ = _binary("truediv"), _binary("truediv", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", True)
    __mod__, __rmod__ = _binary("mod"), _binary("mod", True)
    __pow__, __rpow__ = _binary("pow"), _binary("pow", True)
    __matmul__, __rmatmul__ = _binary("matmul"), _binary("matmul", True)
    __lt__, __le__, __gt__, __ge__ = _binary("lt"), _binary("le"), _binary("gt"), _binary("ge")
    __and__, __or__ = _binary("and"), _binary("or")
    del _binary

    def __neg__(self) -> Any:
        return OPERATORS["neg"](self.value())

    def __abs__(self) -> Any:
        return OPERATORS["abs"](self.value())

    def __getitem__(self, key: Any) -> Any:
        return OPERATORS["getitem"](self.value(), key)

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def get_shape(self) -> TensorShape:
        return self.shape

    def ref(self) -> Any:
        return self

    def experimental_ref(self) -> Any:
        return self


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
    array = np.asarray(value, dtype=variable.dtype.base_dtype.as_numpy_dtype)
    if not variable.shape.is_compatible_with(array.shape):
        raise ValueError(f"Cannot load value of shape {array.shape} into variable {variable.name} "
                         f"of shape {variable.shape}")
    return array


class ResourceVariable(_VariableOperators):
    """A TF2 (eager) variable. `handle` is a resource tensor whose value is this object."""

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, validate_shape: bool = True,
                 caching_device: Any = None, name: str | None = None, variable_def: Any = None, dtype: Any = None,
                 import_scope: Any = None, constraint: Any = None, synchronization: Any = None,
                 aggregation: Any = None, shape: Any = None, collections: Any = None, **kwargs: Any):
        if initial_value is None:
            raise ValueError("The `initial_value` arg (None) must be specified.")
        if callable(initial_value):
            initial_value = initial_value()
        initial = convert_to_tensor(initial_value, dtype=dtype)
        if not isinstance(initial, EagerTensor):
            raise ValueError("An eager variable needs an eager initial value")
        self._value = initial._value
        self._dtype = initial.dtype.base_dtype
        self._shape = TensorShape(shape) if shape is not None else TensorShape(_shape(self._value))
        self._trainable = True if trainable is None else bool(trainable)
        self._name = (name or "Variable") + ":0"
        self._constraint = constraint
        self._initial_value = initial
        self.handle = EagerTensor(self, dtypes.resource)

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Any:
        return self._constraint

    @property
    def device(self) -> str:
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def initial_value(self) -> Any:
        return self._initial_value

    def value(self) -> Any:
        return self.read_value()

    def read_value(self) -> Any:
        return apply_op("ReadVariableOp", [self.handle], {"dtype": self._dtype, "shape": self._shape})

    def numpy(self) -> Any:
        return self._value.copy() if self._value.ndim else self._value[()]

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        apply_op("AssignVariableOp", [self.handle, convert_to_tensor(value, dtype=self._dtype)],
                 {"dtype": self._dtype}, name=name)
        return self if read_value else None

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        apply_op("AssignAddVariableOp", [self.handle, convert_to_tensor(delta, dtype=self._dtype)],
                 {"dtype": self._dtype}, name=name)
        return self if read_value else None

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        apply_op("AssignSubVariableOp", [self.handle, convert_to_tensor(delta, dtype=self._dtype)],
                 {"dtype": self._dtype}, name=name)
        return self if read_value else None

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        return np.asarray(self._value, dtype=dtype)

    def __repr__(self) -> str:
        from webflow.framework.tensor import _numpy_text

        return (f"<tf.Variable '{self._name}' shape={self._shape} dtype={self._dtype.name}, "
                f"numpy={_numpy_text(self._value, True)}>")


def Variable(*args: Any, **kwargs: Any) -> Any:  # noqa: N802 - TensorFlow's class-like factory
    """`tf.Variable`: a ResourceVariable when executing eagerly, a RefVariable while building a graph."""
    if context.executing_eagerly():
        kwargs.pop("collections", None)
        kwargs.pop("expected_shape", None)
        return ResourceVariable(*args, **kwargs)
    return RefVariable(*args, **kwargs)


VariableTypes = (RefVariable, ResourceVariable)


def _variable_to_tensor(variable: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Any:
    if isinstance(variable, RefVariable):
        return variable._ref() if as_ref else variable.value()
    if not context.executing_eagerly():
        return apply_op("ReadVariableOp", [variable.handle], {"dtype": variable._dtype, "shape": variable._shape})
    return variable.read_value()


register_tensor_conversion_function(RefVariable, _variable_to_tensor)
register_tensor_conversion_function(ResourceVariable, _variable_to_tensor)


# --- collections and initializers ------------------------------------------------------------------
def global_variables(scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list:
    return context.get_default_graph().get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list: list, name: str = "init") -> Any:
    """One op that runs the initializers of `var_list`."""
    if context.executing_eagerly():
        return None
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    from webflow.ops.control_flow_ops import no_op

    return no_op(name=name)


def global_variables_initializer() -> Any:
    return variables_initializer(global_variables())


def local_variables_initializer() -> Any:
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer
all_variables = global_variables


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
