"""Iterator ops: a `resource` handle to an iterator, `MakeIterator` to (re)start it on a dataset, and
`IteratorGetNext` to take its next element, which raises OutOfRangeError ("End of sequence") at the end.

The handle's value is an IteratorResource. TF1 graphs make it with `IteratorV2` (kept in the Session's
resource store under its shared name or op name, so it lives across `Session.run` calls, as TensorFlow's
resource manager keeps it) or `OneShotIterator` (no inputs, as TensorFlow's: its `dataset_factory` attr is a
function of no arguments holding a by-value copy of the dataset's ops, run on first use); eager code (TF2's
`iter(dataset)`) with `AnonymousIteratorV3`, whose handle an EagerTensor holds. TensorFlow registers no
gradients for these ops.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webflow.framework import dtypes
from webflow.framework.errors import CancelledError, FailedPreconditionError, OutOfRangeError
from webflow.framework.func_graph import FuncGraph
from webflow.framework.graph import Graph
from webflow.ops.dataset_ops import declared_element
from webflow.ops.dataset_values import IterationContext
from webflow.ops.functional_ops import _session_of, kernel_result, run_func_graph
from webflow.ops.registry import output_spec, register_op
from webflow.ops.shapes import no_outputs


class IteratorResource:
    """An iterator's state: the running pass (a generator of elements) over the dataset it was made on."""

    dtype = dtypes.resource
    shape = ()
    ndim = 0

    def __init__(self, name: str, key: str = ""):
        self.name = name
        self.key = key  # where the session's resource store keeps it ("" for an eager, anonymous iterator)
        self.running: Iterator[list] | None = None
        self.interrupted = False  # a KeyboardInterrupt ended the running pass

    def start(self, dataset: Any) -> None:
        self.close()
        self.interrupted = False
        self.running = dataset.elements(IterationContext())

    def next_element(self, where: str) -> list:
        if self.running is None and self.interrupted:
            raise CancelledError(None, None, "The iterator's pass was interrupted (KeyboardInterrupt) and cannot "
                                 "resume: make a new iterator (`iter(dataset)`) or run its initializer again."
                                 f"{where}")
        if self.running is None:
            raise FailedPreconditionError(None, None, "GetNext() failed because the iterator has not been "
                                          "initialized. Ensure that you have run the initializer operation for "
                                          f"this iterator before getting the next element.{where}")
        try:
            element = next(self.running, None)
        except KeyboardInterrupt:  # Ctrl-C while waiting: the pass (and its prefetch threads) has ended
            self.running, self.interrupted = None, True
            raise
        if element is None:
            raise OutOfRangeError(None, None, f"End of sequence{where}")
        return element

    def close(self) -> None:
        """Stops the running pass (its prefetch threads end: the generators' `finally` blocks run)."""
        running, self.running = self.running, None
        if running is not None:
            running.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # nothing can be reported from __del__
            pass

    def __repr__(self) -> str:
        return f"<IteratorResource {self.name}>"


def _handle(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.resource)


def _where(context: Any, op_type: str) -> str:
    """How TensorFlow ends a kernel's message: the node in a graph, the op type eagerly."""
    if context.op_name is None:
        return f" [Op:{op_type}]"
    return f"\n\t [[{{{{node {context.op_name}}}}}]]"


@register_op("AnonymousIteratorV3", shape=_handle, needs_context=True, stateful=True)
def anonymous_iterator_kernel(context: Any, *, output_types: list, output_shapes: list) -> Any:
    """A new iterator, owned by its handle (TF2's `iter(dataset)`)."""
    return IteratorResource("AnonymousIterator")


@register_op("IteratorV2", shape=_handle, needs_context=True, stateful=True)
def iterator_kernel(context: Any, *, shared_name: str, container: str, output_types: list,
                    output_shapes: list) -> Any:
    """The iterator named `shared_name` (or this op's name) in the session's resources, made on first use."""
    key = f"iterator:{container}/{shared_name or context.op_name}"
    found = context.resources.get(key)
    if found is None:
        found = context.resources[key] = IteratorResource(shared_name or context.op_name or "Iterator", key)
    return found


def dataset_factory(variant: Any) -> FuncGraph:
    """TensorFlow's `dataset_factory` of a one-shot iterator: a function of no inputs returning the dataset, made by
    copying the ops `variant` depends on into it (by value, as TF's Defun(capture_by_value=True) does)."""
    ancestors, stack = {}, [variant.op]
    while stack:
        op = stack.pop()
        if op._id not in ancestors:
            ancestors[op._id] = op
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
    factory = FuncGraph("_make_dataset", variant.graph)
    copies: dict = {}
    for op in sorted(ancestors.values(), key=lambda o: o._id):   # creation order: inputs before their readers
        specs = [(t.shape, t.dtype) for t in op.outputs]
        copy = Graph._create_op(factory, op.type, [copies[t._uid] for t in op.inputs], specs, op.name,
                                dict(op._attrs), op._opdef)
        for old, new in zip(op.outputs, copy.outputs):
            copies[old._uid] = new
    factory.outputs = [copies[variant._uid]]
    return factory


@register_op("OneShotIterator", inputs=(), shape=_handle, needs_context=True, stateful=True)
def one_shot_iterator_kernel(context: Any, *, dataset_factory: Any, output_types: list, output_shapes: list,
                             container: str = "", shared_name: str = "") -> Any:
    """An iterator started on the dataset `dataset_factory()` returns the first time it runs, then kept in the
    session's resources (TensorFlow's node: no inputs, the dataset's graph copied into the function attr)."""
    key = f"iterator:{container}/{shared_name or context.op_name}"
    found = context.resources.get(key)
    if found is None:
        dataset = run_func_graph(dataset_factory, [], context.resources, _session_of(context))[0]
        found = context.resources[key] = IteratorResource(context.op_name or "OneShotIterator", key)
        found.start(dataset)
    return found


@register_op("MakeIterator", inputs=("dataset", "iterator"), shape=no_outputs, stateful=True)
def make_iterator_kernel(dataset: Any, iterator: Any) -> None:
    """(Re)starts `iterator` at the first element of `dataset`."""
    iterator.start(dataset)


@register_op("IteratorGetNext", inputs=("iterator",), shape=declared_element, needs_context=True, stateful=True)
def iterator_get_next_kernel(context: Any, iterator: Any, *, output_types: list, output_shapes: list) -> Any:
    """The iterator's next element; OutOfRangeError "End of sequence" after the last."""
    element = iterator.next_element(_where(context, "IteratorGetNext"))
    return kernel_result(element) if len(element) != 1 else element[0]


# --- feedable iterators: a string names an iterator of the session ---------------------------------------------
@register_op("IteratorToStringHandle", inputs=("resource_handle",),
             shape=lambda inputs, attrs: output_spec([], dtypes.string))
def iterator_to_string_handle_kernel(resource_handle: Any) -> Any:
    """The iterator's name in the session's resource store, as a string scalar (a value to feed)."""
    from webflow.ops.dataset_elements import string_array

    if not resource_handle.key:
        raise FailedPreconditionError(None, None, "string_handle() needs an iterator kept by a Session (graph mode)")
    return string_array([resource_handle.key], ())


@register_op("IteratorFromStringHandleV2", inputs=("string_handle",), shape=_handle, needs_context=True,
             stateful=True)
def iterator_from_string_handle_kernel(context: Any, string_handle: Any, *, output_types: list,
                                       output_shapes: list) -> Any:
    """The session's iterator named by `string_handle` (from IteratorToStringHandle)."""
    from webflow.framework.errors import NotFoundError
    from webflow.ops.dataset_elements import to_text

    key = to_text(string_handle)
    found = context.resources.get(key)
    if not isinstance(found, IteratorResource):
        where = _where(context, "IteratorFromStringHandleV2")
        raise NotFoundError(None, None, f"Resource {key} does not exist.{where}")
    return found


__all__ = ["IteratorResource"]
