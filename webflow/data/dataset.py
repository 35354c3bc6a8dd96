"""`tf.data.Dataset` (TF2): a variant tensor made by a dataset op, plus the `element_spec` of its elements.

Every method adds one dataset op (ops/dataset_ops.py) on the dataset's variant tensor and returns a new
Dataset; eagerly the op runs at once (its EagerTensor holds the dataset value), in a graph it is a node.
`for x in dataset` (eager) makes an iterator (data/iterators.py); TF1's iterators are in data/v1.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from webflow.data import building, grouping, iterators, sources, structure, tracing
from webflow.data.building import AUTOTUNE, make_dataset
from webflow.framework import context, dtypes, random_seed
from webflow.framework.sparse_tensor import SparseTensorValue
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import convert_to_tensor
from webflow.ops.dataset_values import INFINITE, UNKNOWN
from webflow.ops.registry import apply_op

_INT64_MAX = 2**63 - 1  # (dtypes.int64.max asks NumPy)


def _int64(value: Any, name: str | None) -> Any:
    return convert_to_tensor(value, dtype=dtypes.int64, name=name)


def _seed_tensors(seed: int | None) -> tuple:
    """(seed, seed2) as TensorFlow's data random_seed.get_seed builds them: Consts, and with an op seed a seed2
    that is 2**31 - 1 where both would be 0 (nodes seed2/Equal, LogicalAnd, SelectV2 "seed2")."""
    from webflow.ops import logic_ops
    from webflow.ops.registry import op_scope

    op_seed, op_seed2 = random_seed.get_seed(seed)
    seed_tensor = _int64(0 if op_seed is None else op_seed, "seed")
    if op_seed2 is None:
        return seed_tensor, _int64(0, "seed2")
    with op_scope("seed2") as scope:
        seed2 = _int64(op_seed2, None)
        both_zero = logic_ops.logical_and(logic_ops.equal(seed_tensor, 0), logic_ops.equal(seed2, 0))
        return seed_tensor, logic_ops.select_v2(both_zero, _int64(2**31 - 1, None), seed2, name=scope or None)


class DatasetV2:
    """A dataset: its variant tensor (`_variant_tensor`) and `element_spec`."""

    _kind = "DatasetV2"

    def __init__(self, variant_tensor: Any, element_spec: Any):
        self._variant_tensor = variant_tensor
        self._element_spec = element_spec

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def __repr__(self) -> str:
        return f"<{self._kind} element_spec={self._element_spec!r}>"

    # --- consuming --------------------------------------------------------------------------------------------
    def __iter__(self) -> Any:
        if _inside_function_trace():
            return iterators.FunctionIterator(self)
        if not context.executing_eagerly():
            raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
                               "tf.function.")
        return iterators.OwnedIterator(self)

    def __len__(self) -> int:
        if not context.executing_eagerly():
            raise TypeError("`tf.data.Dataset` only supports `len` in eager mode. Use `tf.data.Dataset.cardinality()`"
                            " instead.")
        count = int(self.cardinality().numpy())
        if count == INFINITE:
            raise TypeError("The dataset is infinite.")
        if count == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return count

    def __bool__(self) -> bool:
        return True  # (a dataset's truth is not its length, as in TensorFlow)

    def as_numpy_iterator(self) -> Any:
        """The elements as NumPy values (bytes for scalar strings), eagerly."""
        if not context.executing_eagerly():
            raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")
        for leaf in structure.flatten(self._element_spec):
            if isinstance(leaf, structure.DatasetSpec):
                raise TypeError("`tf.data.Dataset.as_numpy_iterator()` is not supported for datasets that produce "
                                f"values of type {type(self)}")
        return (structure.map_structure(_numpy_of, element) for element in self)

    def cardinality(self) -> Any:
        return apply_op("DatasetCardinality", [self._variant_tensor])

    def get_single_element(self, name: str | None = None) -> Any:
        return iterators.single_element(self, name)

    def reduce(self, initial_state: Any, reduce_func: Callable, name: str | None = None) -> Any:
        """Folds reduce_func(state, element) over the elements, from initial_state."""
        state = sources.normalize_element(initial_state)
        state_spec = structure.map_structure(structure.spec_of, state)
        traced = tracing.trace(reduce_func, [state_spec, self._element_spec], "reduce", unpack=False)
        if not structure.same_structure(traced.output_spec, state_spec) or \
                structure.component_types(traced.output_spec) != structure.component_types(state_spec):
            raise TypeError("The element types for the new state must match the initial state. Expected "
                            f"{structure.legacy_types(state_spec)!r} but got "
                            f"{structure.legacy_types(traced.output_spec)!r}.")
        shapes = [a.shape if a.shape == b.shape else TensorShape(None) for a, b in
                  zip(structure.flatten(state_spec), structure.flatten(traced.output_spec))]
        if shapes != structure.component_shapes(state_spec):  # a state that changes shape: relax and trace again
            state_spec = structure.pack(state_spec, [structure.TensorSpec(s, leaf.dtype) for s, leaf in
                                                     zip(shapes, structure.flatten(state_spec))])
            traced = tracing.trace(reduce_func, [state_spec, self._element_spec], "reduce", unpack=False)
        flat_state = structure.flatten(state)
        outputs = apply_op("ReduceDataset", [self._variant_tensor] + flat_state + traced.captured_inputs, {
            "f": traced.graph, "Tstate": [t.dtype.base_dtype for t in flat_state],
            "Targuments": [t.dtype.base_dtype for t in traced.captured_inputs],
            "output_types": structure.component_types(state_spec),
            "output_shapes": structure.component_shapes(state_spec)}, name=name)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        return structure.pack(state_spec, outputs)

    # --- one element at a time -----------------------------------------------------------------------------------
    def _traced(self, function: Callable, transformation: str, extra: list | None = None) -> tuple:
        """(traced function, op inputs, attrs): the dataset, the captured tensors, then `extra` inputs."""
        traced = tracing.trace(function, [self._element_spec], transformation)
        captured = traced.captured_inputs
        attrs = {"Targuments": [t.dtype.base_dtype for t in captured]}
        return traced, [self._variant_tensor] + captured + (extra or []), attrs

    def map(self, map_func: Callable, num_parallel_calls: Any = None, deterministic: Any = None,
            name: str | None = None) -> DatasetV2:
        """Elements: map_func(element), map_func traced once into a function graph."""
        if num_parallel_calls is None:
            traced, inputs, attrs = self._traced(map_func, "map")
            return make_dataset("MapDataset", inputs, dict(attrs, f=traced.graph), traced.output_spec, name,
                                "_MapDataset")
        extra = [_int64(num_parallel_calls, "num_parallel_calls")]
        traced, inputs, attrs = self._traced(map_func, "map", extra)
        attrs = dict(attrs, f=traced.graph, deterministic="default" if deterministic is None else str(deterministic))
        return make_dataset("ParallelMapDatasetV2", inputs, attrs, traced.output_spec, name, "_ParallelMapDataset")

    def filter(self, predicate: Callable, name: str | None = None) -> DatasetV2:
        """Elements: those for which predicate(element) is a true scalar bool."""
        traced, inputs, attrs = self._traced(predicate, "filter")
        spec = traced.output_spec
        if not isinstance(spec, structure.TensorSpec) or spec.dtype != dtypes.bool or \
                not spec.shape.is_compatible_with([]):
            raise ValueError(f"Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                             f"return type is {spec!r}.")
        return make_dataset("FilterDataset", inputs, dict(attrs, predicate=traced.graph), self._element_spec, name,
                            "_FilterDataset")

    def flat_map(self, map_func: Callable, name: str | None = None) -> DatasetV2:
        """Elements: those of map_func(element) (a dataset), element after element."""
        traced, inputs, attrs = self._traced(map_func, "flat_map")
        spec = _returned_dataset_spec(traced, "flat_map")
        return make_dataset("FlatMapDataset", inputs, dict(attrs, f=traced.graph), spec, name, "_FlatMapDataset")

    def interleave(self, map_func: Callable, cycle_length: Any = None, block_length: Any = None,
                   num_parallel_calls: Any = None, deterministic: Any = None, name: str | None = None) -> DatasetV2:
        """Elements: block_length from each of cycle_length datasets map_func(element) in turn."""
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1  # AUTOTUNE: TensorFlow uses the number of schedulable CPU cores
        extra = [_int64(cycle_length, "cycle_length"), _int64(1 if block_length is None else block_length,
                                                              "block_length")]
        traced, inputs, attrs = self._traced(map_func, "interleave", extra)
        spec = _returned_dataset_spec(traced, "interleave")
        return make_dataset("InterleaveDataset", inputs, dict(attrs, f=traced.graph), spec, name,
                            "_InterleaveDataset")

    def apply(self, transformation_func: Callable) -> DatasetV2:
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV2):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset

    def enumerate(self, start: int = 0, name: str | None = None) -> DatasetV2:
        """(index, element) pairs: TensorFlow's zip(range(start, int64 max), self)."""
        indices = sources.range_dataset(start, _INT64_MAX, name=name)
        return sources.zip_datasets((indices, self), name=name)

    # --- counting and combining --------------------------------------------------------------------------------
    def repeat(self, count: Any = None, name: str | None = None) -> DatasetV2:
        return self._counted("RepeatDataset", -1 if count is None else count, name, "_RepeatDataset")

    def take(self, count: Any, name: str | None = None) -> DatasetV2:
        return self._counted("TakeDataset", count, name, "_TakeDataset")

    def skip(self, count: Any, name: str | None = None) -> DatasetV2:
        return self._counted("SkipDataset", count, name, "_SkipDataset")

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> DatasetV2:
        """Every num_shards-th element, starting at position index (one worker's share)."""
        inputs = [self._variant_tensor, _int64(num_shards, "num_shards"), _int64(index, "index")]
        return make_dataset("ShardDataset", inputs, {}, self._element_spec, name, "_ShardDataset")

    def _counted(self, op_type: str, count: Any, name: str | None, kind: str) -> DatasetV2:
        return make_dataset(op_type, [self._variant_tensor, _int64(count, "count")], {}, self._element_spec,
                            name, kind)

    def concatenate(self, dataset: DatasetV2, name: str | None = None) -> DatasetV2:
        """This dataset's elements, then `dataset`'s (same structure and types; shapes relaxed where they differ)."""
        mine, theirs = self._element_spec, dataset.element_spec
        if not structure.same_structure(mine, theirs) or \
                structure.component_types(mine) != structure.component_types(theirs):
            raise TypeError(f"Incompatible dataset elements:\n  {mine!r} vs.   {theirs!r}")
        spec = structure.pack(mine, [_most_specific(a, b) for a, b in
                                     zip(structure.flatten(mine), structure.flatten(theirs))])
        return make_dataset("ConcatenateDataset", [self._variant_tensor, dataset._variant_tensor], {}, spec, name,
                            "_ConcatenateDataset")

    @staticmethod
    def zip(*datasets: Any, name: str | None = None) -> DatasetV2:
        return sources.zip_datasets(datasets[0] if len(datasets) == 1 else tuple(datasets), name=name)

    # --- grouping -----------------------------------------------------------------------------------------------
    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: str | None = None) -> DatasetV2:
        """Stacks batch_size consecutive elements; the batch dimension is None unless drop_remainder."""
        return grouping.batch(self, batch_size, drop_remainder, name)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: bool = False, name: str | None = None) -> DatasetV2:
        return grouping.padded_batch(self, batch_size, padded_shapes, padding_values, drop_remainder, name)

    def unbatch(self, name: str | None = None) -> DatasetV2:
        return grouping.unbatch(self, name)

    def window(self, size: Any, shift: Any = None, stride: Any = 1, drop_remainder: bool = False,
               name: str | None = None) -> DatasetV2:
        return grouping.window(self, size, shift, stride, drop_remainder, name)

    # --- order and buffering -------------------------------------------------------------------------------
    def shuffle(self, buffer_size: Any, seed: int | None = None, reshuffle_each_iteration: bool | None = None,
                name: str | None = None) -> DatasetV2:
        """Elements drawn at random from a buffer of buffer_size; TensorFlow's order for a given seed."""
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        inputs = [self._variant_tensor, _int64(buffer_size, "buffer_size"), *_seed_tensors(seed)]
        return make_dataset("ShuffleDataset", inputs, {"reshuffle_each_iteration": reshuffle}, self._element_spec,
                            name, "_ShuffleDataset")

    def prefetch(self, buffer_size: Any, name: str | None = None) -> DatasetV2:
        return make_dataset("PrefetchDataset", [self._variant_tensor, _int64(buffer_size, "buffer_size")], {},
                            self._element_spec, name, "_PrefetchDataset")

    def cache(self, filename: str = "", name: str | None = None) -> DatasetV2:
        filename_tensor = convert_to_tensor(filename, dtype=dtypes.string, name="filename")
        return make_dataset("CacheDataset", [self._variant_tensor, filename_tensor], {}, self._element_spec, name,
                            "_CacheDataset")

    def options(self) -> Any:
        return getattr(self, "_options", None) or building.Options()

    def with_options(self, options: Any, name: str | None = None) -> DatasetV2:
        """The same dataset carrying `options` (they tune TensorFlow's runtime, not the elements)."""
        dataset = type(self).__new__(type(self))
        dataset.__dict__.update(self.__dict__)
        dataset._options = options
        return dataset

    # --- sources -----------------------------------------------------------------------------------------------
    from_tensor_slices = staticmethod(sources.tensor_slices)
    from_tensors = staticmethod(sources.tensors)
    from_generator = staticmethod(sources.from_generator)
    range = staticmethod(sources.range_dataset)
    list_files = staticmethod(sources.list_files)


def _inside_function_trace() -> bool:
    """True while a `wf.function` is being traced (its FuncGraph is the default graph)."""
    from webflow.framework.func_graph import FuncGraph

    return not context.executing_eagerly() and isinstance(context.get_default_graph(), FuncGraph)


def _numpy_of(leaf: Any) -> Any:
    """A component's NumPy value; a SparseTensor's is a SparseTensorValue, as TensorFlow gives."""
    if hasattr(leaf, "dense_shape"):
        return SparseTensorValue(leaf.indices.numpy(), leaf.values.numpy(), leaf.dense_shape.numpy())
    return leaf.numpy()


def _returned_dataset_spec(traced: tracing.TracedFunction, transformation: str) -> Any:
    if not hasattr(traced.output_structure, "_variant_tensor"):
        raise TypeError(f"The `{transformation}()` function must return a `tf.data.Dataset` object. Got "
                        f"{type(traced.output_structure).__name__}.")
    return traced.output_structure.element_spec


def _most_specific(a: Any, b: Any) -> Any:
    if isinstance(a, structure.DatasetSpec):
        return a
    spec_type = type(a)  # a TensorSpec or a SparseTensorSpec
    if a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
        return spec_type(TensorShape(None), a.dtype)
    return spec_type([x if x == y else None for x, y in zip(a.shape.as_list(), b.shape.as_list())], a.dtype)


Dataset = DatasetV2
building.install_dataset_class(DatasetV2)

__all__ = ["Dataset", "DatasetV2", "AUTOTUNE"]
