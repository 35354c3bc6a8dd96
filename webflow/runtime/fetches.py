"""Flattening a `Session.run` fetch argument (any nest of lists, tuples, dicts, namedtuples) and rebuilding it."""

from __future__ import annotations

from typing import Any

from webflow.framework.graph import Graph, Operation
from webflow.framework.tensor import Tensor


class FetchStructure:
    """Leaves resolved to graph elements: `tensors[i]` is the tensor to read (None for an Operation)."""

    def __init__(self, graph: Graph, fetches: Any):
        self._graph = graph
        self.tensors: list[Tensor | None] = []
        self.targets: list[Operation] = []
        self._template = self._flatten(fetches)
        self._signature: tuple | None = None

    def signature(self) -> tuple:
        """(fetched tensor uids, target op ids): with the fed tensors, what a run's plan depends on."""
        if self._signature is None:
            self._signature = (tuple(t._uid for t in self.tensors if t is not None),
                               tuple(op._id for op in self.targets))
        return self._signature

    def _flatten(self, fetch: Any) -> Any:
        if fetch is None:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        if isinstance(fetch, (list, tuple)) and not hasattr(fetch, "_as_graph_element"):
            items = [self._flatten(item) for item in fetch]
            if hasattr(fetch, "_fields"):  # namedtuple
                return ("namedtuple", type(fetch), items)
            return (type(fetch).__name__ if type(fetch) in (list, tuple) else "sequence", type(fetch), items)
        if isinstance(fetch, dict):
            return ("dict", type(fetch), {key: self._flatten(value) for key, value in fetch.items()})
        if hasattr(fetch, "_fetch_components"):  # IndexedSlices, SparseTensor: fetched as their value type
            parts, rebuild = fetch._fetch_components()
            return ("composite", rebuild, [self._flatten(p) for p in parts])
        return ("leaf", self._leaf(fetch))

    def _leaf(self, fetch: Any) -> int:
        try:
            element = self._graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as error:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string or "
                            f"Tensor. ({error})") from None
        except ValueError as error:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({error})") from None
        except KeyError as error:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. ({error.args[0]})") from None
        if isinstance(element, Operation):
            self.targets.append(element)
            self.tensors.append(None)
        else:
            self.tensors.append(element)
        return len(self.tensors) - 1

    def build(self, values: list) -> Any:
        return self._build(self._template, values)

    def _build(self, template: Any, values: list) -> Any:
        kind = template[0]
        if kind == "leaf":
            return values[template[1]]
        if kind == "dict":
            return template[1]((key, self._build(value, values)) for key, value in template[2].items())
        items = [self._build(item, values) for item in template[2]]
        if kind == "composite":
            return template[1](*items)
        if kind == "namedtuple":
            return template[1](*items)
        if kind == "list":
            return items
        if kind == "tuple":
            return tuple(items)
        return template[1](items)
