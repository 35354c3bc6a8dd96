"""Iterators over datasets: TF2's eager `iter(dataset)` and TF1's graph iterators (one-shot, initializable,
reinitializable `Iterator.from_structure`), all on the iterator ops of ops/iterator_ops.py."""

from __future__ import annotations

from typing import Any

from webflow.data import building, sparse_elements, structure
from webflow.framework import context
from webflow.framework.errors import OutOfRangeError
from webflow.framework.tensor import Tensor
from webflow.ops import iterator_ops
from webflow.ops.functional_ops import output_list
from webflow.ops.registry import apply_op


def _element_attrs(spec: Any) -> dict:
    return {"output_types": structure.component_types(spec), "output_shapes": structure.component_shapes(spec)}


def pack_element(spec: Any, components: list) -> Any:
    """The flat components as the element's nest; a dataset component becomes a Dataset again, a sparse one a
    SparseTensor."""
    return structure.pack(spec, [_leaf(c, s) for c, s in zip(components, structure.flatten(spec))])


def _leaf(component: Any, spec: Any) -> Any:
    if isinstance(spec, structure.DatasetSpec):
        return building.as_dataset(component, spec.element_spec)
    if isinstance(spec, structure.SparseTensorSpec):
        return sparse_elements.from_component(component, spec)
    return component


def get_next(handle: Any, spec: Any, name: str | None = None) -> Any:
    """IteratorGetNext on `handle`, the outputs packed as the element (shapes as element_spec says)."""
    components = output_list(apply_op("IteratorGetNext", [handle], _element_attrs(spec), name=name))
    for tensor, shape in zip(components, structure.component_shapes(spec)):
        if isinstance(tensor, Tensor) and shape.rank is not None:
            tensor.set_shape(shape)
    return pack_element(spec, components)


def single_element(dataset: Any, name: str | None = None) -> Any:
    """`get_single_element`: the dataset's only element (DatasetToSingleElement)."""
    spec = dataset.element_spec
    outputs = apply_op("DatasetToSingleElement", [dataset._variant_tensor], _element_attrs(spec), name=name)
    return pack_element(spec, output_list(outputs))


class OwnedIterator:
    """TF2's iterator (`iter(dataset)`): an AnonymousIteratorV3 made and started at once; `next()` raises
    StopIteration at the end, `get_next()` OutOfRangeError."""

    def __init__(self, dataset: Any):
        if not context.executing_eagerly():
            raise RuntimeError("`tf.data.Dataset` only supports Python-style iteration in eager mode or within "
                               "tf.function.")
        self._element_spec = dataset.element_spec
        self._iterator_resource = apply_op("AnonymousIteratorV3", [], _element_attrs(self._element_spec))
        apply_op("MakeIterator", [dataset._variant_tensor, self._iterator_resource])

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def __iter__(self) -> OwnedIterator:
        return self

    def __next__(self) -> Any:
        try:
            return self.get_next()
        except OutOfRangeError:
            raise StopIteration from None

    def get_next(self, name: str | None = None) -> Any:
        return get_next(self._iterator_resource, self._element_spec, name)

    def close(self) -> None:
        """webflow's, not TensorFlow's: stops the iterator's prefetch threads now (Keras `fit` calls it when a
        Ctrl-C ends training, since the notebook's traceback keeps the iterator alive); `next()` then fails."""
        handle = getattr(self, "_iterator_resource", None)
        if handle is not None:
            handle._value.close()

    def __del__(self) -> None:
        self.close()  # stops its prefetch threads now rather than at garbage collection


class FunctionIterator:
    """`iter(dataset)` while a `wf.function` is traced: an iterator made and started in the function's graph
    each call; `get_next()` / `next()` add one IteratorGetNext. webflow has no autograph, so a Python `for` loop
    over a dataset cannot become a graph loop: `next()` refuses after `LOOP_GUARD` calls in one trace."""

    LOOP_GUARD = 64

    def __init__(self, dataset: Any):
        from webflow.framework.scopes import control_dependencies

        self._element_spec = dataset.element_spec
        self._iterator_resource = apply_op("AnonymousIteratorV3", [], _element_attrs(self._element_spec))
        self._started = apply_op("MakeIterator", [dataset._variant_tensor, self._iterator_resource])
        self._control_dependencies = control_dependencies
        self._calls = 0

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    def __iter__(self) -> FunctionIterator:
        return self

    def __next__(self) -> Any:
        self._calls += 1
        if self._calls > self.LOOP_GUARD:
            raise NotImplementedError(FOR_LOOP_MESSAGE)
        return self.get_next()

    def get_next(self, name: str | None = None) -> Any:
        with self._control_dependencies([self._started]):
            return get_next(self._iterator_resource, self._element_spec, name)


FOR_LOOP_MESSAGE = ("A Python `for` loop over a `tf.data.Dataset` inside a `wf.function` cannot become a graph "
                    "loop: webflow has no autograph, so the loop would be unrolled without end. Inside the function "
                    "use `dataset.reduce(initial_state, reduce_func)`, `iter(dataset).get_next()` (one element per "
                    "call) or `tf.data.experimental.get_single_element(dataset)`; or iterate the dataset eagerly, "
                    "outside the function, and call the function on each element.")


class Iterator:
    """TF1's `tf.data.Iterator` (`tf.compat.v1.data.Iterator`): an IteratorV2 handle in a graph; `initializer`
    or `make_initializer(dataset)` (re)starts it, `get_next()` is IteratorGetNext's outputs as the element."""

    def __init__(self, iterator_resource: Any, initializer: Any, element_spec: Any):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._element_spec = element_spec
        # made at once, as TensorFlow's TF1 Iterator does (its graph has this node whether or not it is used)
        self._string_handle = None if context.executing_eagerly() else \
            apply_op("IteratorToStringHandle", [iterator_resource])

    @staticmethod
    def from_structure(output_types: Any, output_shapes: Any = None, shared_name: str | None = None,
                       output_classes: Any = None) -> Iterator:
        """A reinitializable iterator for elements of these types (and shapes): start it on any dataset of
        that structure with `make_initializer(dataset)`."""
        spec = structure.spec_from_legacy(output_types, output_shapes, output_classes)
        handle = apply_op("IteratorV2", [], dict(_element_attrs(spec), shared_name=shared_name or "",
                                                  container=""))
        return Iterator(handle, None, spec)

    @staticmethod
    def from_dataset(dataset: Any, shared_name: str | None = None) -> Iterator:
        """make_initializable_iterator: an IteratorV2 plus its MakeIterator op on `dataset` (`initializer`)."""
        _check_graph_mode("make_initializable_iterator")
        spec = dataset.element_spec
        handle = apply_op("IteratorV2", [], dict(_element_attrs(spec), shared_name=shared_name or "",
                                                  container=""))
        initializer = apply_op("MakeIterator", [dataset._variant_tensor, handle])
        return Iterator(handle, initializer, spec)

    @staticmethod
    def one_shot(dataset: Any) -> Iterator:
        """make_one_shot_iterator: started on the dataset the first time it runs; needs no initializer."""
        _check_graph_mode("make_one_shot_iterator")
        _refuse_placeholders(dataset._variant_tensor)
        factory = iterator_ops.dataset_factory(dataset._variant_tensor)
        handle = apply_op("OneShotIterator", [], dict(_element_attrs(dataset.element_spec), dataset_factory=factory,
                                                      container="", shared_name=""))
        return Iterator(handle, None, dataset.element_spec)

    @staticmethod
    def from_string_handle(string_handle: Any, output_types: Any, output_shapes: Any = None,
                           output_classes: Any = None) -> Iterator:
        """A feedable iterator: each run uses the iterator whose `string_handle()` is fed to `string_handle`."""
        spec = structure.spec_from_legacy(output_types, output_shapes, output_classes)
        handle = apply_op("IteratorFromStringHandleV2", [string_handle], _element_attrs(spec))
        return Iterator(handle, None, spec)

    def string_handle(self, name: str | None = None) -> Any:
        """A string tensor naming this iterator, to feed into a `from_string_handle` iterator."""
        if name is None and self._string_handle is not None:
            return self._string_handle
        return apply_op("IteratorToStringHandle", [self._iterator_resource], name=name)

    @property
    def initializer(self) -> Any:
        if self._initializer is None:
            raise ValueError("The iterator does not have an initializer. This means it was likely created using "
                             "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
                             "`tf.data.Dataset.make_initializable_iterator()` instead.")
        return self._initializer

    def make_initializer(self, dataset: Any, name: str | None = None) -> Any:
        """A MakeIterator op starting this iterator on `dataset`, whose types (and shapes) must fit."""
        mine, theirs = self._element_spec, dataset.element_spec
        if not structure.same_structure(mine, theirs):
            raise TypeError(f"Expected output structure {structure.legacy_types(mine)!r} but got dataset with "
                            f"structure {structure.legacy_types(theirs)!r}.")
        if structure.component_types(mine) != structure.component_types(theirs):
            raise TypeError(f"Expected output types {structure.describe_types(mine)} but got dataset with output "
                            f"types {structure.describe_types(theirs)}.")
        for a, b in zip(structure.component_shapes(mine), structure.component_shapes(theirs)):
            if not a.is_compatible_with(b):
                raise TypeError(f"Expected output shapes compatible with {structure.legacy_shapes(mine)!r} but got "
                                f"dataset with output shapes {structure.legacy_shapes(theirs)!r}.")
        return apply_op("MakeIterator", [dataset._variant_tensor, self._iterator_resource], name=name)

    def get_next(self, name: str | None = None) -> Any:
        return get_next(self._iterator_resource, self._element_spec, name)

    @property
    def element_spec(self) -> Any:
        return self._element_spec

    @property
    def output_types(self) -> Any:
        return structure.legacy_types(self._element_spec)

    @property
    def output_shapes(self) -> Any:
        return structure.legacy_shapes(self._element_spec)

    @property
    def output_classes(self) -> Any:
        return structure.legacy_classes(self._element_spec)


def _check_graph_mode(what: str) -> None:
    if context.executing_eagerly():
        raise RuntimeError(f"`{what}()` is not supported in eager mode. Use `for element in dataset:` or "
                           "`iter(dataset)` instead.")


def _refuse_placeholders(variant: Any) -> None:
    """As TensorFlow's one-shot iterator, which copies the dataset's graph into a function by value: a
    dataset that depends on a placeholder cannot be captured (use an initializable iterator)."""
    seen, stack = set(), [variant.op]
    while stack:
        op = stack.pop()
        if op._id in seen:
            continue
        seen.add(op._id)
        if op.type in ("Placeholder", "PlaceholderWithDefault"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
        stack.extend(t.op for t in op.inputs)


__all__ = ["OwnedIterator", "FunctionIterator", "FOR_LOOP_MESSAGE", "Iterator", "get_next", "single_element",
           "pack_element"]
