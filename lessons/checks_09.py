"""The checkers of lesson 9 (recurrent networks). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

from checks import exercise, hint_unless

import webflow.compat.v1 as tf


def _close(got: list, want: list, tolerance: float = 1e-5) -> bool:
    return len(got) == len(want) and all(abs(a - b) <= tolerance * max(1.0, abs(b)) for a, b in zip(got, want))


def _flat(values: object) -> list:
    values = values.tolist() if hasattr(values, "tolist") else values
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in _flat(v)]
    return [float(values)]


@exercise("9.1")
def exercise_1(perplexity: Callable) -> None:
    """perplexity(losses) -> e ** (the mean of the per-character cross-entropies, in nats)."""
    losses = [2.0, 1.0, 3.0]
    value = perplexity(losses)
    hint_unless(value is not None, "perplexity returned None: return the number.")
    value = float(value)
    hint_unless(abs(value - 2.0) > 1e-6, "that is the mean loss itself; perplexity is e raised to it.")
    hint_unless(abs(value - 4.0) > 1e-6, "2 ** mean is the perplexity of a loss measured in bits; these losses are "
                "in nats (natural logarithms).")
    hint_unless(abs(value - math.exp(6.0)) > 1e-3, "e ** (the sum of the losses) grows with the number of batches: "
                "average the losses first.")
    mean_of_exps = sum(math.exp(x) for x in losses) / len(losses)
    hint_unless(abs(value - mean_of_exps) > 1e-6, "you averaged e ** loss; average the losses, then exponentiate.")
    hint_unless(abs(value - math.exp(2.0)) < 1e-6, f"perplexity({losses}) gave {value}; for losses whose mean is "
                "2 nats it should be about 7.39.")
    hint_unless(abs(float(perplexity([math.log(65.0)] * 4)) - 65.0) < 1e-6, "a model that spreads its bets evenly "
                "over 65 characters loses ln 65 per character: its perplexity should come out as 65.")


@exercise("9.2")
def exercise_2(last_output: Callable) -> None:
    """last_output(outputs, lengths) -> [batch, units]: row b's output at time lengths[b] - 1."""
    with tf.Graph().as_default():
        inputs = tf.constant([[[0.1 * (t + 1) + b] for t in range(4)] for b in range(3)])  # [3, 4, 1]
        lengths = tf.constant([4, 2, 1])
        cell = tf.nn.rnn_cell.BasicRNNCell(2)  # its final state is its last real output: the oracle
        with tf.variable_scope("check_9_2", initializer=tf.constant_initializer(0.3)):
            outputs, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, dtype=tf.float32)
        answer = last_output(outputs, lengths)
        hint_unless(answer is not None, "last_output returned None: return the tensor you built.")
        hint_unless(hasattr(answer, "graph"), f"last_output returned {type(answer).__name__}; build it with "
                    "TensorFlow ops on `outputs` so it is a tensor.")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, want, out = sess.run([answer, state, outputs])
    got, want = _flat(got), _flat(want)
    flat_outputs = _flat(out)  # [3, 4, 2] row-major: row b's time t starts at b * 8 + t * 2
    last_step = [x for row in range(3) for x in flat_outputs[row * 8 + 6: row * 8 + 8]]
    hint_unless(not _close(got, last_step), "outputs[:, -1] is zero for the rows shorter than the time axis: "
                "dynamic_rnn writes zeros past each row's length. Pick time lengths[b] - 1 in row b.")
    hint_unless(len(got) == len(want), f"the result holds {len(got)} numbers; it should be [batch, units] = [3, 2].")
    hint_unless(_close(got, want), "these are not each row's last real output (compare with the final state that "
                "dynamic_rnn returns: for a BasicRNNCell it is that output).")


@exercise("9.3")
def exercise_3(with_temperature: Callable) -> None:
    """with_temperature(logits, temperature) -> the probabilities softmax(logits / temperature), as a tensor."""
    logits = [2.0, 1.0, 0.0, -1.0]
    results = {}
    with tf.Graph().as_default():
        for temperature in (0.5, 2.0):
            answer = with_temperature(tf.constant(logits), temperature)
            hint_unless(answer is not None, "with_temperature returned None: return the tensor of probabilities.")
            results[temperature] = answer
        with tf.Session() as sess:
            got = {t: _flat(sess.run(p)) for t, p in results.items()}

    def softmax(values: list) -> list:
        top = max(values)
        exps = [math.exp(v - top) for v in values]
        return [e / sum(exps) for e in exps]

    for temperature, probs in got.items():
        hint_unless(abs(sum(probs) - 1.0) < 1e-5, f"at temperature {temperature} the values sum to {sum(probs):.4f},"
                    " not 1: probabilities come from a softmax, and the temperature goes in before it.")
        hint_unless(not _close(probs, softmax([v * temperature for v in logits])), "you multiplied the logits by the "
                    "temperature: then a high temperature makes the model *more* certain. Divide instead.")
        hint_unless(not _close(probs, softmax(logits)), f"at temperature {temperature} these are the plain softmax "
                    "probabilities: the temperature did not change them.")
        hint_unless(_close(probs, softmax([v / temperature for v in logits])), f"at temperature {temperature} the "
                    f"probabilities {[round(p, 4) for p in probs]} are not the tempered softmax.")
