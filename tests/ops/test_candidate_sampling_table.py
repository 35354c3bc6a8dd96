"""Op table rows for the candidate samplers and ComputeAccidentalHits (ops/candidate_sampling_ops.py).

Oracle: a scalar re-derivation of TensorFlow's RangeSampler recipe (range_sampler.cc, simple_philox.h) on
`philox4x32`, which tests/ops/test_random_table.py checks against Random123's known answers: SimplePhilox reads
the op's stream one uint32 at a time; RandDouble = (20 high bits of word 1, word 2) as a double mantissa, minus 1;
Uniform64 = (lo | hi << 32) mod n. tests/rnn/test_sampled_losses_tensorflow.py compares with real TensorFlow.
"""

import math
import struct

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.framework import random_seed
from webflow.framework.philox import philox4x32

MASK = 0xFFFFFFFF


@pytest.fixture(autouse=True)
def _fresh_random_state():
    random_seed.set_global_seed(None)
    yield
    random_seed.set_global_seed(None)


def words(op_seed: int):
    seed, seed2 = random_seed.get_seed(op_seed)
    block = 0
    while True:
        yield from philox4x32((seed & MASK, seed >> 32), (block, 0, seed2 & MASK, seed2 >> 32))
        block += 1


def ref_sampler(kind: str, op_seed: int, true_classes, num_sampled: int, unique: bool, range_max: int) -> list:
    stream = words(op_seed)
    sampled, tries = [], 0
    while len(sampled) < num_sampled:
        tries += 1
        first, second = next(stream), next(stream)
        if kind == "log":
            bits = (1023 << 52) | ((first & 0xFFFFF) << 32) | second
            u = struct.unpack("<d", struct.pack("<Q", bits))[0] - 1.0
            value = (int(math.exp(u * math.log(range_max + 1))) - 1) % range_max
        else:
            value = (first | second << 32) % range_max
        if not unique or value not in sampled:
            sampled.append(value)

    def expected(v):
        p = math.log((v + 2) / (v + 1)) / math.log(range_max + 1) if kind == "log" else 1 / range_max
        return p * num_sampled if tries == num_sampled else 1 - (1 - p) ** tries

    return [np.array(sampled, np.int64), np.vectorize(expected)(true_classes).astype(np.float32),
            np.array([expected(v) for v in sampled], np.float32)]


def ref_hits(true_classes, sampled) -> list:
    last = {v: j for j, v in enumerate(sampled.tolist())}
    hits = [(i, last[c]) for i, row in enumerate(true_classes.tolist()) for c in row if c in last]
    return [np.array([h[0] for h in hits], np.int32), np.array([h[1] for h in hits], np.int64),
            np.full(len(hits), -np.finfo(np.float32).max, np.float32)]


true_classes = np.array([[1, 5], [3, 2], [0, 9]], np.int64)

CASES = [
    OpCase("LogUniformCandidateSampler_unique",
           lambda t: wf.random.log_uniform_candidate_sampler(t, 2, 6, True, 20, seed=3), [true_classes],
           lambda t: ref_sampler("log", 3, t, 6, True, 20), grad=False),
    OpCase("LogUniformCandidateSampler_with_repeats",
           lambda t: wf.random.log_uniform_candidate_sampler(t, 2, 7, False, 50, seed=4), [true_classes],
           lambda t: ref_sampler("log", 4, t, 7, False, 50), grad=False),
    OpCase("UniformCandidateSampler_unique",
           lambda t: wf.random.uniform_candidate_sampler(t, 2, 5, True, 10, seed=5), [true_classes],
           lambda t: ref_sampler("uniform", 5, t, 5, True, 10), grad=False),
    OpCase("ComputeAccidentalHits",
           lambda t, s: wf.nn.compute_accidental_hits(t, s, 2), [true_classes, np.array([9, 4, 1, 2, 1], np.int64)],
           ref_hits, grad=False, fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_candidate_sampling_op(case):
    check_case(case)
