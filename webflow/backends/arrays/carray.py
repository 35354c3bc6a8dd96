"""CArray: the C backend's own storage, a flat buffer plus a shape and a dtype, usable without NumPy.

Where NumPy is missing (Pyodide by default) tensors hold CArrays and the C kernels read and write their
buffers in place (`address()` is the pointer, zero-copy). The buffer is an `array.array`, row-major and
contiguous, so strides are implied by the shape. When NumPy exists, `numpy.asarray(c)` is a zero-copy view.

    c = from_value([[1.0, 2.0], [3.0, 4.0]])     # float32, shape (2, 2): TensorFlow's default dtypes
    c.shape, c.dtype.name, c.tolist(), c[1, 0], float(c[0, 0])
    e = empty((2, 3), dtypes.float32)             # zero-filled
    u = uninitialized((2, 3), dtypes.float32)     # a kernel's output: contents undefined until it writes them

It is deliberately small: indexing, reshape, astype, tolist, and printing as NumPy does (carray_print.py).
Arithmetic belongs to ops, not to storage.
"""

from __future__ import annotations

import array
import math
import sys
import threading
from typing import Any

from webflow.backends.arrays import carray_print as c_array_print
from webflow.backends.arrays.object_buffer import OBJECT_TYPECODE, ObjectBuffer, new_buffer
from webflow.framework import dtypes

# array.array type codes with the right width on every platform we run on (including wasm32).
TYPECODES = {"float32": "f", "float64": "d", "int8": "b", "int16": "h", "int32": "i", "int64": "q",
             "uint8": "B", "uint16": "H", "uint32": "I", "uint64": "Q", "bool": "B",
             "string": OBJECT_TYPECODE}  # strings: bytes objects in an ObjectBuffer (object_buffer.py)
_INT_RANGES = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


class CArray:
    """A contiguous row-major array: `data` (array.array), `shape` (tuple of ints), `dtype` (webflow DType)."""

    __slots__ = ("data", "shape", "dtype")
    __array_priority__ = 10

    def __init__(self, data: array.array, shape: tuple, dtype: Any):
        self.data = data
        self.shape = tuple(shape)
        self.dtype = dtype

    # --- what kernels and adapters read ------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.data.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.data.itemsize

    @property
    def strides(self) -> tuple:
        """Byte strides of the row-major layout (what NumPy reports for a C-contiguous array)."""
        strides, step = [], self.data.itemsize
        for dim in reversed(self.shape):
            strides.append(step)
            step *= max(dim, 1)
        return tuple(reversed(strides))

    def address(self) -> int:
        """The pointer to the first element, handed to the C kernels."""
        return self.data.buffer_info()[0]

    # --- conversions --------------------------------------------------------------------------------
    def tolist(self) -> Any:
        flat = self.data.tolist()
        if self.dtype.is_bool:
            flat = [bool(v) for v in flat]
        return _nest(flat, self.shape)

    def item(self) -> Any:
        if self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        value = self.data[0]
        return bool(value) if self.dtype.is_bool else value

    def reshape(self, *shape: Any) -> CArray:
        """The same buffer read with another shape (one -1 entry is inferred)."""
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = tuple(int(d) for d in shape)
        if -1 in shape:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(self.size // known if known and d == -1 else d for d in shape)
        if math.prod(shape) != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {shape}")
        return CArray(self.data, shape, self.dtype)

    def copy(self) -> CArray:
        return CArray(new_buffer(self.data.typecode, self.data), self.shape, self.dtype)

    def astype(self, dtype: Any, copy: bool = True) -> CArray:
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype is self.dtype:
            return self.copy() if copy else self
        if dtype.name == "string" or self.dtype.name == "string":  # TensorFlow's Cast has no string kernel
            raise TypeError(f"Cast {self.dtype.name} to {dtype.name} is not supported")
        values = self.data.tolist()
        if dtype.is_bool:
            values = [1 if v else 0 for v in values]
        elif dtype.is_integer:
            values = [int(v) for v in values]
        return CArray(array.array(TYPECODES[dtype.name], values), self.shape, dtype)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy  # only reached when NumPy exists (numpy.asarray called us)

        if self.data.typecode == OBJECT_TYPECODE:  # strings: an object array of bytes, as TensorFlow returns
            objects = numpy.empty(self.size, dtype=object)
            objects[:] = self.data
            return objects.reshape(self.shape)
        view = numpy.frombuffer(self.data, dtype=self.dtype.name).reshape(self.shape)
        return view if dtype is None else view.astype(dtype)

    # --- Python protocol ----------------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        key = key if isinstance(key, tuple) else (key,)
        if len(key) <= self.ndim and all(isinstance(k, int) for k in key):
            offset, inner = 0, self.size
            for k, dim in zip(key, self.shape):
                if not -dim <= k < dim:
                    raise IndexError(f"index {k} is out of bounds for axis with size {dim}")
                inner //= dim
                offset += (k % dim) * inner
            rest = self.shape[len(key):]
            if not rest:
                value = self.data[offset]
                return bool(value) if self.dtype.is_bool else value
            return CArray(self.data[offset:offset + inner], rest, self.dtype)
        picked = _index_nested(self.tolist(), key)  # slices: rare outside tests, done on lists
        return from_value(picked, self.dtype) if isinstance(picked, list) else picked

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Any:
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if not (self.dtype.is_integer or self.dtype.is_bool):
            raise TypeError("only integer arrays can be used as an index")
        return int(self.item())

    def __bool__(self) -> bool:
        return bool(self.item())

    def __eq__(self, other: object) -> bool:  # whole-array equality (no elementwise ops on storage)
        if isinstance(other, CArray):
            return self.shape == other.shape and self.tolist() == other.tolist()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    # printed exactly as NumPy prints the same values (carray_print.py): `print(sess.run(w))` looks the same
    # with or without NumPy
    def __repr__(self) -> str:
        return c_array_print.array_repr(self)

    def __str__(self) -> str:
        return c_array_print.array_str(self)

    def __format__(self, spec: str) -> str:
        return c_array_print.array_format(self, spec)


# --- making CArrays -----------------------------------------------------------------------------------
# One-element arrays repeated: `array.array("f", [0]) * n` fills in one pass (a doubling memcpy), where
# `array.array("f", bytes(4 * n))` zeroes a bytes object and then copies it. Measured in Pyodide (Node),
# 200,704 floats: 18.7 us vs 63.5 us; 32,768: 3.2 vs 11.8 us.
_ZERO = {code: array.array(code, [0]) for code in set(TYPECODES.values()) - {OBJECT_TYPECODE}}
_ZERO[OBJECT_TYPECODE] = ObjectBuffer(OBJECT_TYPECODE, [b""])  # a string tensor's zero is the empty string


_CODE_OF: dict = {}  # DType -> (base DType, typecode): kernels make ~60 outputs per training step


def _shape_and_code(shape: Any, dtype: Any) -> tuple:
    found = _CODE_OF.get(dtype) if type(dtype) is dtypes.DType else None
    if found is None:
        base = dtypes.as_dtype(dtype).base_dtype
        code = TYPECODES.get(base.name)
        if code is None:
            raise TypeError(f"dtype {base.name} needs NumPy, which is not installed here")
        found = (base, code)
        if type(dtype) is dtypes.DType:
            _CODE_OF[dtype] = found
    if type(shape) is not tuple or not all(type(d) is int for d in shape):  # (kernels mostly pass int tuples)
        shape = (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)
    return shape, found[1], found[0]


def empty(shape: Any, dtype: Any) -> CArray:
    """A zero-filled CArray (what ZerosLike, padding and scatter kernels start from)."""
    shape, code, dtype = _shape_and_code(shape, dtype)
    return CArray(_ZERO[code] * math.prod(shape), shape, dtype)


# --- kernel outputs: recycled buffers, no zero fill ---------------------------------------------------
# A kernel writes every element of its output, so filling it first is wasted work; NumPy's np.empty
# skips it, array.array cannot. Instead output buffers come from a pool and are handed out again once
# nothing refers to them any more: the pool holds every buffer it made, and a buffer whose reference
# count shows only the pool's own reference is free (no CArray, view, memoryview or NumPy array uses
# it). In a training loop each step's outputs reuse the buffers of the step before, which died when
# that step's values were dropped. Measured in Pyodide (Node), the 784-256-128-10 MLP's training step
# (batch 128, ~1.3M output floats per step), best of 20: 6.8 ms with outputs made as bytes + copy, 6.5 ms
# zero-filled by repetition, 6.1 ms from this pool. Small outputs are cheaper to make than to find.
POOL_MIN_ITEMS = 1024       # below this, a plain zero-filled array (about 0.3 us) beats the scan
POOL_MAX_PER_SIZE = 32      # buffers kept per (typecode, length): more live at once are made fresh
POOL_MAX_BYTES = 256 << 20  # the pool never holds more than this in total
_pool: dict[tuple, list] = {}
_pool_state = {"bytes": 0}
_pool_lock = threading.Lock()  # two threads must not both take the same free buffer


def _first_free(buffers: list, free_refs: int) -> Any:
    """The first buffer referenced only by `buffers` (its count equals `free_refs`), or None."""
    for buffer in buffers:
        if sys.getrefcount(buffer) == free_refs:
            return buffer
    return None


# What sys.getrefcount reports inside _first_free for a buffer only the pool holds (interpreters differ:
# 3.14 borrows some references), found by asking the very same function about a buffer nothing else holds.
_FREE_REFS = next((n for n in range(1, 8) if _first_free([array.array("b")], n) is not None), -1)


def uninitialized(shape: Any, dtype: Any) -> CArray:
    """A CArray for a kernel to write in full: its elements are undefined (stale) until then."""
    shape, code, dtype = _shape_and_code(shape, dtype)
    count = math.prod(shape)
    if count < POOL_MIN_ITEMS:
        return CArray(_ZERO[code] * count, shape, dtype)
    key = (code, count)
    with _pool_lock:
        buffers = _pool.get(key)
        if buffers is None:
            buffers = _pool[key] = []
        buffer = _first_free(buffers, _FREE_REFS)
        if buffer is None:
            buffer = _ZERO[code] * count
            nbytes = count * buffer.itemsize
            if len(buffers) < POOL_MAX_PER_SIZE and _pool_state["bytes"] + nbytes <= POOL_MAX_BYTES:
                buffers.append(buffer)
                _pool_state["bytes"] += nbytes
        return CArray(buffer, shape, dtype)


def release_pool() -> None:
    """Forgets the pooled buffers (those still in use stay valid; the rest are freed)."""
    with _pool_lock:
        _pool.clear()
        _pool_state["bytes"] = 0


def full(shape: Any, value: Any, dtype: Any) -> CArray:
    dtype = dtypes.as_dtype(dtype).base_dtype
    shape = tuple(int(d) for d in shape)
    return CArray(new_buffer(TYPECODES[dtype.name], [_coerce(value, dtype)]) * math.prod(shape), shape, dtype)


def from_value(value: Any, dtype: Any = None) -> CArray:
    """A CArray holding a Python number or (nested) list, with TensorFlow's default dtypes and checks.

    floats -> float32, ints -> int32 (int64 if too large), bools -> bool; a ragged list is a ValueError,
    a float that is not whole asked for as an integer dtype a TypeError (as in TensorFlow)."""
    if isinstance(value, CArray):
        return value if dtype is None else value.astype(dtype, copy=False)
    fast = _int_fast_path(value, dtype)
    if fast is not None:
        return fast
    flat, shape = _flatten(value)
    if dtype is None:
        dtype = _infer(flat, value)
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype.name not in TYPECODES:
        raise TypeError(f"Values of dtype {dtype.name} need NumPy, which is not installed here: {value!r}")
    values = [_checked(v, dtype, value) for v in flat]
    return CArray(new_buffer(TYPECODES[dtype.name], values), shape, dtype)


_INT32 = dtypes.int32


def _int_fast_path(value: Any, dtype: Any) -> CArray | None:
    """An int32 scalar or flat list of Python ints (shape vectors, axes, sizes: the bookkeeping kernels
    make dozens per training step) without the general checks, or None to take the general path."""
    if dtype is None or dtype == "int32":
        dtype = _INT32
    elif dtype is not _INT32:
        return None
    if type(value) is int:
        flat, shape = [value], ()
    elif type(value) is list and value and all(type(v) is int for v in value):
        flat, shape = value, (len(value),)
    else:
        return None
    if not all(-2147483648 <= v <= 2147483647 for v in flat):
        return None  # int64 inferred, or the range error: the general path says which
    return CArray(array.array("i", flat), shape, dtype)


def _flatten(value: Any) -> tuple:
    if isinstance(value, CArray):
        return value.data.tolist(), value.shape
    if isinstance(value, (list, tuple)):
        if not value:
            return [], (0,)
        parts = [_flatten(v) for v in value]
        inner = parts[0][1]
        if any(p[1] != inner for p in parts):
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}")
        return [x for p in parts for x in p[0]], (len(value),) + inner
    if hasattr(value, "_value") and hasattr(value, "_dtype"):  # an EagerTensor inside a list
        return _flatten(value._value)
    if isinstance(value, (bool, int, float, str, bytes)):
        return [value], ()
    if hasattr(value, "__float__") or hasattr(value, "__index__"):
        return [value.__index__() if hasattr(value, "__index__") else float(value)], ()
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor.")


def _infer(flat: list, value: Any) -> Any:
    if flat and all(isinstance(v, (str, bytes)) for v in flat):
        return dtypes.string
    if any(isinstance(v, (str, bytes)) for v in flat):
        raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
    if all(isinstance(v, bool) for v in flat) and flat:
        return dtypes.bool
    if any(isinstance(v, float) for v in flat) or not flat:
        return dtypes.float32
    if any(v > 2**31 - 1 or v < -(2**31) for v in flat):
        return dtypes.int64
    return dtypes.int32


def _checked(v: Any, dtype: Any, whole: Any) -> Any:
    if dtype.name == "string":
        if not isinstance(v, (str, bytes)):  # (the message of TensorFlow's eager conversion)
            raise TypeError(f"Cannot convert {v!r} to EagerTensor of dtype string")
        return v.encode() if isinstance(v, str) else v  # unicode is stored as UTF-8, as in TensorFlow
    if isinstance(v, (str, bytes)):
        raise TypeError(f"Expected {dtype.name}, but got {whole!r} of type '{type(whole).__name__}'.")
    if dtype.is_floating:
        return float(v)
    if isinstance(v, float) and v != int(v):
        raise TypeError(f"Expected {dtype.name}, but got {whole!r} of type '{type(whole).__name__}'.")
    v = int(v)
    if dtype.is_bool:
        return 1 if v else 0
    bits = _INT_RANGES.get(dtype.name)
    if bits is not None and not -(2 ** (bits - 1)) <= v < 2 ** (bits - 1):
        raise TypeError(f"Value {whole!r} is out of range for dtype {dtype.name}.")
    return v


def _coerce(value: Any, dtype: Any) -> Any:
    if dtype.name == "string":
        return value.encode() if isinstance(value, str) else bytes(value)
    if dtype.is_floating:
        return float(value)
    return (1 if value else 0) if dtype.is_bool else int(value)


def _nest(flat: list, shape: tuple) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _index_nested(nested: Any, key: tuple) -> Any:
    if not key:
        return nested
    first, rest = key[0], key[1:]
    if isinstance(first, slice):
        return [_index_nested(item, rest) for item in nested[first]]
    return _index_nested(nested[first], rest)


__all__ = ["CArray", "TYPECODES", "empty", "uninitialized", "release_pool", "full", "from_value"]
