"""A character-level LSTM language model as a plain TF1 program: the same code runs on webflow and on TensorFlow.

    embedding -> MultiRNNCell of LSTMs (dynamic_rnn) -> softmax over characters -> sequence_loss,
    Adam on gradients clipped by their global norm.

Every function takes the TF1 module as `tf` (`webflow.compat.v1` or `tensorflow.compat.v1`) and imports neither
webflow nor NumPy, so a benchmark, a test and a lesson (in the browser too) share it. Batches are plain lists.
TensorFlow 2 has no `tf.contrib`; there the loss is TF 1.15's sequence_loss formula written out (sum of the
weighted cross-entropies over the sum of the weights + 1e-12), which is what webflow's builds.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any


@dataclass
class CharLMConfig:
    vocab_size: int
    embedding_size: int = 32
    hidden_size: int = 128
    num_layers: int = 2
    batch_size: int = 32
    num_steps: int = 50
    learning_rate: float = 0.002
    max_grad_norm: float = 5.0


def _sequence_loss(tf: Any, logits: Any, targets: Any, weights: Any) -> Any:
    contrib = getattr(tf, "contrib", None)
    if contrib is not None:
        return contrib.seq2seq.sequence_loss(logits, targets, weights)
    num_classes = tf.shape(logits)[2]
    crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                              logits=tf.reshape(logits, tf.stack([-1, num_classes])))
    return tf.reduce_sum(crossent * tf.reshape(weights, [-1])) / (tf.reduce_sum(weights) + 1e-12)


def _logits(tf: Any, config: CharLMConfig, inputs: Any) -> Any:
    """[batch, time] ids -> [batch, time, vocab] logits; variables under "char_lm/", shared between calls."""
    with tf.variable_scope("char_lm", reuse=tf.AUTO_REUSE):
        embedding = tf.get_variable("embedding", [config.vocab_size, config.embedding_size])
        cells = [tf.nn.rnn_cell.LSTMCell(config.hidden_size, name=f"lstm_{i}") for i in range(config.num_layers)]
        outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell(cells), tf.nn.embedding_lookup(embedding, inputs),
                                       dtype=tf.float32)
        softmax_w = tf.get_variable("softmax_w", [config.hidden_size, config.vocab_size])
        softmax_b = tf.get_variable("softmax_b", [config.vocab_size], initializer=tf.zeros_initializer())
        flat = tf.reshape(outputs, [-1, config.hidden_size])
        logits = tf.matmul(flat, softmax_w) + softmax_b
        return tf.reshape(logits, tf.concat([tf.shape(inputs), [config.vocab_size]], 0))


def build_training(tf: Any, config: CharLMConfig) -> dict:
    """Placeholders `inputs`/`targets` ([batch, steps] int32), `loss` (mean nats per character), `train_op`,
    `global_norm` (of the gradients before clipping)."""
    inputs = tf.placeholder(tf.int32, [config.batch_size, config.num_steps], name="inputs")
    targets = tf.placeholder(tf.int32, [config.batch_size, config.num_steps], name="targets")
    logits = _logits(tf, config, inputs)
    loss = _sequence_loss(tf, logits, targets, tf.ones([config.batch_size, config.num_steps]))
    variables = tf.trainable_variables()
    grads, global_norm = tf.clip_by_global_norm(tf.gradients(loss, variables), config.max_grad_norm)
    train_op = tf.train.AdamOptimizer(config.learning_rate).apply_gradients(zip(grads, variables))
    return {"inputs": inputs, "targets": targets, "loss": loss, "train_op": train_op, "global_norm": global_norm}


def build_sampler(tf: Any, config: CharLMConfig) -> dict:
    """A [1, None] `prefix` placeholder, a `temperature` scalar and `probs`: the next character's distribution."""
    prefix = tf.placeholder(tf.int32, [1, None], name="prefix")
    temperature = tf.placeholder_with_default(1.0, [], name="temperature")
    last_logits = _logits(tf, config, prefix)[0, -1]
    return {"prefix": prefix, "temperature": temperature, "probs": tf.nn.softmax(last_logits / temperature)}


def batches(ids: list[int], batch_size: int, num_steps: int, count: int, start: int = 0) -> list:
    """`count` (inputs, targets) pairs: row r of batch k reads the window at r * stride + (start + k) * num_steps."""
    stride = (len(ids) - 1) // batch_size
    result = []
    for k in range(count):
        offset = ((start + k) * num_steps) % max(1, stride - num_steps)
        rows = [r * stride + offset for r in range(batch_size)]
        result.append(([ids[i:i + num_steps] for i in rows], [ids[i + 1:i + num_steps + 1] for i in rows]))
    return result


def perplexity(sess: Any, model: dict, data: list) -> float:
    """exp(mean loss per character) over the given batches, without training."""
    losses = [sess.run(model["loss"], {model["inputs"]: x, model["targets"]: y}) for x, y in data]
    return math.exp(sum(float(v) for v in losses) / len(losses))


def sample(sess: Any, sampler: dict, start_ids: list[int], length: int, temperature: float = 1.0, seed: int = 0,
           window: int = 50) -> list[int]:
    """`length` ids drawn one by one from the model (the last `window` ids as context), seeded Python RNG."""
    rng = random.Random(seed)
    ids = list(start_ids)
    for _ in range(length):
        probs = sess.run(sampler["probs"], {sampler["prefix"]: [ids[-window:]], sampler["temperature"]: temperature})
        ids.append(rng.choices(range(len(probs)), weights=[float(p) for p in probs])[0])
    return ids[len(start_ids):]


def initial_values(tf: Any, seed: int = 0) -> list:
    """Assign ops giving every trainable variable values drawn from a RandomState seeded by its name and `seed`,
    so two engines start from the same numbers (used with NumPy only by the caller that runs them)."""
    import zlib

    import numpy as np  # the tests and benchmarks have NumPy; the lesson uses the engine's initializers
    ops = []
    for v in tf.trainable_variables():
        rng = np.random.RandomState((zlib.crc32(v.op.name.encode()) + seed) % 2**32)
        ops.append(tf.assign(v, rng.uniform(-0.1, 0.1, v.shape.as_list()).astype("float32")))
    return ops
