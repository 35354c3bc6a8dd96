"""Math ops: elementwise arithmetic, matmul, reductions, casts. One stanza per op: shape rule,
NumPy kernel (docstring = the math), gradient rule, and the Python wrapper with TensorFlow's name.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import cast as c_cast
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.c import gemm as c_gemm
from webflow.backends.c import reduce as c_reduce
from webflow.backends.portable import shape_kernels
from webflow.framework import dtypes
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import OPERATORS
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops
from webflow.ops.convert import constant_value, convert_to_tensor, is_tensor_like, register_tensor_conversion_function
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.shapes import broadcast_binary, merge_dims, merged_shape, same_as_input

NUMBERS = dtypes.NUMERIC
FLOATS = dtypes.FLOATING


# --- undoing broadcasting in gradients ------------------------------------------------------------
# Sums a gradient over the dims along which x was broadcast; it lives in array_ops (whose gradients use it
# too, and which cannot import this module) and is re-exported here.
unbroadcast = array_ops.unbroadcast


# --- AddV2 ------------------------------------------------------------------------------------------
@register_op("AddV2", "Add", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), c=c_elementwise.add)
def add_kernel(x: Any, y: Any) -> Any:
    """z = x + y (broadcasting)."""
    return np.add(x, y)


@register_gradient("AddV2")
def _add_grad(op: Any, grad: Any) -> list:
    """dz/dx = dz/dy = 1."""
    x, y = op.inputs
    return [unbroadcast(grad, x), unbroadcast(grad, y)]


def add(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("AddV2", [x, y], name=name)


# --- Sub --------------------------------------------------------------------------------------------
@register_op("Sub", "Sub", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), c=c_elementwise.sub)
def sub_kernel(x: Any, y: Any) -> Any:
    """z = x - y (broadcasting)."""
    return np.subtract(x, y)


@register_gradient("Sub")
def _sub_grad(op: Any, grad: Any) -> list:
    """dz/dx = 1, dz/dy = -1."""
    x, y = op.inputs
    return [unbroadcast(grad, x), unbroadcast(negative(grad), y)]


def subtract(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Sub", [x, y], name=name)


# --- Mul --------------------------------------------------------------------------------------------
@register_op("Mul", "Mul", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), c=c_elementwise.mul)
def mul_kernel(x: Any, y: Any) -> Any:
    """z = x * y (broadcasting)."""
    return np.multiply(x, y)


@register_gradient("Mul")
def _mul_grad(op: Any, grad: Any) -> list:
    """dz/dx = y, dz/dy = x."""
    x, y = op.inputs
    return [unbroadcast(multiply(grad, y), x), unbroadcast(multiply(x, grad), y)]


def multiply(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Mul", [x, y], name=name)


# --- RealDiv ------------------------------------------------------------------------------------------
@register_op("RealDiv", "RealDiv", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_elementwise.div)
def real_div_kernel(x: Any, y: Any) -> Any:
    """z = x / y (broadcasting; floats)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y).astype(x.dtype, copy=False)


@register_gradient("RealDiv")
def _real_div_grad(op: Any, grad: Any) -> list:
    """dz/dx = 1/y, dz/dy = -x/y^2."""
    x, y = op.inputs
    return [unbroadcast(real_div(grad, y), x),
            unbroadcast(multiply(grad, real_div(real_div(negative(x), y), y)), y)]


def real_div(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("RealDiv", [x, y], name=name)


def truediv(x: Any, y: Any, name: str | None = None) -> Any:
    """x / y in floating point: integer inputs are cast first (int8/16 -> float32, int32/64 -> float64)."""
    with op_scope(name or "truediv") as scope_name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        dtype = x.dtype.base_dtype
        if dtype.is_integer:
            target = dtypes.float32 if dtype.size <= 2 else dtypes.float64
            x, y = cast(x, target), cast(y, target)
        return real_div(x, y, name=scope_name[:-1] + "/" if scope_name else None)


divide = truediv


# --- Neg --------------------------------------------------------------------------------------------
@register_op("Neg", "Neg", inputs=("x",), shape=same_as_input, c=c_elementwise.neg)
def neg_kernel(x: Any) -> Any:
    """y = -x."""
    return np.negative(x)


@register_gradient("Neg")
def _neg_grad(op: Any, grad: Any) -> Any:
    """dy/dx = -1."""
    return negative(grad)


def negative(x: Any, name: str | None = None) -> Any:
    return apply_op("Neg", [x], name=name)


# --- AddN ---------------------------------------------------------------------------------------------
def _add_n_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(merged_shape(inputs), inputs[0].dtype.base_dtype)


@register_op("AddN", "AddN", inputs=("*inputs",), shape=_add_n_shape, same_dtype="all", portable=shape_kernels.add_n)
def add_n_kernel(*values: Any, N: int) -> Any:  # noqa: N803 - TensorFlow's attr name
    """y = sum_i x_i (same shapes)."""
    total = values[0]
    for value in values[1:]:
        total = np.add(total, value)
    return np.asarray(total)


@register_gradient("AddN")
def _add_n_grad(op: Any, grad: Any) -> list:
    """dy/dx_i = 1."""
    return [grad] * len(op.inputs)


def add_n(inputs: list, name: str | None = None) -> Any:
    inputs = list(inputs)
    if not inputs:
        raise ValueError("inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape")
    if len(inputs) == 1 and not isinstance(inputs[0], IndexedSlices):
        return array_ops.identity(inputs[0], name=name)
    return apply_op("AddN", [to_dense(t) for t in inputs], {"N": len(inputs)}, name=name)


# --- MatMul -----------------------------------------------------------------------------------------
def _matmul_shape(inputs: list, attrs: dict) -> tuple:
    a, b = inputs
    for tensor in (a, b):
        if tensor.shape.rank is not None and tensor.shape.rank != 2:
            raise ShapeError(f"Shape must be rank 2 but is rank {tensor.shape.rank}")
    a_dims = a.shape.as_tuple() or (None, None)
    b_dims = b.shape.as_tuple() or (None, None)
    rows, inner_a = (a_dims[1], a_dims[0]) if attrs["transpose_a"] else a_dims
    inner_b, cols = (b_dims[1], b_dims[0]) if attrs["transpose_b"] else b_dims
    merge_dims(inner_a, inner_b, "Dimensions must be equal, but are {a} and {b}")
    return output_spec((rows, cols), a.dtype.base_dtype)


@register_op("MatMul", "MatMul", inputs=("a", "b"), shape=_matmul_shape, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_gemm.matmul)
def matmul_kernel(a: Any, b: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    """C = op(A) @ op(B), op = transpose if asked."""
    return np.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


@register_gradient("MatMul")
def _matmul_grad(op: Any, grad: Any) -> list:
    """For C = A B: dA = G B^T, dB = A^T G (transposes follow the forward flags)."""
    a, b = op.inputs
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not t_a and not t_b:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not t_a and t_b:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if t_a and not t_b:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)]


def _batch_matmul_shape(inputs: list, attrs: dict) -> tuple:
    from webflow.ops.shapes import broadcast_shapes

    a, b = inputs
    if a.shape.rank is None or b.shape.rank is None:
        return output_spec(None, a.dtype.base_dtype)
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise ShapeError(f"In[0] and In[1] must have rank >= 2, but are {a.shape.rank} and {b.shape.rank}")
    a_dims, b_dims = a.shape.as_tuple(), b.shape.as_tuple()
    rows, inner_a = (a_dims[-1], a_dims[-2]) if attrs["adj_x"] else a_dims[-2:]
    inner_b, cols = (b_dims[-1], b_dims[-2]) if attrs["adj_y"] else b_dims[-2:]
    merge_dims(inner_a, inner_b, "Dimensions must be equal, but are {a} and {b}")
    batch = broadcast_shapes(TensorShape(a_dims[:-2]), TensorShape(b_dims[:-2]))
    return output_spec(batch.concatenate((rows, cols)), a.dtype.base_dtype)


@register_op("BatchMatMulV2", "MatMul", inputs=("x", "y"), shape=_batch_matmul_shape, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_gemm.batch_matmul)
def batch_matmul_kernel(x: Any, y: Any, *, adj_x: bool, adj_y: bool) -> Any:
    """C[..] = op(A[..]) @ op(B[..]), batch dims broadcasting."""
    return np.matmul(np.swapaxes(x, -1, -2) if adj_x else x, np.swapaxes(y, -1, -2) if adj_y else y)


@register_gradient("BatchMatMulV2")
def _batch_matmul_grad(op: Any, grad: Any) -> list:
    """As MatMul per batch entry, then summed over broadcast batch dims."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x:
        grad_x = matmul(grad, y, adjoint_b=not adj_y) if not adj_y else matmul(grad, y)
    else:
        grad_x = matmul(y, grad, adjoint_b=True) if not adj_y else matmul(y, grad, adjoint_a=True, adjoint_b=True)
    if not adj_y:
        grad_y = matmul(x, grad, adjoint_a=True) if not adj_x else matmul(x, grad)
    else:
        grad_y = matmul(grad, x, adjoint_a=True) if not adj_x else matmul(grad, x, adjoint_a=True, adjoint_b=True)
    return [unbroadcast_batch(grad_x, x), unbroadcast_batch(grad_y, y)]


def unbroadcast_batch(grad: Any, x: Any) -> Any:
    return unbroadcast(grad, x)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type: Any = None, name: str | None = None) -> Any:
    """Matrix product; rank > 2 inputs are batches (BatchMatMulV2), as `tf.matmul`."""
    transpose_a = transpose_a or adjoint_a
    transpose_b = transpose_b or adjoint_b
    with name_scope_v1(name, "MatMul", [a, b]) as scope:  # Python values become MatMul/a, MatMul/b
        a = a if is_tensor_like(a) else convert_to_tensor(a, name="a")
        b = b if is_tensor_like(b) else convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        if (a.shape.rank, b.shape.rank) == (2, 2):
            return apply_op("MatMul", [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b},
                            name=scope or None)
        return apply_op("BatchMatMulV2", [a, b], {"adj_x": transpose_a, "adj_y": transpose_b}, name=scope or None)


# --- Cast -------------------------------------------------------------------------------------------
def _cast_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[0].shape, attrs["DstT"])


@register_op("Cast", "Cast", inputs=("x",), shape=_cast_shape, c=c_cast.cast)
def cast_kernel(x: Any, *, SrcT: Any, DstT: Any, Truncate: bool = False) -> Any:  # noqa: N803
    """y = x converted to DstT (floats to ints truncate toward zero, as C does)."""
    return np.asarray(x).astype(DstT.as_numpy_dtype)


@register_gradient("Cast")
def _cast_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 between float types; no gradient into integers."""
    source = op.get_attr("SrcT")
    if source.is_floating and op.get_attr("DstT").is_floating:
        return cast(grad, source)
    return None


def cast(x: Any, dtype: Any, name: str | None = None) -> Any:
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, IndexedSlices):
        return IndexedSlices(cast(x.values, dtype, name=name), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    if x.dtype.base_dtype is dtype:
        return x
    return apply_op("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype, "Truncate": False}, name=name)


def to_float(x: Any, name: str = "ToFloat") -> Any:
    return cast(x, dtypes.float32, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Any:
    return cast(x, dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Any:
    return cast(x, dtypes.int64, name=name)


# --- reductions: Sum, Mean ------------------------------------------------------------------------
def reduction_shape(inputs: list, attrs: dict) -> tuple:
    """Shape after reducing the axes in input 1 (all unknown if the axes are not constant)."""
    x, axes_tensor = inputs
    keep = attrs["keep_dims"]
    axes = constant_value(axes_tensor)
    rank = x.shape.rank
    if rank == 0:  # a scalar stays a scalar whatever the (run-time) axes
        return output_spec([], x.dtype.base_dtype)
    if axes is None or rank is None:
        return output_spec(None if not keep or rank is None else [None] * rank, x.dtype.base_dtype)
    axes = backend_values.flat_list(axes)
    for axis in axes:
        if not -rank <= axis < max(rank, 1):
            raise ShapeError(f"Invalid reduction dimension {axis} for input with {rank} dimensions.")
    axes = {a % rank for a in axes} if rank else set()
    dims = x.shape.as_tuple()
    if keep:
        return output_spec([1 if i in axes else d for i, d in enumerate(dims)], x.dtype.base_dtype)
    kept = [d for i, d in enumerate(dims) if i not in axes]
    return output_spec(kept, x.dtype.base_dtype)


def _axes_tuple(axes: Any) -> tuple:
    return tuple(int(a) for a in np.asarray(axes).reshape(-1))


@register_op("Sum", "Sum", inputs=("input", "reduction_indices"), shape=reduction_shape, c=c_reduce.sum_reduce)
def sum_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = sum of x over axes."""
    axes = _axes_tuple(axes)
    if not axes and isinstance(x, np.ndarray):
        return x  # nothing to reduce: TF forwards the input (a gradient summed over no broadcast axes)
    folded = _sum_leading_axes(x, axes, keep_dims)
    if folded is not None:
        return folded
    return np.asarray(np.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype))


def _sum_leading_axes(x: Any, axes: tuple, keep_dims: bool) -> Any:
    """Sum over the leading axes of a contiguous float array with few values kept per row (a bias gradient:
    [n, h, w, c] summed to [c]), or None. NumPy adds such narrow rows one short row at a time (32 floats:
    1.24 ms for 50x28x28x32); folding `group` rows into one long row first makes it 0.25 ms (one thread).
    The additions are grouped differently, so the result may differ in the last bits (as TF's own order)."""
    if not isinstance(x, np.ndarray) or x.dtype.kind != "f" or x.itemsize < 4 or not x.flags.c_contiguous \
            or not axes or x.size < 65536:
        return None
    lead = sorted(a % x.ndim for a in axes)
    if lead != list(range(len(lead))) or len(set(lead)) != len(lead):
        return None
    kept_dims = x.shape[len(lead):]
    kept = math.prod(kept_dims)
    rows = x.size // kept if kept else 0
    group = max(1, 1024 // kept) if kept else 1
    if kept == 0 or kept > 32 or rows % group or rows // group < 2:  # 64 kept: NumPy alone is as fast
        return None
    partial = x.reshape(rows // group, group * kept).sum(axis=0, dtype=x.dtype)
    total = partial.reshape(group, kept).sum(axis=0, dtype=x.dtype)
    return total.reshape((1,) * len(lead) + kept_dims if keep_dims else kept_dims)


@register_gradient("Sum")
def _sum_grad(op: Any, grad: Any) -> list:
    """dy/dx = 1 for every reduced element: broadcast grad back to x's shape."""
    x, axes = op.inputs
    return [broadcast_reduced(grad, x, axes, op.get_attr("keep_dims")), None]


def broadcast_reduced(grad: Any, x: Any, axes: Any, keep_dims: bool) -> Any:
    """Reshapes a reduction's gradient to keep the reduced dims (as 1) and tiles it to x's shape."""
    if not keep_dims:
        grad = array_ops.reshape(grad, reduced_shape(x, axes))
    return array_ops.broadcast_to(grad, array_ops.shape(x) if not x.shape.is_fully_defined() else x.shape.as_list())


def reduced_shape(x: Any, axes: Any) -> Any:
    """x's shape with the reduced axes set to 1 (static when possible)."""
    known_axes = constant_value(axes)
    if x.shape.is_fully_defined() and known_axes is not None:
        rank = x.shape.rank
        reduced = {int(a) % rank for a in backend_values.flat_list(known_axes)} if rank else set()
        return [1 if i in reduced else d for i, d in enumerate(x.shape.as_list())]
    return array_ops.reduced_shape_dynamic(array_ops.shape(x), axes)


@register_op("Mean", "Mean", inputs=("input", "reduction_indices"), shape=reduction_shape, c=c_reduce.reduce_mean)
def mean_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = mean of x over axes (integer inputs: integer division, as TF)."""
    axes = _axes_tuple(axes)
    if x.dtype.kind in "iu":
        count = max(int(math.prod([x.shape[a] for a in axes])) if axes else 1, 1)
        return np.asarray(np.sum(x, axis=axes, keepdims=keep_dims) // count).astype(x.dtype)
    return np.asarray(np.mean(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)).astype(x.dtype, copy=False)


@register_gradient("Mean")
def _mean_grad(op: Any, grad: Any) -> list:
    """dy/dx = 1/N for each of the N reduced elements."""
    x, axes = op.inputs
    y = op.outputs[0]
    tiled = broadcast_reduced(grad, x, axes, op.get_attr("keep_dims"))
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(x.shape.num_elements() // max(y.shape.num_elements(), 1), 1)
        return [real_div(tiled, cast(count, tiled.dtype)), None]
    count = cast(real_div(cast(array_ops.size(x), dtypes.float64), cast(array_ops.size(y), dtypes.float64)),
                 tiled.dtype)
    return [real_div(tiled, count), None]


# The axes argument of a reduction (all axes when None): in array_ops, whose Fill gradient sums with it.
reduction_axes = array_ops.reduction_axes


def reduction_arguments(axis: Any, keepdims: Any, reduction_indices: Any = None, keep_dims: Any = None) -> tuple:
    """(axis, keep) from TF2 names and their deprecated TF1 aliases (reduction_indices, keep_dims)."""
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    return axis, bool(keepdims if keepdims is not None else keep_dims)


def _reduce(op_type: str, input_tensor: Any, axis: Any, keepdims: Any, name: str | None,
            reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    """One reduction op (Sum, Mean, Max, Prod, Any ...) over `axis` (all axes when None)."""
    axis, keep = reduction_arguments(axis, keepdims, reduction_indices, keep_dims)
    if isinstance(axis, (list, tuple)) and not axis:
        axis = np.zeros(0, np.int32)  # reduce over no axes: the op still runs (TF builds it too)
    if axis is None and not is_tensor_like(input_tensor):
        # A Python value: TF reduces over range(0, rank(value)) and converts the value inside the op.
        return apply_op(op_type, [input_tensor, array_ops.range(0, array_ops.rank(input_tensor))],
                        {"keep_dims": keep}, name=name)
    x = convert_to_tensor(input_tensor)
    return apply_op(op_type, [x, reduction_axes(x, axis)], {"keep_dims": keep}, name=name)


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# --- sparse gradients -----------------------------------------------------------------------------
def to_dense(value: Any) -> Any:
    """A dense tensor for a gradient that may be IndexedSlices (sums repeated rows)."""
    if not isinstance(value, IndexedSlices):
        return value
    num_rows = value.dense_shape[0] if value.dense_shape is not None else None
    if num_rows is None:
        raise ValueError("Cannot densify IndexedSlices without a dense_shape")
    return array_ops.unsorted_segment_sum(value.values, value.indices, num_rows)


register_tensor_conversion_function(
    IndexedSlices, lambda value, dtype=None, name=None, as_ref=False: to_dense(value))


# --- Python operators on tensors ------------------------------------------------------------------
def _binary_operator(function: Any, op_name: str) -> Any:
    """x <op> y with y converted to x's dtype (so `x + 1` works on float32 x), under TF's name scope."""
    from webflow.framework import context

    def operator(x: Any, y: Any) -> Any:
        if context.executing_eagerly():
            return function(*_operands(x, y))
        with context.get_default_graph().name_scope(op_name) as scope:
            return function(*_operands(x, y), name=scope)

    return operator


def _operands(x: Any, y: Any) -> tuple:
    """Both operands as tensors; a Python number takes the tensor's dtype, on either side (`1.0 - t`).
    The dtype is only preferred: `int_tensor + 1.5` makes a float32 1.5 and the op then raises TF's
    "Input 'y' of 'AddV2' Op has type float32 that does not match type int32" TypeError."""
    if _is_python_number(x) and not _is_python_number(y):  # reversed operator: 1.0 - t
        y = convert_to_tensor(y, name="y")
        return convert_to_tensor(x, preferred_dtype=y.dtype.base_dtype, name="x"), y
    x = convert_to_tensor(x, name="x")
    return x, convert_to_tensor(y, preferred_dtype=x.dtype.base_dtype if _is_python_number(y) else None, name="y")


def _is_python_number(value: Any) -> bool:
    return isinstance(value, (int, float, bool, list, tuple)) or type(value).__module__ == "numpy"


OPERATORS.update({
    "add": _binary_operator(add, "add"), "sub": _binary_operator(subtract, "sub"),
    "mul": _binary_operator(multiply, "mul"), "truediv": _binary_operator(truediv, "truediv"),
    "matmul": lambda x, y: matmul(x, y), "neg": lambda x: negative(x),
})


# --- the rest of the math family ---------------------------------------------------------------------
# TensorFlow's math_ops holds every math op; webflow keeps files small, so the family continues in
# unary_math_ops, binary_math_ops, logic_ops and reduction_ops. `math_ops.exp` etc. still work:
_FAMILY = ("unary_math_ops", "binary_math_ops", "logic_ops", "reduction_ops")


def __getattr__(name: str) -> Any:
    import importlib

    if not name.startswith("_"):
        for module_name in _FAMILY:
            module = importlib.import_module(f"webflow.ops.{module_name}")
            if name in vars(module):
                return vars(module)[name]
    raise AttributeError(f"module 'webflow.ops.math_ops' has no attribute '{name}'")
