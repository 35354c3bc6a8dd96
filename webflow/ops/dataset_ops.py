"""Dataset ops: each outputs a scalar `variant` tensor whose value is a dataset (ops/dataset_values.py).

As in TensorFlow, every `tf.data` source and transformation is one op of the graph (TensorSliceDataset,
MapDataset, BatchDatasetV2 ...), whose inputs are real tensors (a placeholder fed when an initializable
iterator is initialized included) and whose `output_types` / `output_shapes` attrs describe one element.
The kernels only build the recipe; elements are computed when an iterator (ops/iterator_ops.py) asks.
Functions (`map`, `filter`, `flat_map`, `interleave`, `reduce`) arrive traced, as a FuncGraph attr `f`,
their captured outer tensors as extra inputs; the kernel runs the FuncGraph per element with the runner of
ops/functional_ops.py. webflow/data/ builds the Python `Dataset` objects on these ops.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import dtypes
from webflow.ops import dataset_batching as batching
from webflow.ops import dataset_buffers as buffers
from webflow.ops import dataset_readers as readers
from webflow.ops import dataset_values as values
from webflow.ops.dataset_elements import to_int, to_text
from webflow.ops.dataset_shuffle import SeedGenerator, ShuffleValue
from webflow.ops.functional_ops import kernel_result, run_func_graph
from webflow.ops.registry import output_spec, register_op


def variant_output(inputs: list, attrs: dict) -> tuple:
    """Every dataset op outputs one scalar variant: the dataset."""
    return output_spec([], dtypes.variant)


def values_list(value: Any) -> list:
    """An array input's entries as a Python list."""
    return backend_values.flat_list(value)


def declared_element(inputs: list, attrs: dict) -> list:
    """The outputs of an op that yields an element: its `output_types` / `output_shapes` attrs."""
    return [output_spec(shape, dtype) for shape, dtype in zip(attrs["output_shapes"], attrs["output_types"])]


def element_function(context: Any, graph: Any, captured: tuple) -> Callable[[list, Any], list]:
    """`f(element, iteration)`: runs the traced FuncGraph on an element's components, then the captured values,
    with the function's own resource layer in the iterator's IterationContext (its random ops' streams)."""
    resources, session, captured = context.resources, getattr(context, "session", None), list(captured)

    def call(element: list, iteration: Any) -> list:
        layer = iteration.resources_for(call, resources)
        return run_func_graph(graph, list(element) + captured, layer, session)

    return call


# --- sources -----------------------------------------------------------------------------------------------------
@register_op("TensorSliceDataset", inputs=("*components",), shape=variant_output)
def tensor_slice_dataset_kernel(*components: Any, Toutput_types: list, output_shapes: list) -> Any:  # noqa: N803
    """Elements: (c[0][i], c[1][i], ...) for i < the components' common leading dimension."""
    return values.TensorSliceValue(list(components))


@register_op("TensorDataset", inputs=("*components",), shape=variant_output)
def tensor_dataset_kernel(*components: Any, Toutput_types: list, output_shapes: list) -> Any:  # noqa: N803
    """One element: the components themselves."""
    return values.TensorValue(list(components))


@register_op("RangeDataset", inputs=("start", "stop", "step"), shape=variant_output)
def range_dataset_kernel(start: Any, stop: Any, step: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: start, start + step, ... while before stop (Python's range)."""
    return values.RangeValue(to_int(start), to_int(stop), to_int(step), output_types[0])


@register_op("GeneratorDataset", inputs=("*args",), shape=variant_output)
def generator_dataset_kernel(*args: Any, generator: Any, convert: Any, output_types: list,
                             output_shapes: list) -> Any:
    """Elements: what `generator(*args)` yields, converted to output_types and checked against output_shapes.

    TensorFlow runs the Python generator through PyFunc ops in init/next/finalize functions; here the
    callable is the op's attr (a graph with one cannot be serialized, in TensorFlow either)."""
    return values.GeneratorValue(lambda: iter(generator(*args)), convert)


@register_op("TFRecordDataset", inputs=("filenames", "compression_type", "buffer_size"), shape=variant_output)
def tf_record_dataset_kernel(filenames: Any, compression_type: Any, buffer_size: Any) -> Any:
    """Elements: the records of each file in turn (scalar strings)."""
    return readers.TFRecordValue(readers.file_list(filenames), to_text(compression_type))


@register_op("TextLineDataset", inputs=("filenames", "compression_type", "buffer_size"), shape=variant_output)
def text_line_dataset_kernel(filenames: Any, compression_type: Any, buffer_size: Any) -> Any:
    """Elements: the lines of each file in turn, without their end-of-line."""
    return readers.TextLineValue(readers.file_list(filenames), to_text(compression_type))


@register_op("FixedLengthRecordDatasetV2", inputs=("filenames", "header_bytes", "record_bytes", "footer_bytes",
                                                   "buffer_size", "compression_type"), shape=variant_output)
def fixed_length_record_dataset_kernel(filenames: Any, header_bytes: Any, record_bytes: Any, footer_bytes: Any,
                                       buffer_size: Any, compression_type: Any) -> Any:
    """Elements: each file's record_bytes-long records between its header and footer."""
    return readers.FixedLengthRecordValue(readers.file_list(filenames), to_int(header_bytes), to_int(record_bytes),
                                          to_int(footer_bytes), to_text(compression_type))


@register_op("CSVDatasetV2", inputs=("filenames", "compression_type", "buffer_size", "header", "field_delim",
                                     "use_quote_delim", "na_value", "select_cols", "*record_defaults", "exclude_cols"),
             shape=variant_output)
def csv_dataset_kernel(filenames: Any, compression_type: Any, buffer_size: Any, header: Any, field_delim: Any,
                       use_quote_delim: Any, na_value: Any, select_cols: Any, *rest: Any, output_types: list,
                       output_shapes: list) -> Any:
    """Elements: one tuple of scalars per CSV line, typed as record_defaults (a default, or an empty tensor for a
    required column)."""
    defaults = [(dtype, value if values_list(value) else None) for dtype, value in zip(output_types, rest[:-1])]
    defaults = [(dtype, None if value is None else _scalar_of(value)) for dtype, value in defaults]
    return readers.CsvValue(readers.file_list(filenames), to_text(compression_type), bool(to_int(header)),
                            to_text(field_delim), bool(to_int(use_quote_delim)), to_text(na_value),
                            [int(c) for c in values_list(select_cols)], defaults)


def _scalar_of(value: Any) -> Any:
    """A record default (a scalar or a 1-element vector) as a scalar array."""
    from webflow.ops.dataset_elements import row

    shape = getattr(value, "shape", ())
    return row(value, 0) if len(shape) == 1 else value


# --- combining and counting -------------------------------------------------------------------------------------
@register_op("ZipDataset", inputs=("*input_datasets",), shape=variant_output)
def zip_dataset_kernel(*input_datasets: Any, output_types: list, output_shapes: list, N: int) -> Any:  # noqa: N803
    """Elements: the inputs' elements side by side, until the shortest ends."""
    return values.ZipValue(list(input_datasets))


@register_op("ConcatenateDataset", inputs=("input_dataset", "another_dataset"), shape=variant_output)
def concatenate_dataset_kernel(input_dataset: Any, another_dataset: Any, *, output_types: list,
                               output_shapes: list) -> Any:
    """Elements: the first dataset's, then the second's."""
    return values.ConcatenateValue(input_dataset, another_dataset)


@register_op("RepeatDataset", inputs=("input_dataset", "count"), shape=variant_output)
def repeat_dataset_kernel(input_dataset: Any, count: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the input's, `count` times over (-1: forever)."""
    return values.RepeatValue(input_dataset, to_int(count))


@register_op("TakeDataset", inputs=("input_dataset", "count"), shape=variant_output)
def take_dataset_kernel(input_dataset: Any, count: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the first `count` of the input's (-1: all)."""
    return values.TakeValue(input_dataset, to_int(count))


@register_op("SkipDataset", inputs=("input_dataset", "count"), shape=variant_output)
def skip_dataset_kernel(input_dataset: Any, count: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the input's after the first `count` (-1: none)."""
    return values.SkipValue(input_dataset, to_int(count))


@register_op("ShardDataset", inputs=("input_dataset", "num_shards", "index"), shape=variant_output)
def shard_dataset_kernel(input_dataset: Any, num_shards: Any, index: Any, *, output_types: list,
                         output_shapes: list, require_non_empty: bool = False) -> Any:
    """Elements: the input's at positions index, index + num_shards, index + 2 num_shards ..."""
    return values.ShardValue(input_dataset, to_int(num_shards), to_int(index))


@register_op("ShuffleDataset", inputs=("input_dataset", "buffer_size", "seed", "seed2"), shape=variant_output)
def shuffle_dataset_kernel(input_dataset: Any, buffer_size: Any, seed: Any, seed2: Any, *,
                           reshuffle_each_iteration: bool, output_types: list, output_shapes: list) -> Any:
    """Elements: the input's, each drawn uniformly from a buffer of the next `buffer_size` (dataset_shuffle.py)."""
    # a new seed generator per run: re-running an initializer restarts the same order, as in TensorFlow
    seeds = SeedGenerator(to_int(seed), to_int(seed2), reshuffle_each_iteration)
    return ShuffleValue(input_dataset, to_int(buffer_size), seeds)


# --- grouping --------------------------------------------------------------------------------------------------
@register_op("BatchDatasetV2", inputs=("input_dataset", "batch_size", "drop_remainder"), shape=variant_output)
def batch_dataset_kernel(input_dataset: Any, batch_size: Any, drop_remainder: Any, *, output_types: list,
                         output_shapes: list, parallel_copy: bool = False) -> Any:
    """Elements: `batch_size` consecutive input elements stacked on a new axis 0 (the last batch may be short)."""
    return batching.BatchValue(input_dataset, to_int(batch_size), bool(to_int(drop_remainder)))


@register_op("PaddedBatchDatasetV2", inputs=("input_dataset", "batch_size", "*padded_shapes_and_values"),
             shape=variant_output)
def padded_batch_dataset_kernel(input_dataset: Any, batch_size: Any, *rest: Any, N: int,  # noqa: N803
                                output_types: list, output_shapes: list) -> Any:
    """Elements: batches whose components are padded to padded_shapes (-1: the batch's largest size).

    Inputs after batch_size: N padded shapes (int64 vectors), N padding values, drop_remainder."""
    shapes = [[int(d) for d in values_list(s)] for s in rest[:N]]
    return batching.PaddedBatchValue(input_dataset, to_int(batch_size), shapes, list(rest[N:2 * N]),
                                     bool(to_int(rest[2 * N])))


@register_op("UnbatchDataset", inputs=("input_dataset",), shape=variant_output)
def unbatch_dataset_kernel(input_dataset: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the rows (along axis 0) of each input element."""
    return batching.UnbatchValue(input_dataset)


@register_op("WindowDataset", inputs=("input_dataset", "size", "shift", "stride", "drop_remainder"),
             shape=variant_output)
def window_dataset_kernel(input_dataset: Any, size: Any, shift: Any, stride: Any, drop_remainder: Any, *,
                          output_types: list, output_shapes: list) -> Any:
    """Elements: windows, one dataset per component, of `size` elements each `stride` apart; `shift` apart."""
    return batching.WindowValue(input_dataset, to_int(size), to_int(shift), to_int(stride),
                                bool(to_int(drop_remainder)))


# --- buffering ---------------------------------------------------------------------------------------------------
@register_op("PrefetchDataset", inputs=("input_dataset", "buffer_size"), shape=variant_output)
def prefetch_dataset_kernel(input_dataset: Any, buffer_size: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the input's, computed ahead by a background thread (-1, AUTOTUNE: a buffer of 2)."""
    return buffers.PrefetchValue(input_dataset, to_int(buffer_size))


@register_op("CacheDataset", inputs=("input_dataset", "filename"), shape=variant_output)
def cache_dataset_kernel(input_dataset: Any, filename: Any, *, output_types: list, output_shapes: list) -> Any:
    """Elements: the input's; after one complete pass, read back from memory ("") or from the file.

    The memory cache belongs to this dataset value: an eager dataset keeps it across passes, while a TF1 graph
    makes a new dataset (and cache) each time an initializer runs the op, as TensorFlow does."""
    return buffers.CacheValue(input_dataset, to_text(filename), [None])


# --- functions ---------------------------------------------------------------------------------------------------
@register_op("MapDataset", inputs=("input_dataset", "*other_arguments"), shape=variant_output, needs_context=True)
def map_dataset_kernel(context: Any, input_dataset: Any, *other_arguments: Any, f: Any, Targuments: list,  # noqa: N803
                       output_types: list, output_shapes: list, use_inter_op_parallelism: bool = True,
                       preserve_cardinality: bool = True) -> Any:
    """Elements: f(element) for each input element."""
    return values.MapValue(input_dataset, element_function(context, f, other_arguments))


@register_op("ParallelMapDatasetV2", inputs=("input_dataset", "*other_arguments", "num_parallel_calls"),
             shape=variant_output, needs_context=True)
def parallel_map_dataset_kernel(context: Any, input_dataset: Any, *rest: Any, f: Any, Targuments: list,  # noqa: N803
                                output_types: list, output_shapes: list, deterministic: str = "default",
                                use_inter_op_parallelism: bool = True, preserve_cardinality: bool = True) -> Any:
    """Elements: f(element), in order. (The calls run one at a time: threads measured no faster, see
    data/README.md, "Why map(num_parallel_calls) runs its calls in turn".)"""
    return values.MapValue(input_dataset, element_function(context, f, rest[:-1]))


@register_op("FilterDataset", inputs=("input_dataset", "*other_arguments"), shape=variant_output,
             needs_context=True)
def filter_dataset_kernel(context: Any, input_dataset: Any, *other_arguments: Any, predicate: Any,
                          Targuments: list, output_types: list, output_shapes: list) -> Any:  # noqa: N803
    """Elements: the input elements for which predicate(element) is true."""
    return values.FilterValue(input_dataset, element_function(context, predicate, other_arguments))


@register_op("FlatMapDataset", inputs=("input_dataset", "*other_arguments"), shape=variant_output,
             needs_context=True)
def flat_map_dataset_kernel(context: Any, input_dataset: Any, *other_arguments: Any, f: Any, Targuments: list,  # noqa: N803
                            output_types: list, output_shapes: list) -> Any:
    """Elements: those of the dataset f(element), for each input element in turn."""
    return values.FlatMapValue(input_dataset, element_function(context, f, other_arguments))


@register_op("InterleaveDataset", inputs=("input_dataset", "*other_arguments", "cycle_length", "block_length"),
             shape=variant_output, needs_context=True)
def interleave_dataset_kernel(context: Any, input_dataset: Any, *rest: Any, f: Any, Targuments: list,  # noqa: N803
                              output_types: list, output_shapes: list) -> Any:
    """Elements: block_length at a time from each of cycle_length datasets f(element), in turn."""
    function = element_function(context, f, rest[:-2])
    return values.InterleaveValue(input_dataset, function, to_int(rest[-2]), to_int(rest[-1]))


# --- whole-dataset results ------------------------------------------------------------------------------------------
@register_op("DatasetCardinality", inputs=("input_dataset",), shape=lambda inputs, attrs: output_spec([], dtypes.int64))
def dataset_cardinality_kernel(input_dataset: Any) -> Any:
    """The number of elements; -1 infinite, -2 unknown (a filter, a generator ...)."""
    from webflow.ops.dataset_elements import scalar

    return scalar(input_dataset.cardinality(), dtypes.int64)


@register_op("DatasetToSingleElement", inputs=("dataset",), shape=declared_element)
def dataset_to_single_element_kernel(dataset: Any, *, output_types: list, output_shapes: list) -> Any:
    """The dataset's one element (InvalidArgumentError if it has none or more than one)."""
    from webflow.framework.errors import InvalidArgumentError

    found = dataset.elements(values.IterationContext())
    element = next(found, None)
    if element is None:
        raise InvalidArgumentError(None, None, "Dataset was empty.")
    if next(found, None) is not None:
        raise InvalidArgumentError(None, None, "Dataset had more than one element.")
    return kernel_result(element) if len(element) != 1 else element[0]


@register_op("ReduceDataset", inputs=("input_dataset", "*initial_state_and_other_arguments"),
             shape=declared_element, needs_context=True)
def reduce_dataset_kernel(context: Any, input_dataset: Any, *rest: Any, f: Any, Tstate: list,  # noqa: N803
                          Targuments: list, output_types: list, output_shapes: list,  # noqa: N803
                          use_inter_op_parallelism: bool = True) -> Any:
    """state = initial_state; for each element: state = f(state, element); outputs the final state."""
    state, captured = list(rest[:len(Tstate)]), tuple(rest[len(Tstate):])
    function = element_function(context, f, captured)
    iteration = values.IterationContext()
    for element in input_dataset.elements(iteration):
        state = function(state + element, iteration)
    return kernel_result(state) if len(state) != 1 else state[0]

