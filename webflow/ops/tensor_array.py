"""`tf.TensorArray`: a list of same-typed tensors, written and read by index, that a while_loop can carry.

In a graph (TF1, a wf.function, a while_loop body) it is a handle and a flow tensor over the TensorArray*V3 ops
of ops/tensor_array_ops.py: each write returns a new TensorArray object with the same handle and the new flow
(use the returned object, as in TensorFlow). Eagerly it is a Python list of tensors (TensorFlow's
_EagerTensorArray), so the GradientTape sees the ops that made the elements.

`infer_shape=True` (the default) makes every element have the shape of the first one written; the TensorArray
objects made from one another share what they learned, so an array written inside a while_loop knows its
element shape after the loop.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, concat_ops, sequence_ops, tensor_array_ops  # noqa: F401 - registers the ops
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.registry import apply_op, op_scope


class TensorArray:
    """TensorFlow's TensorArray: a graph one (handle + flow) or, when executing eagerly, a list of tensors."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is TensorArray and context.executing_eagerly():
            return object.__new__(EagerTensorArray)
        return object.__new__(cls)

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Any = None, clear_after_read: Any = None,
                 tensor_array_name: str | None = None, handle: Any = None, flow: Any = None,
                 infer_shape: bool = True, element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None):
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._shape_box = [TensorShape(element_shape)]  # shared with the TensorArrays made from this one
        self._size = None  # a fixed size's tensor, which size() returns (so that stack() has a static length)
        if handle is not None:
            if flow is None:
                raise ValueError("flow must not be None if handle is not None.")
            self._handle, self._flow = handle, flow
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        attrs = {"dtype": self._dtype, "element_shape": TensorShape(element_shape),
                 "dynamic_size": self._dynamic_size,
                 "clear_after_read": True if clear_after_read is None else bool(clear_after_read),
                 "identical_element_shapes": infer_shape, "tensor_array_name": tensor_array_name or ""}
        size = _index(size)
        outputs = apply_op("TensorArrayV3", [size], attrs, name=name)
        self._size = None if self._dynamic_size else size
        self._handle, self._flow = outputs[0], outputs[1]

    # --- what it is ------------------------------------------------------------------------------------------
    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def handle(self) -> Any:
        return self._handle

    @property
    def flow(self) -> Any:
        return self._flow

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> TensorShape:
        return self._shape_box[0]

    def _with_flow(self, flow: Any) -> TensorArray:
        """The same array after an op that returned `flow` (what TensorFlow's write/scatter/... return)."""
        result = object.__new__(TensorArray)
        result._dtype, result._dynamic_size, result._infer_shape = self._dtype, self._dynamic_size, self._infer_shape
        result._shape_box, result._handle, result._flow = self._shape_box, self._handle, flow
        result._size = self._size
        return result

    def _merge_element_shape(self, shape: TensorShape) -> None:
        if not self._infer_shape:
            return
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {_tuple_text(shape)} but expected "
                             f"{_tuple_text(self.element_shape)} ")
        self._shape_box[0] = self.element_shape.merge_with(shape)

    def identity(self) -> TensorArray:
        """The same array with its flow passed through an Identity (for control dependencies)."""
        return self._with_flow(array_ops.identity(self._flow))

    def grad(self, source: str, flow: Any = None, name: str | None = None) -> TensorArray:
        """The gradient array for `source` (TensorArrayGradV3)."""
        flow = self._flow if flow is None else flow
        with op_scope(name or "TensorArrayGrad"):
            handle, grad_flow = apply_op("TensorArrayGradV3", [self._handle, flow], {"source": source})
        result = self._with_flow(grad_flow)
        result._handle, result._shape_box, result._size = handle, [self.element_shape], None
        return result

    # --- one element ---------------------------------------------------------------------------------------------
    def read(self, index: Any, name: str | None = None) -> Any:
        """The element at `index` (zeros if never written and the element shape is known)."""
        value = apply_op("TensorArrayReadV3", [self._handle, _index(index), self._flow], {"dtype": self._dtype},
                         name=name)
        value.set_shape(self.element_shape)
        return value

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with `value` at `index` (each index is written once)."""
        with op_scope(name or "TensorArrayWrite"):
            value = _value(value, self._dtype)
            self._merge_element_shape(value.shape)
            flow = apply_op("TensorArrayWriteV3", [self._handle, _index(index), value, self._flow])
        return self._with_flow(flow)

    # --- many elements ---------------------------------------------------------------------------------------------
    def stack(self, name: str | None = None) -> Any:
        """All elements stacked along a new first axis (gather of range(size))."""
        with op_scope(name or "TensorArrayStack"):
            value = self.gather(sequence_ops.range(0, self.size()))
        size = self._static_size()
        if size is not None and self.element_shape.rank is not None:
            value.set_shape([size] + self.element_shape.as_list())
        return value

    def _static_size(self) -> int | None:
        """The size when it is fixed and known while building (as TensorFlow's stack and concat use it)."""
        if self._size is None or self._dynamic_size:
            return None
        value = constant_value(self._size)
        return None if value is None else int(value)

    def gather(self, indices: Any, name: str | None = None) -> Any:
        """The elements at `indices`, stacked."""
        attrs = {"dtype": self._dtype, "element_shape": self.element_shape}
        return apply_op("TensorArrayGatherV3", [self._handle, _index(indices), self._flow], attrs, name=name)

    def concat(self, name: str | None = None) -> Any:
        """All elements concatenated along their first axis."""
        rest = self.element_shape[1:] if self.element_shape.rank else TensorShape(None)
        attrs = {"dtype": self._dtype, "element_shape_except0": rest}
        value = apply_op("TensorArrayConcatV3", [self._handle, self._flow], attrs, name=name)[0]
        size, shape = self._static_size(), self.element_shape
        if size is not None and shape.rank and shape.as_list()[0] is not None:
            value.set_shape([size * shape.as_list()[0]] + shape.as_list()[1:])
        return value

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """The array with element i = value[i] (scatter to range(len(value)))."""
        with op_scope(name or "TensorArrayUnstack"):
            value = _value(value, self._dtype)
            if value.shape.rank == 0:
                raise ValueError("Shape must be at least rank 1 but is rank 0 for TensorArrayUnstack (a scalar "
                                 "cannot be unstacked)")
            count = array_ops.shape(value)[0]
            return self.scatter(sequence_ops.range(0, count), value)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """The array with element indices[k] = value[k]."""
        with op_scope(name or "TensorArrayScatter"):
            value = _value(value, self._dtype)
            if value.shape.rank is not None and value.shape.rank > 0:
                self._merge_element_shape(value.shape[1:])
            flow = apply_op("TensorArrayScatterV3", [self._handle, _index(indices), value, self._flow])
        return self._with_flow(flow)

    def split(self, value: Any, lengths: Any, name: str | None = None) -> TensorArray:
        """The array with element i = the i-th piece of `value` cut along axis 0 by `lengths`."""
        with op_scope(name or "TensorArraySplit"):
            value = _value(value, self._dtype)
            lengths = convert_to_tensor(lengths, dtype=dtypes.int64, name="lengths")
            flow = apply_op("TensorArraySplitV3", [self._handle, value, lengths, self._flow])
        return self._with_flow(flow)

    def size(self, name: str | None = None) -> Any:
        """The number of elements (an int32 scalar)."""
        if self._size is not None and self._size.graph is context.get_default_graph():
            return self._size
        return apply_op("TensorArraySizeV3", [self._handle, self._flow], name=name)

    def close(self, name: str | None = None) -> Any:
        """Frees the array."""
        return apply_op("TensorArrayCloseV3", [self._handle], name=name)


class EagerTensorArray(TensorArray):
    """TensorArray when executing eagerly: a Python list of EagerTensors (None where unwritten)."""

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: Any = None, clear_after_read: Any = None,
                 tensor_array_name: str | None = None, handle: Any = None, flow: Any = None,
                 infer_shape: bool = True, element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is enabled.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._shape_box = [TensorShape(element_shape)]
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._elements: list = [None] * int(size if size is not None else 0)
        self._handle = self._flow = None

    def _copy(self, elements: list) -> EagerTensorArray:
        result = object.__new__(EagerTensorArray)
        result.__dict__.update(self.__dict__)
        result._elements = elements
        return result

    def identity(self) -> EagerTensorArray:
        return self

    def grad(self, source: str, flow: Any = None, name: str | None = None) -> Any:
        raise NotImplementedError("TensorArray.grad is not supported when executing eagerly; eager code can use "
                                  "a GradientTape instead.")

    def read(self, index: Any, name: str | None = None) -> Any:
        index = int(index)
        if index < 0 or index >= len(self._elements):
            raise InvalidArgumentError(None, None, f"Tried to read from index {index} but array size is: "
                                                   f"{len(self._elements)}")
        value = self._elements[index]
        if value is None:
            return self._zeros(index)
        return value

    def _zeros(self, index: int) -> Any:
        if not self.element_shape.is_fully_defined():
            raise InvalidArgumentError(None, None, f"Could not read from TensorArray index {index}.  Furthermore, "
                                                   "the element shape is not fully defined: "
                                                   f"{self.element_shape}.")
        return array_ops.zeros(self.element_shape.as_list(), self._dtype)

    def write(self, index: Any, value: Any, name: str | None = None) -> EagerTensorArray:
        index = int(index)
        value = _value(value, self._dtype)
        self._merge_element_shape(value.shape)
        elements = list(self._elements)
        if index >= len(elements):
            if not self._dynamic_size:
                raise InvalidArgumentError(None, None, f"Tried to write to index {index} but array is not "
                                                       f"resizeable and size is: {len(elements)}")
            elements.extend([None] * (index + 1 - len(elements)))
        elif index < 0:
            raise InvalidArgumentError(None, None, f"Tried to write to index {index} but array is not resizeable "
                                                   f"and size is: {len(elements)}")
        elements[index] = value
        return self._copy(elements)

    def stack(self, name: str | None = None) -> Any:
        return self.gather(list(range(len(self._elements))))

    def gather(self, indices: Any, name: str | None = None) -> Any:
        indices = _ints(indices)
        if not indices:
            if not self.element_shape.is_fully_defined():
                raise ValueError("Tried to stack elements of an empty list with non-fully-defined element_shape: "
                                 f"{self.element_shape}")
            return array_ops.zeros([0] + self.element_shape.as_list(), self._dtype)
        return concat_ops.stack([self.read(i) for i in indices])

    def concat(self, name: str | None = None) -> Any:
        return concat_ops.concat([self.read(i) for i in range(len(self._elements))], 0)

    def unstack(self, value: Any, name: str | None = None) -> EagerTensorArray:
        value = _value(value, self._dtype)
        return self.scatter(list(range(value.shape.as_list()[0])), value)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> EagerTensorArray:
        value = _value(value, self._dtype)
        indices = _ints(indices)
        result = self
        for k, piece in zip(indices, concat_ops.unstack(value, num=len(indices))):
            result = result.write(k, piece)
        return result

    def split(self, value: Any, lengths: Any, name: str | None = None) -> EagerTensorArray:
        value = _value(value, self._dtype)
        lengths = _ints(lengths)
        result = self
        for k, piece in enumerate(concat_ops.split(value, lengths, axis=0) if lengths else []):
            result = result.write(k, piece)
        return result

    def size(self, name: str | None = None) -> Any:
        return convert_to_tensor(len(self._elements), dtype=dtypes.int32)

    def close(self, name: str | None = None) -> None:
        self._elements = []


def _ints(values: Any) -> list:
    """Python ints from a list or an eager tensor of indices (without NumPy, which Pyodide may lack)."""
    if isinstance(values, (list, tuple, range)):
        return [int(v) for v in values]
    flat = array_ops.reshape(convert_to_tensor(values), [-1])
    return [int(v) for v in concat_ops.unstack(flat)] if flat.shape.as_list()[0] else []


def _index(index: Any) -> Any:
    return convert_to_tensor(index, dtype=dtypes.int32, name="index")


def _value(value: Any, dtype: Any) -> Any:
    value = convert_to_tensor(value, preferred_dtype=dtype, name="value")
    if value.dtype.base_dtype != dtype:
        raise InvalidArgumentError(None, None, f"TensorArray dtype is {dtype.name} but Op is trying to write "
                                               f"dtype {value.dtype.base_dtype.name}.")
    return value


def _tuple_text(shape: TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    dims = tuple(shape.as_list())
    return str(dims).replace("None", "?") if len(dims) != 1 else f"({dims[0]},)".replace("None", "?")


# --- TensorArrays as loop variables (TensorFlow carries their flows) -----------------------------------------
def to_flows(leaves: list) -> list:
    """Loop variables with each graph TensorArray replaced by its flow tensor."""
    return [leaf.flow if _is_graph_array(leaf) else leaf for leaf in leaves]


def from_flows(templates: list, leaves: list) -> list:
    """The inverse of to_flows: a flow where `templates` had a TensorArray becomes that array with this flow."""
    return [template._with_flow(leaf) if _is_graph_array(template) else leaf
            for template, leaf in zip(templates, leaves)]


def flow_invariants(templates: list, invariants: list) -> list:
    """Shape invariants for to_flows' loop variables: a scalar where a TensorArray was (its flow)."""
    return [TensorShape([]) if _is_graph_array(template) else shape
            for template, shape in zip(templates, invariants)] + invariants[len(templates):]


def _is_graph_array(value: Any) -> bool:
    return isinstance(value, TensorArray) and not isinstance(value, EagerTensorArray)
