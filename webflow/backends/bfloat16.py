"""bfloat16 values held in float32 storage: rounding, and the kernels TensorFlow has for them on a CPU.

bfloat16 is float32 with the low 16 bits of the mantissa dropped: the same 8-bit exponent (so the same range,
no underflow trouble as in float16) and 8 bits of precision (~2-3 decimal digits). NumPy has no such type and
Pyodide may have no NumPy, so a bfloat16 tensor holds a float32 array (a CArray without NumPy) whose every value
is exactly a bfloat16; the tensor's dtype says bfloat16. Every kernel output whose dtype is bfloat16 goes
through `round_to_bfloat16`: round to nearest, ties to even, NaN kept (as a quiet NaN, its sign kept), as
Eigen's float -> bfloat16 conversion that TensorFlow's CPU kernels use.
"""

from __future__ import annotations

import array
from collections.abc import Callable
from typing import Any

from webflow.backends import bfloat16_eigen
from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, dtype_of
from webflow.backends.bfloat16_kernels import CPU_KERNELS, OP_DEF_INPUTS
from webflow.framework import bfloat16_bits, dtypes
from webflow.framework.errors import InvalidArgumentError, NotFoundError
from webflow.framework.tensor import EagerTensor

BFLOAT16 = dtypes.bfloat16


def round_to_bfloat16(value: Any, truncate: bool = False) -> Any:
    """`value` (a float array or scalar) as float32 holding the nearest bfloat16 values (`truncate`: chopped)."""
    if HAVE_NUMPY and not isinstance(value, c_array.CArray):
        return bfloat16_bits.round_array(value, truncate)
    return _round_carray(value, truncate)


def _round_carray(value: Any, truncate: bool) -> Any:
    """The no-NumPy path (Pyodide): the same rule on a CArray's float32 buffer, element by element."""
    if not isinstance(value, c_array.CArray):
        value = c_array.from_value(value, dtypes.float32)
    single = value if value.dtype is dtypes.float32 else value.astype(dtypes.float32)
    bits = array.array("I", single.data.tobytes()[:4 * single.size])
    rounded = array.array("I", [bfloat16_bits.round_bits(b, truncate) for b in bits])
    return c_array.CArray(array.array("f", rounded.tobytes()), single.shape, dtypes.float32)


# --- which ops run on bfloat16 -----------------------------------------------------------------------------
def involves_bfloat16(tensors: list, attrs: dict) -> bool:
    """Whether an op call reads or is asked to make bfloat16 (an input, or a DType attr such as Cast's DstT)."""
    for tensor in tensors:
        if tensor._dtype is BFLOAT16:
            return True
    for value in attrs.values():
        if value is BFLOAT16 or type(value) in (list, tuple) and any(item is BFLOAT16 for item in value):
            return True
    return False


def _attrs_text(attrs: dict) -> str:
    named = [f"{key}=DT_BFLOAT16" for key, value in attrs.items() if value is BFLOAT16]
    return ", ".join(named) or "T=DT_BFLOAT16"


def check_op_def(op_type: str, tensors: list) -> None:
    """TensorFlow's graph-build TypeError for a bfloat16 input its OpDef does not allow (InTopKV2's predictions,
    Qr, LSTMBlockCell ...); webflow raises it eagerly too."""
    rows = OP_DEF_INPUTS.get(op_type)
    if rows is None:
        return
    for index, tensor in enumerate(tensors[:len(rows)]):
        if tensor.dtype.base_dtype is not BFLOAT16:
            continue
        name, fixed, allowed = rows[index]
        if fixed:
            raise TypeError(f"Input '{name}' of '{op_type}' Op has type bfloat16 that does not match expected type "
                            f"of {fixed}.")
        raise TypeError(f"Value passed to parameter '{name}' has DataType bfloat16 not in list of allowed values: "
                        f"{', '.join(allowed)}")


def check_eager_kernel(op_type: str, attrs: dict) -> None:
    """TensorFlow's NotFoundError for an op with no bfloat16 kernel on a CPU (TruncateMod, SparseApplyRMSProp ...)."""
    if op_type not in CPU_KERNELS:
        raise NotFoundError(None, None, f"Could not find device for node: {{{{node {op_type}}}}} = "
                                        f"{op_type}[{_attrs_text(attrs)}] [Op:{op_type}] name: ")


def graph_kernel(op: Any, kernel: Callable) -> Callable:
    """The kernel a graph node runs: `kernel` itself, or for a node with bfloat16 outputs the kernel followed
    by rounding them (and for an op with no bfloat16 CPU kernel, TensorFlow's run-time error instead)."""
    attrs = getattr(op, "_attrs", {})
    reads = any(t.dtype.base_dtype is BFLOAT16 for t in op.inputs) or involves_bfloat16([], attrs)
    rounded = tuple(i for i, t in enumerate(op._outputs) if t.dtype.base_dtype is BFLOAT16)
    if not reads and not rounded:
        return kernel
    if op.type not in CPU_KERNELS:
        return _no_kernel(op)
    if not rounded:
        return _flushing(op, kernel) if op.type in bfloat16_eigen.FLUSHING else kernel
    several = len(op._outputs) > 1
    keep_signs = bfloat16_eigen.keeps_nan_signs(op.type, attrs)
    own = bfloat16_eigen.BFLOAT16_MATH.get(op.type)
    if own and not (op.inputs and op.inputs[0].dtype.base_dtype is BFLOAT16):
        own = None

    flush = op.type in bfloat16_eigen.FLUSHING and not op._opdef.needs_context
    reads_at = [t.dtype.base_dtype is BFLOAT16 for t in op.inputs]

    def kernel_then_round(*args: Any, **kwargs: Any) -> Any:
        given = args
        if flush:   # DAZ: the bfloat16 inputs' denormals read as zeros
            args = tuple(bfloat16_eigen.flush_denormals(a) if i < len(reads_at) and reads_at[i] else a
                         for i, a in enumerate(args))
        result = own(args[0], round_to_bfloat16) if own else kernel(*args, **kwargs)
        if not several:
            return _round_output(bfloat16_eigen.break_ties(op.type, list(given), result), keep_signs, flush)
        result = list(result)
        for index in rounded:
            result[index] = _round_output(result[index], keep_signs, flush)
        return result

    kernel_then_round.__doc__ = kernel.__doc__
    return kernel_then_round


def _flushing(op: Any, kernel: Callable) -> Callable:
    """A comparison of bfloat16 values (a bool output): its bfloat16 inputs' denormals read as zeros (DAZ)."""
    reads_at = [t.dtype.base_dtype is BFLOAT16 for t in op.inputs]

    def flush_then_run(*args: Any, **kwargs: Any) -> Any:
        args = tuple(bfloat16_eigen.flush_denormals(a) if i < len(reads_at) and reads_at[i] else a
                     for i, a in enumerate(args))
        return kernel(*args, **kwargs)

    flush_then_run.__doc__ = kernel.__doc__
    return flush_then_run


def _round_output(value: Any, keep_nan_signs: bool, flush: bool = False) -> Any:
    """A kernel's bfloat16 output rounded (a computing op's denormal results flushed first: FTZ), its NaNs signed
    as TensorFlow's vectorised conversion leaves them."""
    rounded = round_to_bfloat16(bfloat16_eigen.flush_denormals(value) if flush else value)
    return rounded if keep_nan_signs else bfloat16_eigen.packet_nans(rounded)


def _no_kernel(op: Any) -> Callable:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InvalidArgumentError(
            None, op, f"No OpKernel was registered to support Op '{op.type}' used by {{{{node {op.name}}}}} "
                      f"with these attrs: [{_attrs_text(op._attrs)}]\nRegistered devices: [CPU]")
    return refuse


def stored(value: Any, dtype: Any) -> Any:
    """A variable's new value as its store keeps it: rounded when the variable is bfloat16 (an update such as
    `v - lr * g` is computed in float32 storage, and TensorFlow keeps only the bfloat16 nearest)."""
    if dtype is not None and dtype.base_dtype is BFLOAT16:
        return round_to_bfloat16(value)
    return value


# --- eager outputs ---------------------------------------------------------------------------------------
def eager_outputs(shape_rule: Callable, tensors: list, attrs: dict, result: Any, op_type: str = "") -> list:
    """EagerTensors for a kernel's `result` when bfloat16 is involved: the op's shape rule says which outputs
    are bfloat16 (their float32 arrays are rounded and labelled so); the rest keep their arrays' dtypes."""
    own = bfloat16_eigen.BFLOAT16_MATH.get(op_type)
    if own and tensors and tensors[0]._dtype is BFLOAT16:   # computed as Eigen does on bfloat16 (Sigmoid)
        result = own(bfloat16_eigen.flush_denormals(tensors[0]._value), round_to_bfloat16)
    keep_signs = bfloat16_eigen.keeps_nan_signs(op_type, attrs)
    flush = op_type in bfloat16_eigen.FLUSHING
    if op_type in bfloat16_eigen.TIES and not isinstance(result, list):
        result = bfloat16_eigen.break_ties(op_type, [t._value for t in tensors], result)
    values = result if isinstance(result, list) else [result]
    try:
        specs = shape_rule(tensors, attrs)
        kinds = [spec[1].base_dtype for spec in (specs if isinstance(specs, list) else [specs])]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        # a rule that cannot read eager inputs: a float32 output of a bfloat16 op is bfloat16
        kinds = [BFLOAT16 if dtype_of(v) is dtypes.float32 else None for v in values]
    outputs = []
    for value, kind in zip(values, kinds + [None] * (len(values) - len(kinds))):
        if kind is BFLOAT16:
            outputs.append(EagerTensor(_round_output(value, keep_signs, flush), BFLOAT16))
        else:
            outputs.append(EagerTensor(value, dtype_of(value)))
    return outputs


def flushed_inputs(op_type: str, tensors: list, values: list) -> list:
    """The kernel's input values with the bfloat16 inputs' denormals read as zeros (DAZ) when `op_type` computes."""
    if op_type not in bfloat16_eigen.FLUSHING:
        return values
    return [bfloat16_eigen.flush_denormals(v) if t._dtype is BFLOAT16 else v for t, v in zip(tensors, values)]


def eager_tensor(value: Any) -> Any:
    """An EagerTensor of dtype bfloat16 holding `value` rounded (a constant, a feed, a checkpoint's value)."""
    return EagerTensor(round_to_bfloat16(value), BFLOAT16)


__all__ = ["round_to_bfloat16", "involves_bfloat16", "check_op_def", "check_eager_kernel", "graph_kernel",
           "eager_outputs", "eager_tensor", "stored", "flushed_inputs"]
