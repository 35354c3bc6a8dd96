"""What every variable shares, and TF1's variable collections.

- `_VariableOperators`: the base of RefVariable (state_ops.py) and ResourceVariable (resource_variable_ops.py):
  arithmetic on a variable reads it first (`v * 2`), and a variable hashes and compares by identity.
- `global_variables`, `trainable_variables` ... read the graph's collections; `variables_initializer` and
  `global_variables_initializer` group the initializers of the variables listed there.
- `stored_shape`: the shape of a variable's stored value (an array, or a Python number).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import context
from webflow.framework.graph import GraphKeys
from webflow.framework.tensor import OPERATORS
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.control_flow_ops import group, no_op


# --- the base class of both variable types -------------------------------------------------------------
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


def stored_shape(value: Any) -> tuple:
    """The shape of a stored value (an array, or a Python number), without needing NumPy for arrays."""
    return backend_values.shape_of(value)


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
    return no_op(name=name)


def global_variables_initializer() -> Any:
    return variables_initializer(global_variables())


def local_variables_initializer() -> Any:
    return variables_initializer(local_variables(), name="init")


initialize_all_variables = global_variables_initializer
all_variables = global_variables
