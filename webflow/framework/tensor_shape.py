"""`TensorShape` and `Dimension`: static shapes that may be partly unknown (`(?, 784)`).

TF1 and TF2 print and index shapes differently: TF1 (after `disable_v2_behavior`) shows an unknown
dimension as `?` and indexing yields `Dimension` objects; TF2 shows `None` and yields ints.
`enable_v2_tensorshape` / `disable_v2_tensorshape` switch between them, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any

_V2_BEHAVIOR = True


def enable_v2_tensorshape() -> None:
    global _V2_BEHAVIOR
    _V2_BEHAVIOR = True


def disable_v2_tensorshape() -> None:
    global _V2_BEHAVIOR
    _V2_BEHAVIOR = False


class Dimension:
    """One dimension: an int, or unknown (`None`)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            if isinstance(value, float) or not hasattr(value, "__index__"):
                raise TypeError(f"Dimension value must be integer or None, got {value!r}")
            value = int(value)
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self._value = value

    @property
    def value(self) -> int | None:
        return self._value

    def is_compatible_with(self, other: Any) -> bool:
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def merge_with(self, other: Any) -> Dimension:
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return Dimension(self._value if self._value is not None else other.value)

    def __eq__(self, other: object) -> Any:
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other: object) -> Any:
        equal = self.__eq__(other)
        return equal if equal is None or equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._value)

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int")
        return self._value

    __index__ = __int__

    def _arith(self, other: Any, fn) -> Dimension:
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other: Any) -> Dimension:
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __mul__(self, other: Any) -> Dimension:
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __sub__(self, other: Any) -> Dimension:
        return self._arith(other, lambda a, b: a - b)

    def __floordiv__(self, other: Any) -> Dimension:
        return self._arith(other, lambda a, b: a // b)

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)


def as_dimension(value: Any) -> Dimension:
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    return dimension.value if isinstance(dimension, Dimension) else dimension


class TensorShape:
    """A possibly partial shape: unknown rank (`dims is None`) or a tuple of int-or-None."""

    __slots__ = ("_dims",)

    def __init__(self, dims: Any):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif type(dims) is tuple and all(type(d) is int and d >= 0 for d in dims):
            self._dims = dims  # a concrete array's shape (every eager op reads one): no Dimension to build
        else:
            try:
                iterator = iter(dims)
            except TypeError:
                iterator = iter([dims])  # TensorShape(3) means shape (3,), as in TF
            self._dims = tuple(dimension_value(as_dimension(d)) for d in iterator)

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        return self.rank

    @property
    def dims(self) -> list | None:
        if self._dims is None:
            return None
        return [Dimension(d) for d in self._dims] if not _V2_BEHAVIOR else list(self._dims)

    def as_list(self) -> list[int | None]:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_tuple(self) -> tuple | None:
        """The dims as a plain tuple (None for unknown rank); webflow's own fast accessor."""
        return self._dims

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        count = 1
        for d in self._dims:
            count *= d
        return count

    def is_compatible_with(self, other: Any) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def assert_same_rank(self, other: Any) -> None:
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        if self._dims is None:
            return unknown_shape(rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def concatenate(self, other: Any) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None) if not _V2_BEHAVIOR else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        value = self._dims[key]
        return Dimension(value) if not _V2_BEHAVIOR else value

    def __eq__(self, other: object) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        if _V2_BEHAVIOR:
            return f"TensorShape({list(self._dims)!r})" if self._dims is not None else "TensorShape(None)"
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([" + ", ".join(repr(Dimension(d)) for d in self._dims) + "])"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        unknown = "None" if _V2_BEHAVIOR else "?"
        parts = [unknown if d is None else str(d) for d in self._dims]
        if len(parts) == 1:
            return f"({parts[0]},)"
        return "(" + ", ".join(parts) + ")"


def as_shape(shape: Any) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    return TensorShape(None if rank is None else [None] * rank)


def scalar() -> TensorShape:
    return TensorShape(())
