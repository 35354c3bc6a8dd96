"""Candidate samplers (`tf.random.log_uniform_candidate_sampler`, `uniform_candidate_sampler`) and
`tf.nn.compute_accidental_hits`: the ops behind sampled_softmax_loss and nce_loss (nn/sampled_losses.py).

A sampler draws `num_sampled` ids in [0, range_max) from its op's Philox stream exactly as TensorFlow's
RangeSampler does, so the same seeds give TensorFlow's ids: one draw is SimplePhilox's RandDouble (two
uint32 words -> a double in [0, 1)) for log-uniform, Uniform64 (two words, lo | hi << 32, mod range) for
uniform; `unique` rejects repeats. Expected counts: p * num_sampled, or with `unique`
1 - (1 - p) ** num_tries (-expm1(num_tries * log1p(-p))) when rejection took more tries than samples.
"""

from __future__ import annotations

import collections
import math
import struct
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import dtypes, random_seed
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.random_generators import generator_for
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op

CandidateSamplerOutput = collections.namedtuple(
    "CandidateSamplerOutput", ["sampled_candidates", "true_expected_count", "sampled_expected_count"])
AccidentalHits = collections.namedtuple("AccidentalHits", ["indices", "ids", "weights"])
_FLOAT_MAX = 3.4028234663852886e38


class _Words:
    """SimplePhilox's single-uint32 stream over a reserved generator, drawn in chunks as needed."""

    def __init__(self, generator: Any):
        self.generator, self.words, self.position, self.blocks = generator, [], 0, 0

    def next(self) -> int:
        if self.position == len(self.words):
            self.words = [int(w) for w in self.generator.blocks(self.blocks, 64).reshape(-1)]
            self.blocks, self.position = self.blocks + 64, 0
        self.position += 1
        return self.words[self.position - 1]

    def rand_double(self) -> float:
        """Uint64ToDouble: 20 high bits of the first word and all of the second as a mantissa, minus 1."""
        high, low = self.next() & 0xFFFFF, self.next()
        return struct.unpack("<d", struct.pack("<Q", (1023 << 52) | (high << 32) | low))[0] - 1.0

    def uniform64(self, n: int) -> int:
        low, high = self.next(), self.next()
        return (low | high << 32) % n


def _log_uniform_draw(words: _Words, range_max: int) -> int:
    return (int(math.exp(words.rand_double() * math.log1p(range_max))) - 1) % range_max


def _log_uniform_probability(value: int, range_max: int) -> float:
    return math.log((value + 2.0) / (value + 1.0)) / math.log1p(range_max)


SAMPLERS = {  # op type -> (one draw, probability of an id)
    "LogUniformCandidateSampler": (_log_uniform_draw, _log_uniform_probability),
    "UniformCandidateSampler": (lambda words, range_max: words.uniform64(range_max), lambda value, n: 1.0 / n),
}


def _sampler_shape(inputs: list, attrs: dict) -> list:
    true_classes = inputs[0]
    if true_classes.shape.rank is not None and true_classes.shape.rank != 2:
        raise ShapeError(f"Shape must be rank 2 but is rank {true_classes.shape.rank}")
    batch = true_classes.shape.as_tuple()[0] if true_classes.shape.rank is not None else None
    num_sampled = attrs["num_sampled"]
    return [output_spec((num_sampled,), dtypes.int64), output_spec((batch, attrs["num_true"]), dtypes.float32),
            output_spec((num_sampled,), dtypes.float32)]


def _sample(context_: Any, op_type: str, true_classes: Any, attrs: dict) -> list:
    """RangeSampler::SampleBatchGetExpectedCountAvoid on this op's Philox stream."""
    num_sampled, range_max, unique = attrs["num_sampled"], attrs["range_max"], attrs["unique"]
    if unique and num_sampled > range_max:
        raise InvalidArgumentError(None, None, "Sampler's range is too small.")
    draw, probability = SAMPLERS[op_type]
    # TF reserves 2048 words per sampled id for each run (rejection may need many tries)
    words = _Words(generator_for(context_).reserve_uint32s(2048 * num_sampled))
    sampled, seen, tries = [], set(), 0
    while len(sampled) < num_sampled:
        tries += 1
        value = draw(words, range_max)
        if not unique or value not in seen:
            seen.add(value)
            sampled.append(value)

    def expected(value: int) -> float:
        p = np.float32(probability(int(value), range_max))  # TF's Probability() and ExpectedCountHelper are float
        if tries == num_sampled:
            return p * np.float32(num_sampled)
        return -np.expm1(np.float32(tries) * np.log1p(-p))

    true_classes = np.asarray(true_classes)
    return [np.array(sampled, np.int64), np.vectorize(expected, otypes=[np.float32])(true_classes).astype(np.float32)
            .reshape(true_classes.shape), np.array([expected(v) for v in sampled], np.float32)]


@register_op("LogUniformCandidateSampler", "LogUniformCandidateSampler", inputs=("true_classes",),
             shape=_sampler_shape, needs_context=True, stateful=True)
def log_uniform_candidate_sampler_kernel(context_: Any, true_classes: Any, **attrs: Any) -> list:
    """ids ~ P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): k = floor(exp(u * log(range_max + 1))) - 1."""
    return _sample(context_, "LogUniformCandidateSampler", true_classes, attrs)


@register_op("UniformCandidateSampler", "UniformCandidateSampler", inputs=("true_classes",),
             shape=_sampler_shape, needs_context=True, stateful=True)
def uniform_candidate_sampler_kernel(context_: Any, true_classes: Any, **attrs: Any) -> list:
    """ids ~ P(k) = 1 / range_max: a 64-bit Philox draw modulo range_max."""
    return _sample(context_, "UniformCandidateSampler", true_classes, attrs)


def _hits_shape(inputs: list, attrs: dict) -> list:
    return [output_spec((None,), dtypes.int32), output_spec((None,), dtypes.int64),
            output_spec((None,), dtypes.float32)]


@register_op("ComputeAccidentalHits", "ComputeAccidentalHits", inputs=("true_classes", "sampled_candidates"),
             shape=_hits_shape)
def compute_accidental_hits_kernel(true_classes: Any, sampled_candidates: Any, *, num_true: int, seed: int = 0,
                                   seed2: int = 0) -> list:
    """For each (row i, true class c) with c among the sampled ids at position j: (i, j, -FLT_MAX), row-major;
    a repeated sampled id is found at its last position."""
    position = {int(v): j for j, v in enumerate(np.asarray(sampled_candidates).reshape(-1))}
    hits = [(i, position[int(c)]) for i, row in enumerate(np.asarray(true_classes)) for c in row
            if int(c) in position]
    return [np.array([i for i, _ in hits], np.int32), np.array([j for _, j in hits], np.int64),
            np.full(len(hits), -_FLOAT_MAX, np.float32)]


for _op_type in ("LogUniformCandidateSampler", "UniformCandidateSampler", "ComputeAccidentalHits"):
    NotDifferentiable(_op_type)


# --- Python wrappers (TensorFlow's names and signatures) ---------------------------------------------
def _candidate_sampler(op_type: str, true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                       range_max: int, seed: int | None, name: str | None) -> CandidateSamplerOutput:
    seed1, seed2 = random_seed.get_seed(seed)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled), "unique": bool(unique),
             "range_max": int(range_max), "seed": seed1 or 0, "seed2": seed2 or 0}
    outputs = apply_op(op_type, [convert_to_tensor(true_classes, dtype=dtypes.int64)], attrs, name)
    return CandidateSamplerOutput(*outputs)


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                                  range_max: int, seed: int | None = None,
                                  name: str | None = None) -> CandidateSamplerOutput:
    """(sampled_candidates, true_expected_count, sampled_expected_count), ids ~ approximately Zipf."""
    return _candidate_sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                              range_max, seed, name)


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: int | None = None, name: str | None = None) -> CandidateSamplerOutput:
    """(sampled_candidates, true_expected_count, sampled_expected_count), ids uniform in [0, range_max)."""
    return _candidate_sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                              range_max, seed, name)


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int, seed: int | None = None,
                            name: str | None = None) -> AccidentalHits:
    """(indices, ids, weights): where a row's true class was also sampled, weight -FLT_MAX to add to its logit."""
    seed1, seed2 = random_seed.get_seed(seed)
    outputs = apply_op("ComputeAccidentalHits", [convert_to_tensor(true_classes, dtype=dtypes.int64),
                                                 convert_to_tensor(sampled_candidates, dtype=dtypes.int64)],
                       {"num_true": int(num_true), "seed": seed1 or 0, "seed2": seed2 or 0}, name)
    return AccidentalHits(*outputs)


__all__ = ["log_uniform_candidate_sampler", "uniform_candidate_sampler", "compute_accidental_hits"]
