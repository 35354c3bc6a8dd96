"""Tracing a `map` / `filter` / `flat_map` / `interleave` / `reduce` function into a FuncGraph, as TensorFlow does.

The function is called once, at build time, on placeholders standing for one element (`element_spec`); what
it returns becomes the FuncGraph's outputs and the new element_spec. Outer tensors it uses are captured and
passed to the dataset op as extra inputs. As TensorFlow's `_should_unpack`, a tuple element is passed as
separate arguments (`map(lambda x, y: ...)`), anything else as one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.data import building, sparse_elements, structure
from webflow.framework import context, dtypes
from webflow.framework.func_graph import FuncGraph
from webflow.framework.tensor import Tensor, TensorBase
from webflow.ops.convert import convert_to_tensor


class TracedFunction:
    """A traced element function: its FuncGraph, the captured outer tensors and the output spec."""

    def __init__(self, graph: FuncGraph, output_structure: Any, output_spec: Any):
        self.graph = graph
        self.output_structure = output_structure
        self.output_spec = output_spec

    @property
    def captured_inputs(self) -> list:
        return self.graph.captured_inputs


def trace(function: Callable, input_specs: list, transformation: str, unpack: bool = True) -> TracedFunction:
    """Traces `function` on placeholders for the nests in `input_specs` (one per argument group)."""
    if not callable(function):
        raise TypeError(f"`{transformation}()` needs a callable, got {function!r}")
    outer = None if context.executing_eagerly() else context.get_default_graph()
    graph = FuncGraph(f"Dataset_{transformation}_{getattr(function, '__name__', 'fn')}", outer)
    graph.op_seed_graph = getattr(outer, "op_seed_graph", None) if isinstance(outer, FuncGraph) else outer
    with graph.as_default():
        arguments, placeholders = [], []
        for spec in input_specs:
            pairs = [_placeholder(graph, leaf) for leaf in structure.flatten(spec)]
            placeholders += [placeholder for placeholder, _ in pairs]
            arguments.append(structure.pack(spec, [argument for _, argument in pairs]))
        graph.inputs = list(placeholders)
        result = _call(function, arguments, unpack)
        result = normalize_result(result, transformation)
        tensors = [_as_tensor(leaf, transformation, path)
                   for leaf, path in zip(structure.flatten(result), structure.paths(result))]
        graph.outputs = [t if isinstance(t, Tensor) and t.graph is graph else graph.capture(t) for t in tensors]
    spec = structure.pack(result, [_output_spec(leaf, out) for leaf, out in
                                   zip(structure.flatten(result), graph.outputs)])
    return TracedFunction(graph, result, spec)


def _placeholder(graph: FuncGraph, spec: Any) -> tuple:
    """(the function's input tensor, what the Python function receives for it)."""
    if isinstance(spec, structure.SparseTensorSpec):
        tensor = graph.add_placeholder(dtypes.variant, [], "args")
        return tensor, sparse_elements.from_component(tensor, spec)
    tensor = graph.add_placeholder(spec.dtype, spec.shape, "args")
    if isinstance(spec, structure.DatasetSpec):
        return tensor, building.as_dataset(tensor, spec.element_spec)
    return tensor, tensor


def _call(function: Callable, arguments: list, unpack: bool) -> Any:
    if not unpack:
        return function(*arguments)
    flat_arguments = []
    for argument in arguments:
        flat_arguments += list(argument) if type(argument) is tuple else [argument]
    return function(*flat_arguments)


def normalize_result(result: Any, transformation: str) -> Any:
    """Lists become tuples (TensorFlow does the same, with a warning); datasets stay datasets."""
    if isinstance(result, list):
        return tuple(normalize_result(item, transformation) for item in result)
    if isinstance(result, tuple) and not hasattr(result, "_fields"):
        return tuple(normalize_result(item, transformation) for item in result)
    if isinstance(result, dict):
        return {key: normalize_result(value, transformation) for key, value in result.items()}
    return result


def _as_tensor(leaf: Any, transformation: str, path: str) -> Any:
    if hasattr(leaf, "_variant_tensor"):
        return leaf._variant_tensor
    if sparse_elements.is_sparse(leaf):
        return sparse_elements.to_component(leaf)
    if leaf is None:
        raise TypeError(f"The `{transformation}()` function returned None at {path}: every component of an "
                        "element must be a tensor (or a value convertible to one)")
    try:
        return convert_to_tensor(leaf) if not isinstance(leaf, TensorBase) else leaf
    except (TypeError, ValueError) as error:
        raise TypeError(f"Unsupported return value from function passed to Dataset.{transformation}(): {leaf!r} "
                        f"at component {path} cannot be converted to a tensor ({error})") from None


def _output_spec(leaf: Any, tensor: Any) -> Any:
    if hasattr(leaf, "_variant_tensor"):
        return structure.DatasetSpec(leaf.element_spec)
    if sparse_elements.is_sparse(leaf):
        return sparse_elements.spec_of(leaf)
    return structure.TensorSpec(tensor.shape, tensor.dtype.base_dtype)


__all__ = ["TracedFunction", "trace", "normalize_result"]
