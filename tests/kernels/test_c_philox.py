"""Philox-4x32-10 in C (webflow/wasm/philox.c) against webflow/framework/philox.py, which is bit-exact with
TensorFlow (tests/test_random_tf_exact.py checks that): the same uint32 stream and uniform floats."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import library as c
from webflow.backends.c.philox import key_and_counter
from webflow.backends.numpy import random_distributions
from webflow.framework.philox import PhiloxGenerator

require_c_library()

SEEDS = [(1, 2), (87654321, 0), (2**63 + 5, 2**64 - 1), (123, 2**40 + 17)]
COUNTS = [0, 1, 3, 4, 5, 7, 8, 1001]


def c_stream(name: str, generator: PhiloxGenerator, count: int, dtype: type, start_block: int = 0) -> np.ndarray:
    key, counter = key_and_counter(generator, start_block)
    out = np.zeros(count, dtype)
    c.function(name)(c.address(key), c.address(counter), c.address(out), count)
    return out


@pytest.mark.parametrize("seed,seed2", SEEDS)
@pytest.mark.parametrize("count", COUNTS)
def test_uint32_stream_is_bit_exact(seed, seed2, count):
    generator = PhiloxGenerator(seed, seed2)
    assert np.array_equal(c_stream("wf_philox_uint32", generator, count, np.uint32), generator.uint32s(count))


def test_block_offsets_and_128_bit_counter_carry():
    generator = PhiloxGenerator(42, 2**64 - 1)
    generator.counter = (1 << 128) - 3          # two blocks before the counter wraps around
    expected = generator.blocks(0, 6).reshape(-1)
    assert np.array_equal(c_stream("wf_philox_uint32", generator, 24, np.uint32), expected)
    assert np.array_equal(c_stream("wf_philox_uint32", generator, 10, np.uint32, start_block=2), expected[8:18])


@pytest.mark.parametrize("seed,seed2", SEEDS)
@pytest.mark.parametrize("count", COUNTS)
def test_uniform_floats_match_random_ops(seed, seed2, count):
    generator = PhiloxGenerator(seed, seed2)
    floats = c_stream("wf_philox_uniform_f32", generator, count, np.float32)
    assert np.array_equal(floats, random_distributions.uniform(generator, count, np.float32))
    doubles = c_stream("wf_philox_uniform_f64", generator, count, np.float64)
    assert np.array_equal(doubles, random_distributions.uniform(generator, count, np.float64))
    assert ((floats >= 0) & (floats < 1)).all() and ((doubles >= 0) & (doubles < 1)).all()


def test_kernel_families_import_and_run_without_numpy():
    """As in Pyodide without NumPy: `webflow` stubbed as a bare package, numpy unimportable; the seven
    signature modules import, and kernels run on array.array buffers (Philox checked against the
    pure-Python philox4x32 of framework/philox.py, which needs no NumPy for Python ints)."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = textwrap.dedent(f"""
        import array, math, sys, types
        sys.modules["numpy"] = None
        package = types.ModuleType("webflow")
        package.__path__ = [{os.path.join(repo, "webflow")!r}]
        sys.modules["webflow"] = package
        from webflow.backends.c import library as c
        from webflow.backends.c import cast as c_cast
        from webflow.backends.c import elementwise as c_elementwise
        from webflow.backends.c import gather as c_gather
        from webflow.backends.c import optimizers as c_optimizers
        from webflow.backends.c import philox as c_philox
        from webflow.backends.c import reduce as c_reduce
        from webflow.backends.c import softmax as c_softmax
        from webflow.framework.philox import philox4x32
        x, y = c.float_array([0.0, 1.0, -2.0]), c.float_array(3)
        c.function("wf_exp_f32")(c.address(x), c.address(y), 3)
        assert all(abs(a - math.exp(b)) <= 1e-6 * math.exp(b) for a, b in zip(y, x)), list(y)
        column, row, out = c.float_array([1, 2]), c.float_array([10, 20, 30]), c.float_array(6)
        sizes = c_elementwise.size_array
        status = c.function("wf_add_f32")(c.address(column), c.address(row), c.address(out), 2, sizes([2, 3]),
                                          sizes([1, 0]), sizes([0, 1]))
        assert status == 0 and list(out) == [11, 21, 31, 12, 22, 32], list(out)
        key, counter = array.array("I", [7, 9]), array.array("I", [1, 2, 3, 4])
        words = array.array("I", bytes(4 * 4))
        c.function("wf_philox_uint32")(c.address(key), c.address(counter), c.address(words), 4)
        assert list(words) == list(philox4x32((7, 9), (1, 2, 3, 4))), list(words)
        print("ok", sys.modules["numpy"] is None)
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": repo})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok", "True"]
