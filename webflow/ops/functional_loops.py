"""`tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`: loops over the first dimension of `elems`, written as TensorFlow
writes them: the elements unstacked into TensorArrays, one tf.while_loop, the results written to TensorArrays and
stacked. `elems` may be a tensor or a nest (tuple, list, dict) of tensors of the same length."""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.ops import array_ops
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import op_scope
from webflow.ops.tensor_array import TensorArray
from webflow.ops.while_loop import while_loop


def _is_nest(value: Any) -> bool:
    return isinstance(value, (list, tuple, dict))


def _pack(structure: Any, leaves: list) -> Any:
    return pack_sequence_as(structure, leaves) if _is_nest(structure) else leaves[0]


def _elements(elems: Any) -> tuple:
    """(flat element tensors, their count: an int when known while building, else a scalar tensor)."""
    flat = [convert_to_tensor(e, name="elem") for e in flatten(elems)]
    if not flat:
        raise ValueError("elems must be a Tensor or (possibly nested) sequence of Tensors. Got []")
    for tensor in flat:
        if tensor.shape.rank == 0:
            raise ValueError(f"Elements in elems must be 1+ dimensional Tensors, not scalars: {tensor}")
    static = flat[0].shape.as_list()[0] if flat[0].shape.rank is not None else None
    return flat, static if static is not None else array_ops.shape(flat[0])[0]


def _unstacked(flat: list, count: Any) -> list:
    return [TensorArray(t.dtype, size=count, dynamic_size=False, infer_shape=True).unstack(t) for t in flat]


def _stack_all(arrays: list, count: Any) -> list:
    results = [ta.stack() for ta in arrays]
    if isinstance(count, int):
        for result in results:
            result.set_shape([count] + result.shape.as_list()[1:] if result.shape.rank else [count])
    return results


def map_fn(fn: Any, elems: Any, dtype: Any = None, parallel_iterations: Any = None, back_prop: bool = True,
           swap_memory: bool = False, infer_shape: bool = True, name: str | None = None,
           fn_output_signature: Any = None) -> Any:
    """stack(fn(elems[i]) for i in range(n)); `dtype` / `fn_output_signature` give fn's output structure and
    dtypes when they differ from elems'."""
    with op_scope(name or "map"):
        flat, count = _elements(elems)
        signature = fn_output_signature if fn_output_signature is not None else dtype
        out_structure = signature if signature is not None else elems
        out_dtypes = [dtypes.as_dtype(d) for d in flatten(signature)] if signature is not None \
            else [t.dtype.base_dtype for t in flat]
        inputs = _unstacked(flat, count)
        outputs = [TensorArray(d, size=count, dynamic_size=False, infer_shape=infer_shape) for d in out_dtypes]

        def body(i: Any, *arrays: Any) -> list:
            value = fn(_pack(elems, [ta.read(i) for ta in inputs]))
            leaves = flatten(value)
            if len(leaves) != len(arrays):
                raise ValueError(f"The two structures don't have the same nested structure.\n\nFirst structure: "
                                 f"{out_structure}\n\nSecond structure: {value}")
            return [i + 1] + [ta.write(i, leaf) for ta, leaf in zip(arrays, leaves)]

        results = while_loop(lambda i, *_: i < count, body, [convert_to_tensor(0, name="i")] + outputs,
                             parallel_iterations=parallel_iterations or 10, back_prop=back_prop,
                             return_same_structure=True)
        return _pack(out_structure, _stack_all(list(results[1:]), count))


def scan(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
         swap_memory: bool = False, infer_shape: bool = True, reverse: bool = False, name: str | None = None) -> Any:
    """a_i = fn(a_{i-1}, elems[i]) for each i (from the end if `reverse`), stacked; a_{-1} = initializer, or
    without one, a_0 = elems[0] (and the scan starts at 1)."""
    with op_scope(name or "scan"):
        flat, count = _elements(elems)
        inputs = _unstacked(flat, count)
        last = count - 1
        if initializer is None:
            structure, accumulator = elems, [ta.read(last if reverse else 0) for ta in inputs]
            start = 1
        else:
            structure = initializer
            accumulator = [convert_to_tensor(a, name="initial") for a in flatten(initializer)]
            start = 0
        outputs = [TensorArray(a.dtype, size=count, dynamic_size=False, infer_shape=infer_shape)
                   for a in accumulator]
        if initializer is None:
            outputs = [ta.write(last if reverse else 0, a) for ta, a in zip(outputs, accumulator)]
        width = len(accumulator)

        def body(i: Any, *state: Any) -> list:
            accumulated, arrays = list(state[:width]), list(state[width:])
            index = last - i if reverse else i
            value = fn(_pack(structure, accumulated), _pack(elems, [ta.read(index) for ta in inputs]))
            leaves = [convert_to_tensor(v) for v in flatten(value)]
            return [i + 1] + leaves + [ta.write(index, leaf) for ta, leaf in zip(arrays, leaves)]

        start_tensor = convert_to_tensor(start, name="i")
        results = while_loop(lambda i, *_: i < count, body, [start_tensor] + accumulator + outputs,
                             parallel_iterations=parallel_iterations, back_prop=back_prop,
                             return_same_structure=True)
        return _pack(structure, _stack_all(list(results[1 + width:]), count))


def foldl(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: str | None = None) -> Any:
    """a = fn(a, elems[i]) for i = 0, 1, ... (a starts as initializer, or elems[0] and i at 1); returns a."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name or "foldl", reverse=False)


def foldr(fn: Any, elems: Any, initializer: Any = None, parallel_iterations: int = 10, back_prop: bool = True,
          swap_memory: bool = False, name: str | None = None) -> Any:
    """a = fn(a, elems[i]) for i = n-1, n-2, ... (a starts as initializer, or elems[n-1]); returns a."""
    return _fold(fn, elems, initializer, parallel_iterations, back_prop, name or "foldr", reverse=True)


def _fold(fn: Any, elems: Any, initializer: Any, parallel_iterations: int, back_prop: bool, name: str,
          reverse: bool) -> Any:
    with op_scope(name):
        flat, count = _elements(elems)
        inputs = _unstacked(flat, count)
        last = count - 1
        if initializer is None:
            structure, accumulator, start = elems, [ta.read(last if reverse else 0) for ta in inputs], 1
        else:
            structure, start = initializer, 0
            accumulator = [convert_to_tensor(a, name="initial") for a in flatten(initializer)]

        def body(i: Any, *accumulated: Any) -> list:
            index = last - i if reverse else i
            value = fn(_pack(structure, list(accumulated)), _pack(elems, [ta.read(index) for ta in inputs]))
            return [i + 1] + [convert_to_tensor(v) for v in flatten(value)]

        results = while_loop(lambda i, *_: i < count, body, [convert_to_tensor(start, name="i")] + accumulator,
                             parallel_iterations=parallel_iterations, back_prop=back_prop,
                             return_same_structure=True)
        return _pack(structure, list(results[1:]))


__all__ = ["map_fn", "scan", "foldl", "foldr"]
