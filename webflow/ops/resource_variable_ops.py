"""Resource variables (eager mode, TF2): `ResourceVariable` holds its value directly; its `handle` is a
resource tensor, and reads/writes are `ReadVariableOp` / `AssignVariableOp` (and the Add/Sub variants), so
tapes see (and watch) every read. Values are never mutated in place: each assign stores a new array.
One stanza per op (shape rule, kernel with the math in its docstring, gradient rule); the TF1 graph-mode
variable is RefVariable in state_ops.py, and `tf.Variable` picks between the two.
"""

from __future__ import annotations

from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import context, dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError
from webflow.framework.init_scope import init_scope
from webflow.framework.tensor import EagerTensor, Tensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import constant_value, convert_to_tensor, register_tensor_conversion_function
from webflow.ops.lift_to_eager import lift_to_eager
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import no_outputs
from webflow.ops.update_lock import VARIABLE_UPDATES
from webflow.ops.variables import _VariableOperators, stored_shape


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
    with VARIABLE_UPDATES:  # read, update and store as one step across threads (update_lock.py)
        new = update(variable._value, value)
        if stored_shape(new) != stored_shape(variable._value) and variable._shape.is_fully_defined():
            raise InvalidArgumentError(None, None, f"Trying to assign to variable with tensor with wrong shape. "
                                       f"Expected {variable._shape} got {TensorShape(stored_shape(value))}")
        variable._value = bfloat16.stored(_as_stored(new, variable._value.dtype), variable._dtype)


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


# --- the Python object -------------------------------------------------------------------------------
class ResourceVariable(_VariableOperators):
    """A TF2 (eager) variable. `handle` is a resource tensor whose value is this object."""

    def __init__(self, initial_value: Any = None, trainable: bool | None = None, validate_shape: bool = True,
                 caching_device: Any = None, name: str | None = None, variable_def: Any = None, dtype: Any = None,
                 import_scope: Any = None, constraint: Any = None, synchronization: Any = None,
                 aggregation: Any = None, shape: Any = None, collections: Any = None, **kwargs: Any):
        if initial_value is None:
            raise ValueError("The `initial_value` arg (None) must be specified.")
        for rule in context.variable_creation_hooks():   # inside a wf.function: only its first trace makes variables
            rule()
        with init_scope():   # as TensorFlow's: the initial value is made eagerly, even while a function is traced
            if callable(initial_value):
                initial_value = initial_value()
            if isinstance(initial_value, Tensor) and initial_value.graph.building_function:
                initial_value = lift_to_eager(initial_value)
            initial = convert_to_tensor(initial_value, dtype=dtype)
        if not isinstance(initial, EagerTensor):
            raise ValueError("An eager variable needs an eager initial value")
        self._value = initial._value
        self._dtype = initial.dtype.base_dtype
        self._shape = TensorShape(shape) if shape is not None else TensorShape(stored_shape(self._value))
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
                f"numpy={_numpy_text(self._value, True, self._dtype)}>")


def _resource_variable_to_tensor(variable: Any, dtype: Any = None, name: str | None = None,
                                 as_ref: bool = False) -> Any:
    if not context.executing_eagerly():
        return apply_op("ReadVariableOp", [variable.handle], {"dtype": variable._dtype, "shape": variable._shape})
    return variable.read_value()


register_tensor_conversion_function(ResourceVariable, _resource_variable_to_tensor)
