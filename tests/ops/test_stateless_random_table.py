"""Op table rows for the stateless random ops (ops/stateless_random_ops.py) and their independent oracle: the
seed scramble (TensorFlow's GenerateKey) and the distributions re-derived in scalar Python on the Philox function
checked against Random123's known answers (test_random_table.py). tests/keras/test_initializers_vs_tf_keras.py
compares with real TensorFlow through tf_keras's seeded initializers."""

import numpy as np
import pytest
from op_harness import OpCase, check_case
from test_random_table import box_muller, unit_float, words

import webflow as wf
from webflow.framework.philox import philox4x32
from webflow.ops import stateless_random_ops as stateless


def ref_key_counter(seed0, seed1):
    """GenerateKey: one Philox block of the seed words under the fixed key (0x3ec8f720, 0x02461e29)."""
    seed0, seed1 = seed0 % (1 << 64), seed1 % (1 << 64)
    mix = philox4x32((0x3EC8F720, 0x02461E29), (seed0 & 0xFFFFFFFF, seed0 >> 32, seed1 & 0xFFFFFFFF, seed1 >> 32))
    return mix[0] | mix[1] << 32, mix[2] | mix[3] << 32


def stream(seed, count, start_block=0):
    key, high = ref_key_counter(*seed)
    return words(high, count, start_block, seed=key)


def ref_uniform(seed, shape):
    return np.array([unit_float(w) for w in stream(seed, int(np.prod(shape)))], np.float32).reshape(shape)


def ref_normal(seed, shape):
    n = int(np.prod(shape))
    bits = stream(seed, 2 * ((n + 1) // 2))
    values = [v for i in range(0, len(bits), 2) for v in box_muller(bits[i], bits[i + 1])]
    return np.array(values[:n], np.float32).reshape(shape)


def ref_truncated(seed, shape):
    n = int(np.prod(shape))
    values = []
    for group in range(-(-n // 4)):
        bits = iter(stream(seed, 64, start_block=256 * group))
        kept = []
        while len(kept) < 4:
            for value in box_muller(next(bits), next(bits)):
                if abs(value) < 2 and len(kept) < 4:
                    kept.append(value)
        values.extend(kept)
    return np.array(values[:n], np.float32).reshape(shape)


def _key_counter(seed):
    key, counter = stateless._key_counter(seed)
    return [key, counter]


def _ref_key_counter(seed):
    key, high = ref_key_counter(int(seed[0]), int(seed[1]))
    return [np.array([key], np.uint64), np.array([0, high], np.uint64)]


zeros = np.zeros((3, 5), np.float32)

CASES = [
    OpCase("StatelessRandomGetKeyCounter", _key_counter, [np.array([7, 3], np.int64)], _ref_key_counter, grad=False),
    OpCase("StatelessRandomGetKeyCounter_negative", _key_counter, [np.array([-5, 1 << 40], np.int64)],
           _ref_key_counter, grad=False),
    OpCase("StatelessRandomUniformV2", lambda x: wf.random.stateless_uniform([3, 5], [1, 2]) + x, [zeros],
           lambda x: ref_uniform((1, 2), (3, 5)) + x, grad=False),
    OpCase("StatelessRandomUniformV2_range",
           lambda x: wf.random.stateless_uniform([3, 5], [4, 0], -2.0, 3.0) + x, [zeros],
           lambda x: ref_uniform((4, 0), (3, 5)) * np.float32(5) + np.float32(-2) + x, grad=False),
    OpCase("StatelessRandomNormalV2", lambda x: wf.random.stateless_normal([3, 5], [7, 0]) + x, [zeros],
           lambda x: ref_normal((7, 0), (3, 5)) + x, grad=False),
    OpCase("StatelessTruncatedNormalV2", lambda x: wf.random.stateless_truncated_normal([3, 5], [9, 9]) + x,
           [zeros], lambda x: ref_truncated((9, 9), (3, 5)) + x, grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_stateless_random_op(case):
    check_case(case)


def test_same_seed_same_numbers_and_not_differentiable():
    first = wf.random.stateless_normal([4], seed=[3, 4]).numpy()
    np.testing.assert_array_equal(first, wf.random.stateless_normal([4], seed=[3, 4]).numpy())
    assert not np.array_equal(first, wf.random.stateless_normal([4], seed=[3, 5]).numpy())
    from webflow.ops.registry import gradient_function

    for op_type in ("StatelessRandomGetKeyCounter", "StatelessRandomUniformV2", "StatelessRandomNormalV2",
                    "StatelessTruncatedNormalV2"):
        class FakeOp:
            type = op_type
            graph = None

        assert gradient_function(FakeOp()) is None
