"""Math ops: elementwise arithmetic (AddV2, Sub, Mul, RealDiv, Neg, AddN), Cast, and the Python operators
on tensors (`x + y`, `x @ y`). One stanza per op: shape rule, NumPy kernel (docstring = the math), gradient
rule, and the Python wrapper with TensorFlow's name.

TensorFlow's math_ops holds every math op; webflow keeps files small, so the family continues in
matmul_ops.py (MatMul, BatchMatMulV2), sum_mean_ops.py (Sum, Mean and the machinery every reduction shares),
unary_math_ops.py, binary_math_ops.py, logic_ops.py and reduction_ops.py, each reachable as
`math_ops.<name>` (end of this file).
"""

from __future__ import annotations

from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import cast as c_cast
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.portable import array_kernels, shape_kernels
from webflow.framework import dtypes
from webflow.framework.errors import UnimplementedError
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.tensor import OPERATORS
from webflow.ops import array_ops
from webflow.ops.broadcast_ops import reduce_gradient_args, shapes_fully_specified_and_equal
from webflow.ops.convert import convert_to_tensor, register_tensor_conversion_function
from webflow.ops.matmul_ops import matmul
from webflow.ops.registry import apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.shapes import broadcast_binary, merged_shape, same_as_input

NUMBERS = dtypes.NUMERIC
SIGNED = dtypes.FLOATING + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
FLOATS = dtypes.FLOATING


# --- AddV2 ------------------------------------------------------------------------------------------
@register_op("AddV2", "Add", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_elementwise.add, portable=array_kernels.add_strings)
def add_kernel(x: Any, y: Any) -> Any:
    """z = x + y (broadcasting; strings are concatenated)."""
    z = np.add(x, y)
    return z if hasattr(z, "dtype") else np.array(z, dtype=object)  # (two 0-d string arrays give bare bytes)


# TensorFlow's older Add: the same sum, but it also takes strings (AddV2's T excludes them), so `tf.add` and `+`
# make an Add for string operands and an AddV2 otherwise, as TensorFlow's math_ops.add does
register_op("Add", "Add", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
            allowed=NUMBERS + (dtypes.string,), portable=array_kernels.add_strings)(add_kernel)


@register_gradient("AddV2")
def _add_grad(op: Any, grad: Any) -> list:
    """dz/dx = dz/dy = 1."""
    x, y = op.inputs
    if shapes_fully_specified_and_equal(x, y, grad):
        return [grad, grad]
    return list(reduce_gradient_args(x, y, grad, grad))


register_gradient("Add")(_add_grad)


def add(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Add" if _is_string(x) or _is_string(y) else "AddV2", [x, y], name=name)


def _is_string(value: Any) -> bool:
    """A string tensor, or Python text that would convert to one."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple)):
        return bool(value) and _is_string(value[0])
    return getattr(value, "dtype", None) is dtypes.string


# --- Sub --------------------------------------------------------------------------------------------
@register_op("Sub", "Sub", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_elementwise.sub)
def sub_kernel(x: Any, y: Any) -> Any:
    """z = x - y (broadcasting)."""
    return np.subtract(x, y)


@register_gradient("Sub")
def _sub_grad(op: Any, grad: Any) -> list:
    """dz/dx = 1, dz/dy = -1."""
    x, y = op.inputs
    if shapes_fully_specified_and_equal(x, y, grad):
        return [grad, negative(grad)]
    return list(reduce_gradient_args(x, y, grad, negative(grad)))


def subtract(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Sub", [x, y], name=name)


# --- Mul --------------------------------------------------------------------------------------------
@register_op("Mul", "Mul", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_elementwise.mul)
def mul_kernel(x: Any, y: Any) -> Any:
    """z = x * y (broadcasting)."""
    return np.multiply(x, y)


@register_gradient("Mul")
def _mul_grad(op: Any, grad: Any) -> list:
    """dz/dx = y, dz/dy = x."""
    x, y = op.inputs
    if shapes_fully_specified_and_equal(x, y, grad) and grad.dtype.base_dtype in (dtypes.int32, dtypes.float32):
        return [multiply(grad, y), multiply(grad, x)]  # (TensorFlow's shortcut: note grad comes first in both)
    return list(reduce_gradient_args(x, y, multiply(grad, y), multiply(x, grad)))


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
    grad_x = real_div(grad, y)
    grad_y = OPERATORS["mul"](grad, real_div(real_div(negative(x), y), y))  # `grad * ...`: node "mul", as TF
    return list(reduce_gradient_args(x, y, grad_x, grad_y))


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
@register_op("Neg", "Neg", inputs=("x",), shape=same_as_input, allowed=SIGNED, c=c_elementwise.neg)
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
    """y = sum_i x_i (same shapes), added in order."""
    total = values[0]
    for value in values[1:]:
        if total is not values[0] and type(total) is np.ndarray and getattr(value, "shape", None) == total.shape:
            # our own sum so far: add into it, no new array (runtime/running_sums.py replays this loop)
            np.add(total, value, out=total)
        else:
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


# --- Cast -------------------------------------------------------------------------------------------
def _cast_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[0].shape, attrs["DstT"])


@register_op("Cast", "Cast", inputs=("x",), shape=_cast_shape, c=c_cast.cast)
def cast_kernel(x: Any, *, SrcT: Any, DstT: Any, Truncate: bool = False) -> Any:  # noqa: N803
    """y = x converted to DstT (floats to ints truncate toward zero, as C does)."""
    if (SrcT.base_dtype is dtypes.string) is not (DstT.base_dtype is dtypes.string):  # (tf.strings.to_number)
        raise UnimplementedError(None, None, f"Cast {SrcT.base_dtype.name} to {DstT.base_dtype.name} is not supported")
    if DstT.base_dtype is dtypes.bfloat16:  # float32 storage rounded to bfloat16 (Truncate: low bits dropped)
        with np.errstate(over="ignore"):  # a double beyond float32's range is inf, as in TensorFlow
            return bfloat16.round_to_bfloat16(np.asarray(x).astype(np.float32), truncate=Truncate)
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
def _multiply_or_and(x: Any, y: Any, name: str | None = None) -> Any:
    """`x * y`; on bools (which Mul refuses) TensorFlow's operator multiplies them as int32 and casts back."""
    if dtypes.bool not in (x.dtype.base_dtype, y.dtype.base_dtype):
        return multiply(x, y, name=name)
    return cast(multiply(cast(x, dtypes.int32), cast(y, dtypes.int32), name=name), dtypes.bool)


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
    "mul": _binary_operator(_multiply_or_and, "mul"), "truediv": _binary_operator(truediv, "truediv"),
    "matmul": lambda x, y: matmul(x, y), "neg": lambda x: negative(x),
})
