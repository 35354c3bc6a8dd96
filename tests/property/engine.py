"""Running a generated case on webflow in this process: eagerly, and in a graph fed through placeholders.

A Session feed hands a non-contiguous NumPy array (a transposed view) to the kernels as it is, so the graph run is
the one that checks the kernels' stride handling; the eager run starts from contiguous constants.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import catalog
import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as v1
from webflow.backends import selection
from webflow.backends.c import library as c_library

# the backends the in-process tests run on: NumPy always, the native C kernels where they are built
BACKENDS = ["numpy", pytest.param("native", marks=pytest.mark.skipif(
    not c_library.available(), reason=f"C kernels unavailable: {c_library.unavailable_reason()}"))]


@contextlib.contextmanager
def on_backend(name: str) -> Iterator[None]:
    """Every op in the block runs on backend `name` ("numpy", "native"); the one before is restored after."""
    before = selection.get_backend()
    selection.set_backend(name)
    try:
        yield
    finally:
        selection.set_backend(before)


def _listed(result: object) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def run_eager(case) -> list:
    tensors = [wf.constant(x) for x in case.inputs]
    return [np.asarray(t.numpy()) for t in _listed(catalog.build(wf, case.op, tensors, case.attrs))]


def run_graph(case) -> list:
    graph = v1.Graph()
    with graph.as_default():
        holders = [v1.placeholder(v1.as_dtype(x.dtype.name), x.shape) for x in case.inputs]
        outputs = _listed(catalog.build(wf, case.op, holders, case.attrs))
        for expected_shape in _static_shapes(outputs):
            assert expected_shape is not None, f"{case.op}: unknown static shape from fully known inputs"
        with v1.Session(graph=graph) as session:
            values = session.run(outputs, dict(zip(holders, case.inputs)))
    for output, value in zip(outputs, values):
        assert output.shape.as_list() == list(np.shape(value)), \
            f"{case.op}: static shape {output.shape} but the run gave {np.shape(value)}"
    return [np.asarray(v) for v in values]


def _static_shapes(outputs: list) -> list:
    return [o.shape.as_list() if o.shape.is_fully_defined() else None for o in outputs]
