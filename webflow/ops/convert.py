"""Turning Python values, NumPy arrays and tensor-like objects (Variables, IndexedSlices) into tensors.

TensorFlow's rules: Python floats become float32 and ints int32 (int64 if too large), NumPy arrays keep
their dtype, and an op's inputs that share a type must agree — Python values take the dtype of the
tensor they meet (`x + 1` with float32 `x` adds a float32 1), two tensors of different dtypes raise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays import values
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, dtype_of, np
from webflow.framework import context, dtypes, sparse_tensor
from webflow.framework.indexed_slices import set_constant_value
from webflow.framework.tensor import EagerTensor, Tensor, TensorBase

# (type, function(value, dtype, name, as_ref) -> tensor); Variables and IndexedSlices register here.
_CONVERSION_FUNCTIONS: list[tuple[type, Callable]] = []


def register_tensor_conversion_function(base_type: type, conversion_func: Callable, priority: int = 100) -> None:
    _CONVERSION_FUNCTIONS.append((base_type, conversion_func))


# Graph-mode constants are Const ops built by `registry.apply_op`, which registry.py installs here when it is
# imported (registry imports this module for `convert_inputs`, so this one cannot import registry).
_APPLY_OP: list[Callable] = []


def install_apply_op(apply_op: Callable) -> None:
    """Called once by ops/registry.py: `apply_op(op_type, inputs, attrs, name)`, used to make Const ops."""
    _APPLY_OP[:] = [apply_op]


def _registered_conversion(value: Any) -> Callable | None:
    for base_type, function in _CONVERSION_FUNCTIONS:
        if isinstance(value, base_type):
            return function
    return None


def is_tensor_like(value: Any) -> bool:
    return isinstance(value, TensorBase) or _registered_conversion(value) is not None


# --- Python value -> NumPy array with TensorFlow's dtype inference -----------------------------------
def to_numpy(value: Any, dtype: Any = None) -> Any:
    """A NumPy array holding `value`, with TensorFlow's default dtypes and conversion checks.

    Without NumPy: a CArray, with the same dtype rules (backends/arrays/carray.py)."""
    if dtype is not None and dtypes.as_dtype(dtype).base_dtype is dtypes.bfloat16:  # float32 storage, rounded
        return bfloat16.round_to_bfloat16(to_numpy(value, dtypes.float32))
    if not HAVE_NUMPY:
        return c_array.from_value(value, None if dtype is None else dtypes.as_dtype(dtype).base_dtype)
    if dtype is not None:
        return _to_numpy_with_dtype(value, dtypes.as_dtype(dtype).base_dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        return _strings_to_object(array) if array.dtype.kind in "US" else array
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}") from None
    kind = array.dtype.kind
    if kind == "f":
        return array.astype(np.float32)
    if kind in "iu":
        if array.size and (array.max() > 2**31 - 1 or array.min() < -(2**31)):
            return array.astype(np.int64)
        return array.astype(np.int32)
    if kind in "US":
        if not isinstance(value, (str, bytes)) and _has_numbers(value):  # ['a', 1]: NumPy made it all text
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        # bytes again as objects: NumPy's fixed-width "S" type drops trailing zero bytes (a serialized Example's)
        return _strings_to_object(np.asarray(value, dtype=object) if kind == "S" else array)
    if kind == "O":
        if array.ndim and array.dtype == object and any(isinstance(v, (list, tuple)) for v in array.flat):
            raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}")
        if all(isinstance(v, (str, bytes)) for v in array.flat):
            return _strings_to_object(array)
        if any(isinstance(v, (str, bytes)) for v in array.flat):
            raise ValueError("Can't convert Python sequence with mixed types to Tensor.")
        raise TypeError(f"Failed to convert elements of {value!r} to Tensor.")
    return array


def _has_numbers(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_has_numbers(v) for v in value)
    return isinstance(value, (bool, int, float))


def _strings_to_object(array: Any) -> Any:
    flat = array.reshape(-1).tolist()
    wrong = next((v for v in flat if not isinstance(v, (str, bytes))), None)
    if wrong is not None:  # tf.constant(1, dtype=tf.string)
        raise TypeError(f"Cannot convert {wrong!r} to EagerTensor of dtype string")
    flat = [v.encode() if isinstance(v, str) else v for v in flat]
    result = np.empty(len(flat), dtype=object)
    result[:] = flat
    return result.reshape(array.shape)


def _to_numpy_with_dtype(value: Any, dtype: Any) -> Any:
    if dtype is dtypes.string:
        return _strings_to_object(np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value)
    try:
        source = np.asarray(value)
    except ValueError:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}") from None
    if source.dtype.kind in "USO":
        raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    target = dtype.as_numpy_dtype
    if source.dtype.kind == "f" and (dtype.is_integer or dtype.is_bool):
        if not isinstance(value, np.ndarray) and np.any(source != np.trunc(source)):
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
    if dtype.is_integer and source.dtype.kind in "iu" and source.size:
        info = np.iinfo(target)
        if source.max() > info.max or source.min() < info.min:
            raise TypeError(f"Value {value!r} is out of range for dtype {dtype.name}.")
    return source.astype(target, copy=False)


# --- tensors ---------------------------------------------------------------------------------------
def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False,
                      preferred_dtype: Any = None, dtype_hint: Any = None) -> Any:
    """A Tensor (graph mode) or EagerTensor (eager mode) for `value`."""
    dtype = dtypes.as_dtype(dtype) if dtype is not None else None
    preferred_dtype = preferred_dtype or dtype_hint
    if isinstance(value, TensorBase):
        return _check_tensor(_into_current_mode(value, name), dtype)
    function = _registered_conversion(value)
    if function is not None:
        return _check_tensor(function(value, dtype=dtype, name=name, as_ref=as_ref), dtype)
    if dtype is None and preferred_dtype is not None:
        try:
            return _constant_from(to_numpy(value, preferred_dtype), name or "Const", _label(preferred_dtype))
        except (TypeError, ValueError):
            pass
    return _constant_from(to_numpy(value, dtype), name or "Const", _label(dtype))


def _label(dtype: Any) -> Any:
    """The dtype a new constant is labelled with when its array cannot say it (bfloat16 is held as float32)."""
    return dtypes.bfloat16 if dtype is not None and dtypes.as_dtype(dtype).base_dtype is dtypes.bfloat16 else None


def _check_tensor(tensor: Any, dtype: Any) -> Any:
    if dtype is not None and not tensor.dtype.is_compatible_with(dtype):
        raise ValueError(
            f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {tensor.dtype.name}: {tensor!r}")
    return tensor


def _into_current_mode(tensor: Any, name: str | None) -> Any:
    """Graph tensors cannot be used eagerly; eager values used while building a graph become constants."""
    if context.executing_eagerly():
        if isinstance(tensor, Tensor):
            raise TypeError(
                f"Tensor {tensor.name} is a symbolic graph tensor and cannot be used in eager mode; "
                f"run it in a Session (or build it inside the same graph).")
        return tensor
    if isinstance(tensor, EagerTensor):
        graph = context.get_default_graph()
        if not hasattr(graph, "_capture_eager_tensor"):
            return _constant_from(tensor._value, name or "Const")
        captured = graph._capture_eager_tensor(tensor, name)
        # None: a FuncGraph traced inside a plain (TF1) graph, which cannot hold eager tensors either
        return captured if captured is not None else _constant_from(to_numpy(tensor._value), "Const")
    return tensor


def _constant_from(array: Any, name: str, dtype: Any = None) -> Any:
    dtype = dtype or dtype_of(array)
    if context.executing_eagerly():
        return EagerTensor(array, dtype)
    if not _APPLY_OP:
        raise RuntimeError("webflow.ops.registry is not loaded: cannot add a Const op to the graph")
    return _APPLY_OP[0]("Const", [], {"value": array, "dtype": dtype}, name=name)


def convert_n_to_tensor(values: list, dtype: Any = None, name: str | None = None) -> list:
    return [convert_to_tensor(v, dtype=dtype, name=name) for v in values]


def convert_inputs(opdef: Any, inputs: list, graph: Any) -> list:
    """Converts an op's inputs left to right, as TF's op builder does: the first input of the
    `same_dtype` group fixes the dtype and later Python values are converted to it, so `add(x, 1)`
    works on float32 x while `add(1, x)` raises TypeError (1 became int32 first)."""
    group = range(len(inputs)) if opdef.same_dtype == "all" else opdef.same_dtype
    converted: list = []
    group_dtype, group_index = None, None
    for i, value in enumerate(inputs):
        in_group = i in group
        dtype = group_dtype if in_group else None
        if isinstance(value, TensorBase) or _registered_conversion(value) is not None:
            tensor = convert_to_tensor(value, as_ref=_is_ref_input(opdef, i))
        else:
            tensor = convert_to_tensor(value, dtype=dtype, name=_input_name(opdef, i))
        if in_group:
            if group_dtype is None:
                group_dtype, group_index = tensor.dtype.base_dtype, i
            elif tensor.dtype.base_dtype is not group_dtype:
                raise TypeError(
                    f"Input '{_input_name(opdef, i)}' of '{opdef.type}' Op has type {tensor.dtype.base_dtype.name} "
                    f"that does not match type {group_dtype.name} of argument '{_input_name(opdef, group_index)}'.")
        converted.append(tensor)
    if opdef.allowed is not None and converted:
        index = group_index if group_index is not None else 0
        dtype = converted[index].dtype.base_dtype
        if dtype not in opdef.allowed and len(opdef.allowed) == 1:  # a fixed-type input (LogicalAnd's bool)
            raise TypeError(f"Input '{_input_name(opdef, index)}' of '{opdef.type}' Op has type {dtype.name} "
                            f"that does not match expected type of {opdef.allowed[0].name}.")
        if dtype not in opdef.allowed:
            allowed = ", ".join(d.name for d in opdef.allowed)
            raise TypeError(f"Value passed to parameter '{_input_name(opdef, index)}' has DataType {dtype.name} "
                            f"not in list of allowed values: {allowed}")
    return converted


def _is_ref_input(opdef: Any, index: int) -> bool:
    return index < len(opdef.inputs) and opdef.inputs[index].startswith("ref")


def _input_name(opdef: Any, index: int) -> str:
    if index < len(opdef.inputs):
        return opdef.inputs[index].lstrip("*")
    if opdef.inputs and opdef.inputs[-1].startswith("*"):
        return f"{opdef.inputs[-1][1:]}_{index}"
    return "input"


# --- constant folding for shape rules ----------------------------------------------------------------
def constant_value(tensor: Any) -> Any:
    """The value of `tensor` if it is known without running anything (a Const, or a Shape of a static shape)."""
    if isinstance(tensor, EagerTensor):
        return tensor._value
    if not isinstance(tensor, Tensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return op.get_attr("value")
    if op.type == "Shape" and op.inputs[0].shape.is_fully_defined():
        return values.vector(op.inputs[0].shape.as_list(), op.get_attr("out_type"))
    if op.type == "Size" and op.inputs[0].shape.is_fully_defined():
        return values.scalar(op.inputs[0].shape.num_elements(), op.get_attr("out_type"))
    if op.type == "Rank" and op.inputs[0].shape.rank is not None:
        return values.scalar(op.inputs[0].shape.rank, dtypes.int32)
    if op.type in ("Identity", "StopGradient"):
        return constant_value(op.inputs[0])
    if op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        if all(p is not None for p in parts):
            return values.stack(parts, axis=op.get_attr("axis"))
    if op.type == "Cast":
        inner = constant_value(op.inputs[0])
        return None if inner is None else values.astype(inner, op.get_attr("DstT"))
    return None


set_constant_value(constant_value)  # IndexedSlices.shape reads its dense_shape with it
sparse_tensor.set_constant_value(constant_value)  # and SparseTensor.shape


def constant_value_as_shape(tensor: Any) -> Any:
    """What is statically known about a 1-D shape tensor, as a TensorShape (unknown entries are None)."""
    from webflow.framework.tensor_shape import TensorShape

    if isinstance(tensor, Tensor) and tensor.op.type == "Shape":
        return tensor.op.inputs[0].shape
    if isinstance(tensor, Tensor) and tensor.op.type == "ShapeN":
        return tensor.op.inputs[tensor.value_index].shape
    if isinstance(tensor, Tensor) and tensor.op.type == "Pack":
        return TensorShape([_pack_entry(t) for t in tensor.op.inputs])
    if isinstance(tensor, Tensor) and tensor.op.type == "ConcatV2":  # (TensorFlow's constant_value_as_shape too)
        parts = [constant_value_as_shape(t) for t in tensor.op.inputs[:-1]]
        if all(part.rank is not None for part in parts):
            return TensorShape([d for part in parts for d in part.as_tuple()])
    if isinstance(tensor, Tensor) and tensor.op.type == "StridedSlice":
        sliced = _sliced_shape(tensor.op)
        if sliced is not None:
            return sliced
    if isinstance(tensor, Tensor) and tensor.op.type == "ExpandDims" and tensor.op.inputs[0].shape.rank == 0:
        return TensorShape([_known_dim(constant_value(tensor.op.inputs[0]))])  # a scalar made a 1-vector
    value = constant_value(tensor)
    if value is not None:
        return TensorShape([_known_dim(v) for v in values.flat_list(value)])
    if tensor.shape.rank == 1 and tensor.shape.as_tuple()[0] is not None:
        return TensorShape([None] * tensor.shape.as_tuple()[0])
    return TensorShape(None)


def folded_int_values(tensor: Any) -> list | None:
    """The flat integer values of an index tensor when its small subgraph of constants can be evaluated now (as
    TensorFlow's shape inference does): a Const, or Range / AddV2 / Sub / FloorMod of such (a gradient's indices,
    a Rank - 1)."""
    if getattr(tensor, "dtype", None) is None or not tensor.dtype.base_dtype.is_integer:
        return None
    value = constant_value(tensor)
    if value is not None:
        return [int(i) for i in values.flat_list(value)]
    op = getattr(tensor, "op", None)
    if op is None or op.type not in ("Range", "AddV2", "Sub", "FloorMod"):
        return None
    operands = [folded_int_values(t) for t in op.inputs]
    if any(v is None for v in operands) or any(len(v) != 1 for v in operands[1:]):
        return None
    if op.type == "Range":
        return list(range(operands[0][0], operands[1][0], operands[2][0])) if len(operands[0]) == 1 else None
    other = operands[1][0]
    if op.type == "FloorMod":
        return None if other == 0 else [v % other for v in operands[0]]
    return [v - other for v in operands[0]] if op.type == "Sub" else [v + other for v in operands[0]]


def _pack_entry(tensor: Any) -> Any:
    """One entry of a packed shape vector, when build-time folding knows it."""
    folded = folded_int_values(tensor)
    return _known_dim(folded[0]) if folded is not None and len(folded) == 1 else _static_dim_of(tensor)


def _static_dim_of(tensor: Any) -> Any:
    """shape(x)[i] (a StridedSlice that shrinks a Shape to one entry) when x's dim i is known at build time, as
    TensorFlow's shape inference folds it (e.g. ones(stack([shape(x)[1], 1])) of x [None, 6] is [6, 1])."""
    op = tensor.op
    if op.type != "StridedSlice" or op._attrs.get("shrink_axis_mask", 0) != 1 or op.inputs[0].op.type != "Shape":
        return None
    begin = constant_value(op.inputs[1])
    dims = op.inputs[0].op.inputs[0].shape
    if begin is None or dims.rank is None:
        return None
    index = int(values.flat_list(begin)[0])
    return dims.as_tuple()[index] if -dims.rank <= index < dims.rank else None


def _sliced_shape(op: Any) -> Any:
    """shape_tensor[begin:end:stride] with constant one-axis bounds and no masks but begin/end (as TensorFlow's
    constant_value_as_shape), e.g. tf.shape(x)[1:2]; None otherwise."""
    from webflow.framework.tensor_shape import TensorShape

    bounds = [constant_value(t) for t in op.inputs[1:]]
    if any(b is None for b in bounds) or any(op._attrs.get(m, 0) for m in
                                               ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask")):
        return None
    begin, end, stride = (values.flat_list(b) for b in bounds)
    if len(begin) != 1 or op._attrs.get("begin_mask", 0) not in (0, 1) or op._attrs.get("end_mask", 0) not in (0, 1):
        return None
    whole = constant_value_as_shape(op.inputs[0])
    if whole.rank is None:
        return None
    start = None if op._attrs.get("begin_mask", 0) else int(begin[0])
    stop = None if op._attrs.get("end_mask", 0) else int(end[0])
    return TensorShape(list(whole.as_tuple())[start:stop:int(stride[0])])


def _known_dim(value: Any) -> Any:
    return None if value is None or int(value) < 0 else int(value)
