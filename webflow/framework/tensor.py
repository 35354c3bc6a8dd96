"""Tensors: `Tensor` (a symbolic output of a graph Operation) and `EagerTensor` (a value, now).

Both share `TensorBase`, which holds the Python operator overloads. The overloads dispatch through
`OPERATORS`, a table that the op modules fill in (framework/ sits below ops/ and may not import it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from webflow.framework import context
from webflow.framework import dtypes as dtypes_module
from webflow.framework.bfloat16_text import bfloat16_text
from webflow.framework.tensor_shape import TensorShape

# name -> function(x, y) or function(x); filled by webflow.ops modules at import time.
OPERATORS: dict[str, Callable[..., Any]] = {}

# TF2 makes `==` elementwise and tensors unhashable; TF1 (disable_v2_behavior) uses identity.
_USE_EQUALITY = True

_uids = itertools.count(1)


def enable_tensor_equality() -> None:
    global _USE_EQUALITY
    _USE_EQUALITY = True


def disable_tensor_equality() -> None:
    global _USE_EQUALITY
    _USE_EQUALITY = False


def _binary(name: str, reverse: bool = False) -> Callable[..., Any]:
    def method(self: Any, other: Any) -> Any:
        function = OPERATORS[name]
        return function(other, self) if reverse else function(self, other)

    method.__name__ = f"__{'r' if reverse else ''}{name}__"
    return method


def _unary(name: str) -> Callable[..., Any]:
    def method(self: Any) -> Any:
        return OPERATORS[name](self)

    method.__name__ = f"__{name}__"
    return method


class TensorBase:
    """Operator overloads shared by graph and eager tensors."""

    __slots__ = ()
    __array_priority__ = 100  # numpy_array + tensor calls our __radd__

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", True)
    __truediv__, __rtruediv__ = _binary("truediv"), _binary("truediv", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", True)
    __mod__, __rmod__ = _binary("mod"), _binary("mod", True)
    __pow__, __rpow__ = _binary("pow"), _binary("pow", True)
    __matmul__, __rmatmul__ = _binary("matmul"), _binary("matmul", True)
    __and__, __rand__ = _binary("and"), _binary("and", True)
    __or__, __ror__ = _binary("or"), _binary("or", True)
    __xor__, __rxor__ = _binary("xor"), _binary("xor", True)
    __lt__, __le__ = _binary("lt"), _binary("le")
    __gt__, __ge__ = _binary("gt"), _binary("ge")
    __neg__, __abs__, __invert__ = _unary("neg"), _unary("abs"), _unary("invert")

    def __getitem__(self, slice_spec: Any) -> Any:
        return OPERATORS["getitem"](self, slice_spec)

    def _uses_equality(self) -> bool:
        """TF2 makes == elementwise for eager tensors and inside functions; plain graphs keep identity."""
        return _USE_EQUALITY

    def __eq__(self, other: object) -> Any:
        if self._uses_equality() and not _is_none(other):
            return OPERATORS["eq"](self, other)
        return self is other

    def __ne__(self, other: object) -> Any:
        if self._uses_equality() and not _is_none(other):
            return OPERATORS["ne"](self, other)
        return self is not other

    def __hash__(self) -> int:
        if self._uses_equality():
            raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")
        return id(self)

    def ref(self) -> Any:
        return _TensorRef(self)

    def experimental_ref(self) -> Any:
        return self.ref()

    @property
    def ndim(self) -> int | None:
        return self.shape.rank

    def get_shape(self) -> TensorShape:
        return self.shape


def _is_none(value: object) -> bool:
    return value is None


class _TensorRef:
    """A hashable reference to a tensor (`tensor.ref()`), comparing by identity."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Any):
        self._tensor = tensor

    def deref(self) -> Any:
        return self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _TensorRef) and other._tensor is self._tensor


class Tensor(TensorBase):
    """A symbolic handle to output `value_index` of an Operation; it holds no value until a Session runs it."""

    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "_uid", "__weakref__")

    def __init__(self, op: Any, value_index: int, dtype: Any, shape: Any):
        self._op = op
        self._value_index = value_index
        self._dtype = dtypes_module.as_dtype(dtype)
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._uid = next(_uids)

    @property
    def op(self) -> Any:
        return self._op

    def _uses_equality(self) -> bool:
        return _USE_EQUALITY and context.eager_enabled_globally() and self._op.graph.building_function

    @property
    def value_index(self) -> int:
        return self._value_index

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def graph(self) -> Any:
        return self._op.graph

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def device(self) -> str:
        return self._op.device

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape: Any) -> None:
        """Narrows the static shape; raises ValueError when it contradicts what is known."""
        new_shape = TensorShape(shape)
        if not self._shape.is_compatible_with(new_shape):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied shape {new_shape}.")
        self._shape = self._shape.merge_with(new_shape)

    def consumers(self) -> list:
        return [op for op in self.graph.get_operations() if any(t is self for t in op.inputs)]

    def eval(self, feed_dict: Any = None, session: Any = None) -> Any:
        from webflow.framework.default_session import session_for

        return session_for(self.graph, session, "eval()").run(self, feed_dict)

    def __str__(self) -> str:
        if self._shape.rank is None:  # TensorFlow leaves out a shape it knows nothing about
            return f'Tensor("{self.name}", dtype={self._dtype.name})'
        return f'Tensor("{self.name}", shape={self._shape}, dtype={self._dtype.name})'

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
            "instead of `if t:` to test if a tensor is defined, and use ops like tf.cond to execute "
            "subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        if self._shape.rank is None or self._shape.as_tuple()[:1] == (None,):
            raise TypeError(f"Iterating over a symbolic tensor {self.name} of unknown length is not allowed.")
        return (self[i] for i in range(self._shape.as_tuple()[0]))

    def __len__(self) -> int:
        raise TypeError(
            f"len is not well defined for a symbolic Tensor ({self.name}). Please call `x.shape` rather "
            "than `len(x)` for shape information.")


class EagerTensor(TensorBase):
    """A tensor with a concrete value, produced when ops run eagerly (the TF2 default)."""

    __slots__ = ("_value", "_dtype", "_uid", "__weakref__")

    def __init__(self, value: Any, dtype: Any):
        self._value = value  # a backend array (NumPy ndarray for the NumPy backend)
        self._dtype = dtype
        self._uid = next(_uids)

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return TensorShape(self._value.shape)

    @property
    def device(self) -> str:
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    @property
    def name(self) -> str:
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    @property
    def op(self) -> Any:
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    @property
    def graph(self) -> Any:
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    def numpy(self) -> Any:
        """The value as a NumPy array (a copy for non-scalars, so mutating it cannot change the tensor)."""
        value = self._value
        return value.copy() if getattr(value, "ndim", 0) else value[()] if hasattr(value, "ndim") else value

    def set_shape(self, shape: Any) -> None:
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self.shape} is not compatible with supplied shape {TensorShape(shape)}.")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy

        return numpy.asarray(self._value, dtype=dtype)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __format__(self, format_spec: str) -> str:
        """f"{t:.4f}" formats the value, as TensorFlow's EagerTensor does (NumPy's rules)."""
        return self.numpy().__format__(format_spec)

    def __index__(self) -> int:
        if not self._dtype.is_integer:
            raise TypeError(f"Only integer tensors can be used as an index, got {self._dtype.name}")
        return int(self._value)

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if not self._value.shape:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))


    def __repr__(self) -> str:
        text = _numpy_text(self._value, True, self._dtype)
        return f"<tf.Tensor: shape={self.shape}, dtype={self._dtype.name}, numpy={text}>"

    def __str__(self) -> str:
        text = _numpy_text(self._value, False, self._dtype)
        return f"tf.Tensor({text}, shape={self.shape}, dtype={self._dtype.name})"


def _numpy_text(value: Any, is_repr: bool, dtype: Any = None) -> str:
    if dtype is dtypes_module.bfloat16:  # float32 storage printed as TensorFlow prints bfloat16
        text = bfloat16_text(value, is_repr)
        return "\n" + text if "\n" in text else text
    if getattr(value, "ndim", 0) == 0 and hasattr(value, "item"):
        if is_repr:
            return repr(value.item())
        # TensorFlow prints a scalar with NumPy's str: the shortest digits of its own dtype (a float32's 0.3, not
        # the float64 0.30000001192092896); a CArray prints the same without NumPy (carray_print.scalar_str).
        return str(value)
    text = repr(value) if is_repr else str(value)
    return "\n" + text if "\n" in text else text  # TensorFlow starts a multi-line value on its own line


def is_tensor(value: Any) -> bool:
    return isinstance(value, TensorBase)
