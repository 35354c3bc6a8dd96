"""TensorArray ops (TensorFlow's data_flow_ops TensorArray*V3): an array of tensors written and read by index.

Every op takes the array's `handle` and a float scalar `flow`; the ops that change the array return a new flow.
The flow carries no number (always 0.0): threading it from op to op orders the reads after the writes, and it
is what a while_loop carries for an array and what gradients flow through. The Python class is
ops/tensor_array.py; the array's contents and TensorFlow's checks, ops/tensor_array_state.py.

Gradients (as TensorFlow's tensor_array_grad.py): each array has gradient arrays (TensorArrayGradV3, one per
gradient source, same size, writes to one index add up). A read's gradient writes into the gradient array at
that index; a write's gradient reads from it; gather <-> scatter and concat <-> split likewise.

Without NumPy (Pyodide) the same kernels run on CArrays: TensorArrayV3's portable kernel makes an array whose
element operations are backends/portable/tensor_array_elements.py's, and every other kernel works through the
array it is handed (`handle.arrays`), so each of them is its own `portable=` kernel.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.c.adapters import flat_ints
from webflow.backends.portable.tensor_array_elements import PORTABLE_ELEMENTS
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.functional_ops import replaying
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import no_outputs
from webflow.ops.tensor_array_state import NUMPY_ELEMENTS, TensorArrayState

_FLOW = 0.0  # the value every flow tensor holds


def _flow(handle: TensorArrayState) -> Any:
    return handle.arrays.scalar(_FLOW, dtypes.float32)


def _handle_and_flow(inputs: list, attrs: dict) -> list:
    return [output_spec([2], dtypes.resource), output_spec([], dtypes.float32)]


def _flow_out(inputs: list, attrs: dict) -> Any:
    return output_spec([], dtypes.float32)


# --- TensorArrayV3 ---------------------------------------------------------------------------------------
def _new_array(arrays: Any) -> Any:
    """The TensorArrayV3 kernel making arrays whose elements are `arrays`' (NumPy's, or CArrays)."""

    def tensor_array_kernel(context: Any, size: Any, *, dtype: Any, element_shape: Any = None,
                            dynamic_size: bool = False, clear_after_read: bool = True,
                            identical_element_shapes: bool = False, tensor_array_name: str = "") -> list:
        """handle = a new array of `size` unwritten elements; flow = 0."""
        name = tensor_array_name or context.op_name or "TensorArray"
        state = TensorArrayState(dtype, int(size), name=name, dynamic_size=dynamic_size,
                                 clear_after_read=clear_after_read, element_shape=element_shape,
                                 identical_element_shapes=identical_element_shapes, arrays=arrays)
        return [state, _flow(state)]

    return tensor_array_kernel


tensor_array_kernel = register_op(
    "TensorArrayV3", "TensorArray", inputs=("size",), shape=_handle_and_flow, needs_context=True, stateful=True,
    portable=_new_array(PORTABLE_ELEMENTS))(_new_array(NUMPY_ELEMENTS))


def tensor_array_grad_kernel(handle: TensorArrayState, flow_in: Any, *, source: str) -> list:
    """grad_handle = handle's gradient array for `source` (the same one each time it is asked for)."""
    return [handle.gradient_array(source), _flow(handle)]


register_op("TensorArrayGradV3", "TensorArrayGradV3", inputs=("handle", "flow_in"), shape=_handle_and_flow,
            stateful=True, portable=tensor_array_grad_kernel)(tensor_array_grad_kernel)


# --- write / read -----------------------------------------------------------------------------------------
def tensor_array_write_kernel(handle: TensorArrayState, index: Any, value: Any, flow_in: Any) -> Any:
    """array[index] = value; flow_out = flow_in."""
    handle.write(int(index), value, replaying())
    return _flow(handle)


register_op("TensorArrayWriteV3", "TensorArrayWriteV3", inputs=("handle", "index", "value", "flow_in"),
            shape=_flow_out, stateful=True, portable=tensor_array_write_kernel)(tensor_array_write_kernel)


def tensor_array_read_kernel(handle: TensorArrayState, index: Any, flow_in: Any, *, dtype: Any) -> Any:
    """value = array[index] (cleared after the read when the array says so)."""
    return handle.read(int(index), replaying())


register_op("TensorArrayReadV3", "TensorArrayReadV3", inputs=("handle", "index", "flow_in"),
            shape=lambda inputs, attrs: output_spec(None, attrs["dtype"]), stateful=True,
            portable=tensor_array_read_kernel)(tensor_array_read_kernel)


@register_gradient("TensorArrayReadV3")
def _read_grad(op: Any, grad: Any) -> list:
    """d flow = flow of (gradient array)[index] += grad."""
    handle, index, flow = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow, grad)
    return [None, None, apply_op("TensorArrayWriteV3", [grad_handle, index, grad, grad_flow])]


@register_gradient("TensorArrayWriteV3")
def _write_grad(op: Any, flow_grad: Any) -> list:
    """d value = (gradient array)[index]; d flow_in = d flow_out."""
    handle, index, value, _ = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow_grad, flow_grad)
    grad = apply_op("TensorArrayReadV3", [grad_handle, index, grad_flow], {"dtype": value.dtype.base_dtype})
    grad.set_shape(value.shape)
    return [None, None, grad, flow_grad]


# --- gather / scatter ---------------------------------------------------------------------------------------
def _gather_shape(inputs: list, attrs: dict) -> Any:
    """[?] + element_shape: TensorFlow leaves the count unknown (TensorArray.stack() sets it)."""
    element = TensorShape(attrs.get("element_shape"))
    return output_spec(TensorShape([None]).concatenate(element), attrs["dtype"])


def tensor_array_gather_kernel(handle: TensorArrayState, indices: Any, flow_in: Any, *, dtype: Any,
                               element_shape: Any = None) -> Any:
    """value = stack(array[i] for i in indices) (stack() gathers range(size))."""
    return handle.gather(flat_ints(indices), element_shape, replaying())


register_op("TensorArrayGatherV3", "TensorArrayGatherV3", inputs=("handle", "indices", "flow_in"),
            shape=_gather_shape, stateful=True, portable=tensor_array_gather_kernel)(tensor_array_gather_kernel)


@register_gradient("TensorArrayGatherV3")
def _gather_grad(op: Any, grad: Any) -> list:
    """d flow = flow of (gradient array).scatter(indices, grad)."""
    handle, indices, flow = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow, grad)
    return [None, None, apply_op("TensorArrayScatterV3", [grad_handle, indices, grad, grad_flow])]


def tensor_array_scatter_kernel(handle: TensorArrayState, indices: Any, value: Any, flow_in: Any) -> Any:
    """array[indices[k]] = value[k] for each k (unstack() scatters to range(len(value)))."""
    indices = flat_ints(indices)
    value = handle.arrays.as_array(value)
    if value.ndim == 0 or value.shape[0] != len(indices):
        raise InvalidArgumentError(None, None, "Expected len(indices) == values.shape[0], but saw: "
                                               f"{len(indices)} vs. {value.shape[0] if value.ndim else 0}")
    if indices and not handle.dynamic_size and max(indices) >= handle.size():
        raise InvalidArgumentError(None, None, f"Max scatter index must be < array size ({max(indices)} vs. "
                                               f"{handle.size()})")
    for k, index in enumerate(indices):
        handle.write(index, handle.arrays.row(value, k), replaying())
    return _flow(handle)


register_op("TensorArrayScatterV3", "TensorArrayScatterV3", inputs=("handle", "indices", "value", "flow_in"),
            shape=_flow_out, stateful=True, portable=tensor_array_scatter_kernel)(tensor_array_scatter_kernel)


@register_gradient("TensorArrayScatterV3")
def _scatter_grad(op: Any, flow_grad: Any) -> list:
    """d value = (gradient array).gather(indices); d flow_in = d flow_out."""
    handle, indices, value, _ = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow_grad, flow_grad)
    element = value.shape[1:] if value.shape.rank is not None else TensorShape(None)
    grad = apply_op("TensorArrayGatherV3", [grad_handle, indices, grad_flow],
                    {"dtype": value.dtype.base_dtype, "element_shape": element})
    grad.set_shape(value.shape)
    return [None, None, grad, flow_grad]


# --- concat / split ---------------------------------------------------------------------------------------
def _concat_shape(inputs: list, attrs: dict) -> list:
    rest = TensorShape(attrs.get("element_shape_except0"))
    return [output_spec(TensorShape([None]).concatenate(rest), attrs["dtype"]), output_spec([None], dtypes.int64)]


def tensor_array_concat_kernel(handle: TensorArrayState, flow_in: Any, *, dtype: Any,
                               element_shape_except0: Any = None) -> list:
    """value = concat(array[0], ..., array[size-1]) along axis 0; lengths = each element's first dimension."""
    values = [handle.read(i, replaying()) for i in range(handle.size())]
    if not values:
        rest = TensorShape(element_shape_except0)
        shape = [0] + (rest.as_list() if rest.is_fully_defined() else [])
        return [handle.arrays.zeros(shape, dtype), handle.arrays.zeros([0], dtypes.int64)]
    for i, value in enumerate(values):
        if value.ndim == 0:
            raise InvalidArgumentError(None, None, f"Concat saw a scalar shape at index {i} but requires at "
                                                   "least vectors.  Did you mean to call stack() instead?")
    lengths = handle.arrays.vector([v.shape[0] for v in values], dtypes.int64)
    return [handle.arrays.concat(values), lengths]


register_op("TensorArrayConcatV3", "TensorArrayConcatV3", inputs=("handle", "flow_in"), shape=_concat_shape,
            stateful=True, portable=tensor_array_concat_kernel)(tensor_array_concat_kernel)


@register_gradient("TensorArrayConcatV3")
def _concat_grad(op: Any, grad: Any, lengths_grad: Any) -> list:
    """d flow = flow of (gradient array).split(grad, lengths)."""
    handle, flow = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow, grad)
    return [None, apply_op("TensorArraySplitV3", [grad_handle, grad, op.outputs[1], grad_flow])]


def tensor_array_split_kernel(handle: TensorArrayState, value: Any, lengths: Any, flow_in: Any) -> Any:
    """array[i] = value[sum(lengths[:i]) : sum(lengths[:i+1])] for each i."""
    value, lengths = handle.arrays.as_array(value), flat_ints(lengths)
    if value.ndim == 0 or sum(lengths) != value.shape[0]:
        raise InvalidArgumentError(None, None, "Expected sum of lengths to be equal to values.shape[0], but sum "
                                               f"of lengths is {sum(lengths)} and value's shape is: "
                                               f"[{','.join(str(d) for d in value.shape)}]")
    if len(lengths) != handle.size() and not handle.dynamic_size:
        raise InvalidArgumentError(None, None, f"TensorArray's size is not equal to the size of lengths "
                                               f"({handle.size()} vs. {len(lengths)}), and the TensorArray is not "
                                               "marked as dynamically resizeable")
    start = 0
    for i, length in enumerate(lengths):
        handle.write(i, handle.arrays.rows(value, start, start + length), replaying())
        start += length
    return _flow(handle)


register_op("TensorArraySplitV3", "TensorArraySplitV3", inputs=("handle", "value", "lengths", "flow_in"),
            shape=_flow_out, stateful=True, portable=tensor_array_split_kernel)(tensor_array_split_kernel)


@register_gradient("TensorArraySplitV3")
def _split_grad(op: Any, flow_grad: Any) -> list:
    """d value = (gradient array).concat(); d flow_in = d flow_out."""
    handle, value, _, _ = op.inputs
    grad_handle, grad_flow = gradient_array(handle, flow_grad, flow_grad)
    rest = value.shape[1:] if value.shape.rank is not None else TensorShape(None)
    grad = apply_op("TensorArrayConcatV3", [grad_handle, grad_flow],
                    {"dtype": value.dtype.base_dtype, "element_shape_except0": rest})[0]
    grad.set_shape(value.shape)
    return [None, grad, None, flow_grad]


# --- size / close -------------------------------------------------------------------------------------------
def tensor_array_size_kernel(handle: TensorArrayState, flow_in: Any) -> Any:
    """size = the number of elements (grown by writes past the end of a dynamic_size array)."""
    return handle.arrays.scalar(handle.size(), dtypes.int32)


register_op("TensorArraySizeV3", "TensorArraySizeV3", inputs=("handle", "flow_in"),
            shape=lambda inputs, attrs: output_spec([], dtypes.int32), stateful=True,
            portable=tensor_array_size_kernel)(tensor_array_size_kernel)


def tensor_array_close_kernel(handle: TensorArrayState) -> None:
    """Frees the array's elements (TensorFlow deletes the resource)."""
    handle.closed = True


register_op("TensorArrayCloseV3", "TensorArrayCloseV3", inputs=("handle",), shape=no_outputs, stateful=True,
            portable=tensor_array_close_kernel)(tensor_array_close_kernel)


for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArraySizeV3", "TensorArrayCloseV3"):
    NotDifferentiable(_op_type)


# --- the gradient arrays -------------------------------------------------------------------------------------
def gradient_array(handle: Any, flow: Any, grad: Any) -> tuple:
    """(handle, flow) of the gradient array of `handle` for the gradient pass that made `grad`."""
    result = apply_op("TensorArrayGradV3", [handle, flow], {"source": _gradient_source(grad)})
    return result[0], result[1]


def _gradient_source(grad: Any) -> str:
    """The gradient source naming the gradient array. TensorFlow takes the name scope of the tf.gradients call
    ("gradients", "gradients_1" ...); here a loop body's gradient graph is built once and shared by every call,
    so one source serves all: two gradient computations through the same array *in one Session.run* add up in
    one gradient array (TensorFlow keeps them apart)."""
    return "gradients"
