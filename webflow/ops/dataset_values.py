"""What a dataset op's kernel returns: a dataset *value*, a recipe that makes iterators of elements.

A dataset op (TensorSliceDataset, MapDataset, BatchDatasetV2 ...) outputs one scalar `variant` tensor whose
value is one of these objects; its inputs are real tensors, so a placeholder fed at initializer time becomes
part of the recipe. `value.elements(context)` starts a fresh pass (a Python generator of elements, each a flat
list of arrays, one per component), as TensorFlow's `MakeIterator` starts one; iterator ops (ops/iterator_ops.py)
keep that generator between `get_next` calls. Each class below mirrors one TensorFlow dataset kernel.

The `context` (an IterationContext, TensorFlow's IteratorContext) is shared by everything one iterator runs: the
traced functions' own state (a random op inside `map`) lives there, so a new iterator starts those streams
afresh while the epochs of a `repeat` continue them, as in TensorFlow.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import Any

from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError, OpError, UnknownError
from webflow.ops import dataset_elements as elements

INFINITE = -1  # tf.data.INFINITE_CARDINALITY
UNKNOWN = -2   # tf.data.UNKNOWN_CARDINALITY


class IterationContext:
    """One iterator's shared state: per traced function, its resource layer (its stateful ops' state, e.g. a
    random op's Philox stream), reading through to the session's resources (TF1 variables) underneath.

    TensorFlow instantiates a dataset's functions once per place the dataset takes in the iterator's tree: the two
    inputs of a zip or concatenate of one dataset draw separate streams, while the epochs of a repeat or the
    datasets a flat_map makes continue one. `path` names that place (child(i): input i of zip / concatenate)."""

    def __init__(self, layers: dict | None = None, path: tuple = ()) -> None:
        self.layers: dict = {} if layers is None else layers
        self.path = path

    def child(self, index: int) -> IterationContext:
        return IterationContext(self.layers, self.path + (index,))

    def resources_for(self, function: Any, outer: dict) -> Any:
        key = (self.path, id(function))
        layer = self.layers.get(key)
        if layer is None:
            layer = self.layers[key] = (collections.ChainMap({}, outer), function)  # keeps `function` alive
        return layer[0]


class DatasetValue:
    """Base class: a scalar variant value (shape (), dtype variant) that makes element iterators."""

    dtype = dtypes.variant
    shape = ()
    ndim = 0

    def elements(self, context: Any = None) -> Iterator[list]:
        """A new pass over the elements; `context` None starts a new iterator's IterationContext."""
        raise NotImplementedError

    def cardinality(self) -> int:
        return UNKNOWN

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


# --- sources -----------------------------------------------------------------------------------------------------
class TensorSliceValue(DatasetValue):
    def __init__(self, components: list):
        sizes = {elements.leading_dim(c) for c in components}
        if len(sizes) > 1:
            raise InvalidArgumentError(None, None, "Dimensions of the components must all agree: "
                                       f"got leading dimensions {sorted(sizes)}")
        self.components, self.size = components, sizes.pop()

    def elements(self, context: Any = None) -> Iterator[list]:
        for i in range(self.size):
            yield [elements.row(c, i) for c in self.components]

    def cardinality(self) -> int:
        return self.size


class TensorValue(DatasetValue):
    def __init__(self, components: list):
        self.components = components

    def elements(self, context: Any = None) -> Iterator[list]:
        yield list(self.components)

    def cardinality(self) -> int:
        return 1


class ListValue(DatasetValue):
    """Elements held in a list (a window's elements, one dataset per component)."""

    def __init__(self, items: list):
        self.items = items

    def elements(self, context: Any = None) -> Iterator[list]:
        yield from self.items

    def cardinality(self) -> int:
        return len(self.items)


class RangeValue(DatasetValue):
    def __init__(self, start: int, stop: int, step: int, dtype: Any):
        if step == 0:
            raise InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self.numbers, self.dtype_out = range(start, stop, step), dtype

    def elements(self, context: Any = None) -> Iterator[list]:
        for n in self.numbers:
            yield [elements.scalar(n, self.dtype_out)]

    def cardinality(self) -> int:
        return len(self.numbers)


class GeneratorValue(DatasetValue):
    """Elements from a Python generator, checked and converted to the declared dtypes and shapes."""

    def __init__(self, make_items: Callable[[], Iterator], convert: Callable[[Any], list]):
        self.make_items, self.convert = make_items, convert

    def elements(self, context: Any = None) -> Iterator[list]:
        position = 0
        try:
            items = iter(self.make_items())
        except Exception as error:
            raise generator_error(error, position) from error
        while True:
            try:
                item = next(items)
            except StopIteration:
                return
            except OpError:
                raise
            except Exception as error:
                raise generator_error(error, position) from error
            yield self.convert(item)
            position += 1


def generator_error(error: BaseException, position: int) -> Exception:
    """A generator's own exception as TensorFlow's PyFunc maps it (ValueError, TypeError: InvalidArgumentError;
    others: UnknownError), naming the element the generator was producing."""
    kind = InvalidArgumentError if isinstance(error, (TypeError, ValueError)) else UnknownError
    return kind(None, None, f"{type(error).__name__}: {error}\n(raised by the `from_generator` generator while "
                            f"producing element {position})")


# --- combining ---------------------------------------------------------------------------------------------------
class ZipValue(DatasetValue):
    def __init__(self, inputs: list):
        self.inputs = inputs

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        for parts in zip(*[d.elements(context.child(i)) for i, d in enumerate(self.inputs)]):
            yield [value for part in parts for value in part]

    def cardinality(self) -> int:
        counts = [d.cardinality() for d in self.inputs]
        finite = [c for c in counts if c >= 0]
        if finite:
            return min(finite)
        return UNKNOWN if UNKNOWN in counts else INFINITE


class ConcatenateValue(DatasetValue):
    def __init__(self, first: DatasetValue, second: DatasetValue):
        self.first, self.second = first, second

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        yield from self.first.elements(context.child(0))
        yield from self.second.elements(context.child(1))

    def cardinality(self) -> int:
        a, b = self.first.cardinality(), self.second.cardinality()
        if INFINITE in (a, b):
            return INFINITE
        return UNKNOWN if UNKNOWN in (a, b) else a + b


# --- counting ------------------------------------------------------------------------------------------------------
class RepeatValue(DatasetValue):
    def __init__(self, source: DatasetValue, count: int):
        self.source, self.count = source, count

    def elements(self, context: Any = None) -> Iterator[list]:
        done = 0
        while self.count < 0 or done < self.count:
            empty = True
            for element in self.source.elements(context):
                empty = False
                yield element
            done += 1
            if empty:  # an empty input repeated forever is still empty (as TensorFlow stops)
                return

    def cardinality(self) -> int:
        inner = self.source.cardinality()
        if self.count == 0 or inner == 0:
            return 0
        if self.count < 0:
            return INFINITE if inner != UNKNOWN else UNKNOWN
        return inner * self.count if inner >= 0 else inner


class TakeValue(DatasetValue):
    def __init__(self, source: DatasetValue, count: int):
        self.source, self.count = source, count

    def elements(self, context: Any = None) -> Iterator[list]:
        if self.count == 0:
            return
        for taken, element in enumerate(self.source.elements(context), 1):
            yield element
            if taken == self.count:
                return

    def cardinality(self) -> int:
        inner = self.source.cardinality()
        if self.count < 0:
            return inner
        if inner == INFINITE:
            return self.count
        return min(inner, self.count) if inner >= 0 else UNKNOWN


class SkipValue(DatasetValue):
    def __init__(self, source: DatasetValue, count: int):
        self.source, self.count = source, count

    def elements(self, context: Any = None) -> Iterator[list]:
        for index, element in enumerate(self.source.elements(context)):
            if self.count >= 0 and index >= self.count:
                yield element

    def cardinality(self) -> int:
        inner = self.source.cardinality()
        if inner < 0:
            return inner
        return 0 if self.count < 0 else max(0, inner - self.count)


class ShardValue(DatasetValue):
    """Every `num_shards`-th element, from position `index` on."""

    def __init__(self, source: DatasetValue, num_shards: int, index: int):
        if num_shards < 1:
            raise InvalidArgumentError(None, None, f"Number of shards must be greater than zero (currently "
                                       f"num_shards = {num_shards}).")
        if not 0 <= index < num_shards:
            raise InvalidArgumentError(None, None, f"Index must be between 0 and {num_shards - 1} (currently "
                                       f"index = {index}).")
        self.source, self.num_shards, self.index = source, num_shards, index

    def elements(self, context: Any = None) -> Iterator[list]:
        for position, element in enumerate(self.source.elements(context)):
            if position % self.num_shards == self.index:
                yield element

    def cardinality(self) -> int:
        inner = self.source.cardinality()
        if inner < 0:
            return inner
        return inner // self.num_shards + (1 if inner % self.num_shards > self.index else 0)


# --- functions ---------------------------------------------------------------------------------------------------
class MapValue(DatasetValue):
    """Each element through `function` (a traced FuncGraph run by the kernel's runner)."""

    def __init__(self, source: DatasetValue, function: Callable[[list], list]):
        self.source, self.function = source, function

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        for element in self.source.elements(context):
            yield self.function(element, context)

    def cardinality(self) -> int:
        return self.source.cardinality()


class FilterValue(DatasetValue):
    def __init__(self, source: DatasetValue, predicate: Callable[[list], list]):
        self.source, self.predicate = source, predicate

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        for element in self.source.elements(context):
            if bool(elements.to_int(self.predicate(element, context)[0])):
                yield element


class FlatMapValue(DatasetValue):
    """Each element mapped to a dataset (the function returns a dataset value); their elements in order."""

    def __init__(self, source: DatasetValue, function: Callable[[list], list]):
        self.source, self.function = source, function

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        for element in self.source.elements(context):
            yield from self.function(element, context)[0].elements(context)


class InterleaveValue(DatasetValue):
    """TensorFlow's InterleaveDataset: `cycle_length` open inner datasets, `block_length` elements from each in
    turn; an exhausted one is replaced by the next input element's dataset, in its slot of the cycle."""

    def __init__(self, source: DatasetValue, function: Callable[[list], list], cycle_length: int,
                 block_length: int):
        self.source, self.function = source, function
        self.cycle_length, self.block_length = max(1, cycle_length), max(1, block_length)

    def elements(self, context: Any = None) -> Iterator[list]:
        context = context or IterationContext()
        outer = self.source.elements(context)
        slots: list = [None] * self.cycle_length
        end_of_input, open_count, index, block = False, 0, 0, 0
        while not end_of_input or open_count > 0:
            if slots[index] is not None:
                element = next(slots[index], None)
                if element is not None:
                    block += 1
                    if block == self.block_length:
                        block, index = 0, (index + 1) % self.cycle_length
                    yield element
                    continue
                slots[index], open_count = None, open_count - 1
                block, index = 0, (index + 1) % self.cycle_length
            elif not end_of_input:
                element = next(outer, None)
                if element is None:
                    end_of_input = True
                else:
                    slots[index], open_count = self.function(element, context)[0].elements(context), open_count + 1
            else:
                block, index = 0, (index + 1) % self.cycle_length


__all__ = ["DatasetValue", "IterationContext", "INFINITE", "UNKNOWN", "TensorSliceValue", "TensorValue", "ListValue",
           "RangeValue", "GeneratorValue", "ZipValue", "ConcatenateValue", "RepeatValue", "TakeValue", "SkipValue",
           "ShardValue", "MapValue", "FilterValue", "FlatMapValue", "InterleaveValue", "generator_error"]
