"""Property-based op tests on webflow's NumPy kernels and its native C kernels, against the NumPy oracles.

For every op family of catalog.py, hypothesis draws cases (strategies.py: random shapes with scalars, 1- and
0-sized dimensions, transposed views, dtypes, NaN / ±Inf / denormals / extreme logits); each runs eagerly and in
a graph fed with the (possibly non-contiguous) arrays, on the backend forced by WEBFLOW_BACKEND's setter, and must
give oracles.py's answer. Derandomized: the same examples on every run; `make fuzz` runs 25x as many.
"""

from __future__ import annotations

import engine
import property_checks as checks
import pytest
import strategies
from hypothesis import given
from property_settings import examples

# examples per family and backend in the normal suite (each is a graph build + run, ~5-20 ms)
COUNTS = {"unary": 120, "binary": 120, "reduction": 100, "matmul": 60, "conv": 40, "pool": 50, "gather": 60,
          "cast": 80, "softmax": 80}


@pytest.fixture(params=engine.BACKENDS)
def backend(request):
    with engine.on_backend(request.param):
        yield request.param


def _property(family: str):
    @examples(COUNTS[family])
    @given(case=strategies.FAMILIES[family]())
    def check(backend, case):
        checks.assert_outputs(case, engine.run_eager(case), f"{backend} eager")
        checks.assert_outputs(case, engine.run_graph(case), f"{backend} graph")

    check.__name__ = f"test_{family}_ops_match_numpy"
    return check


test_unary_ops_match_numpy = _property("unary")
test_binary_ops_match_numpy = _property("binary")
test_reduction_ops_match_numpy = _property("reduction")
test_matmul_ops_match_numpy = _property("matmul")
test_conv_ops_match_numpy = _property("conv")
test_pool_ops_match_numpy = _property("pool")
test_gather_ops_match_numpy = _property("gather")
test_cast_ops_match_numpy = _property("cast")
test_softmax_ops_match_numpy = _property("softmax")
