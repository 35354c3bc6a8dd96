"""The PTB-style word language model ("small" config) as a plain TF1 program: the same code runs on webflow and on
TensorFlow.

    word ids -> embedding -> 2 x BasicLSTMCell(200, forget_bias=0) in a MultiRNNCell, unrolled by hand over 20 steps
    (the tutorial's "basic" mode) -> softmax over the vocabulary -> summed per-step cross-entropy,
    plain SGD on gradients clipped by their global norm, the learning rate held in a variable and halved each epoch
    after the 4th; the LSTM state is carried from one batch to the next across the whole epoch.

Every function takes the TF1 module as `tf` (`webflow.compat.v1` or `tensorflow.compat.v1`) and imports neither
webflow nor NumPy; batches are plain lists. TensorFlow 2 has no `tf.contrib`: there the cost is written out
(the sum over the batch of the cross-entropies, divided by the batch size), which is what
`sequence_loss(average_across_timesteps=False, average_across_batch=True)` followed by `reduce_sum` computes.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class WordLMConfig:
    """The PTB tutorial's SmallConfig (vocab_size aside: the caller's vocabulary)."""
    vocab_size: int
    init_scale: float = 0.1
    learning_rate: float = 1.0
    max_grad_norm: float = 5.0
    num_layers: int = 2
    num_steps: int = 20
    hidden_size: int = 200
    max_epoch: int = 4          # epochs at the full learning rate
    max_max_epoch: int = 13     # epochs in all
    keep_prob: float = 1.0      # 1.0: the small config uses no dropout
    lr_decay: float = 0.5
    batch_size: int = 20

    def learning_rate_at(self, epoch: int) -> float:
        """The rate of 0-based `epoch`: lr * lr_decay ** max(epoch + 1 - max_epoch, 0)."""
        return self.learning_rate * self.lr_decay ** max(epoch + 1 - self.max_epoch, 0)


def _cost(tf: Any, logits: Any, targets: Any, batch_size: int) -> Any:
    """Sum over the time steps of the batch-mean cross-entropy (the tutorial's `cost`)."""
    contrib = getattr(tf, "contrib", None)
    if contrib is not None:
        loss = contrib.seq2seq.sequence_loss(logits, targets, tf.ones(targets.shape.as_list(), tf.float32),
                                             average_across_timesteps=False, average_across_batch=True)
        return tf.reduce_sum(loss)
    vocab = logits.shape.as_list()[2]
    crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                              logits=tf.reshape(logits, [-1, vocab]))
    return tf.reduce_sum(crossent) / batch_size


def _cell(tf: Any, config: WordLMConfig, is_training: bool) -> Any:
    def lstm() -> Any:
        cell = tf.nn.rnn_cell.BasicLSTMCell(config.hidden_size, forget_bias=0.0, state_is_tuple=True,
                                            reuse=not is_training)
        if is_training and config.keep_prob < 1:
            cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=config.keep_prob)
        return cell

    return tf.nn.rnn_cell.MultiRNNCell([lstm() for _ in range(config.num_layers)], state_is_tuple=True)


def _unrolled_rnn(tf: Any, cell: Any, inputs: Any, state: Any, num_steps: int) -> tuple[list, Any]:
    """The cell called once per time step, its variables created at step 0 and reused after."""
    outputs = []
    with tf.variable_scope("RNN"):
        for time_step in range(num_steps):
            if time_step > 0:
                tf.get_variable_scope().reuse_variables()
            output, state = cell(inputs[:, time_step, :], state)
            outputs.append(output)
    return outputs, state


def build_model(tf: Any, config: WordLMConfig, is_training: bool) -> dict:
    """A model under variable scope "Model" (the training one creates the variables, the other reuses them).

    Returns placeholders `inputs`/`targets` ([batch, steps] int32), `initial_state` (a tuple of LSTMStateTuples,
    fed with the previous batch's `final_state`), `cost`; the training model adds `train_op`, `lr`, `new_lr`
    and `lr_update`.
    """
    initializer = tf.random_uniform_initializer(-config.init_scale, config.init_scale)
    batch, steps, size = config.batch_size, config.num_steps, config.hidden_size
    with tf.variable_scope("Model", reuse=None if is_training else True, initializer=initializer):
        inputs = tf.placeholder(tf.int32, [batch, steps], name="inputs")
        targets = tf.placeholder(tf.int32, [batch, steps], name="targets")
        with tf.device("/cpu:0"):
            embedding = tf.get_variable("embedding", [config.vocab_size, size], dtype=tf.float32)
            embedded = tf.nn.embedding_lookup(embedding, inputs)
        if is_training and config.keep_prob < 1:
            embedded = tf.nn.dropout(embedded, keep_prob=config.keep_prob)
        cell = _cell(tf, config, is_training)
        initial_state = cell.zero_state(batch, tf.float32)
        outputs, final_state = _unrolled_rnn(tf, cell, embedded, initial_state, steps)
        output = tf.reshape(tf.concat(outputs, 1), [-1, size])
        softmax_w = tf.get_variable("softmax_w", [size, config.vocab_size], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [config.vocab_size], dtype=tf.float32)
        logits = tf.reshape(tf.nn.xw_plus_b(output, softmax_w, softmax_b), [batch, steps, config.vocab_size])
        model = {"inputs": inputs, "targets": targets, "initial_state": initial_state, "final_state": final_state,
                 "cost": _cost(tf, logits, targets, batch)}
        if is_training:
            model.update(_training_ops(tf, config, model["cost"]))
    return model


def _training_ops(tf: Any, config: WordLMConfig, cost: Any) -> dict:
    lr = tf.Variable(0.0, trainable=False, name="lr")
    variables = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(cost, variables), config.max_grad_norm)
    optimizer = tf.train.GradientDescentOptimizer(lr)
    train_op = optimizer.apply_gradients(zip(grads, variables), global_step=tf.train.get_or_create_global_step())
    new_lr = tf.placeholder(tf.float32, [], name="new_learning_rate")
    return {"train_op": train_op, "lr": lr, "new_lr": new_lr, "lr_update": tf.assign(lr, new_lr)}


def batches(ids: list[int], batch_size: int, num_steps: int) -> list:
    """The PTB reader's batching: the ids cut into batch_size rows read side by side, num_steps at a time, so row
    r of batch k+1 continues row r of batch k (which is why the state is carried). [(inputs, targets), ...]."""
    row_length = len(ids) // batch_size
    rows = [ids[r * row_length:(r + 1) * row_length] for r in range(batch_size)]
    count = (row_length - 1) // num_steps
    return [([row[k * num_steps:(k + 1) * num_steps] for row in rows],
             [row[k * num_steps + 1:(k + 1) * num_steps + 1] for row in rows]) for k in range(count)]


def _state_feed(model: dict, state: Any) -> dict:
    feed = {}
    for layer, (c, h) in enumerate(model["initial_state"]):
        feed[c], feed[h] = state[layer].c, state[layer].h
    return feed


def run_epoch(sess: Any, model: dict, data: list, train: bool, progress: Callable | None = None) -> float:
    """One pass over `data` carrying the state from batch to batch (training when `train`): the perplexity,
    exp(summed cost / number of steps). `progress(done_fraction, perplexity, words_per_s)` after each batch."""
    state = sess.run(model["initial_state"])
    fetches = {"cost": model["cost"], "final_state": model["final_state"]}
    if train:
        fetches["train_op"] = model["train_op"]
    costs, iters, start = 0.0, 0, time.perf_counter()
    for k, (x, y) in enumerate(data):
        feed = {model["inputs"]: x, model["targets"]: y, **_state_feed(model, state)}
        values = sess.run(fetches, feed)
        state = values["final_state"]
        costs += float(values["cost"])
        iters += len(x[0])
        if progress is not None:
            words = (k + 1) * len(x) * len(x[0])
            progress((k + 1) / len(data), math.exp(costs / iters), words / (time.perf_counter() - start))
    return math.exp(costs / iters)


def progress_bar(label: str, stream: Any = sys.stderr, width: int = 30) -> Callable:
    """A `progress` callback drawing `label [#####.....]  45%  ppl 312.4  1830 wps` on one line."""
    def draw(fraction: float, perplexity: float, words_per_s: float) -> None:
        filled = int(fraction * width)
        end = "\n" if fraction >= 1 else ""
        stream.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%}  ppl {perplexity:8.2f}"
                     f"  {words_per_s:6.0f} wps{end}")
        stream.flush()

    return draw


def train(tf: Any, sess: Any, config: WordLMConfig, models: tuple[dict, dict], train_data: list, valid_data: list,
          log: Callable[[str], None] = print, show_progress: bool = True) -> list[dict]:
    """The tutorial's loop: per epoch set the learning rate, train one epoch, evaluate on the held-out batches.
    Returns [{"epoch", "lr", "train_perplexity", "valid_perplexity", "seconds", "words_per_s"}, ...]."""
    model, valid_model = models
    history = []
    for epoch in range(config.max_max_epoch):
        lr = config.learning_rate_at(epoch)
        sess.run(model["lr_update"], {model["new_lr"]: lr})
        log(f"Epoch: {epoch + 1} Learning rate: {lr:.3f}")
        bar = progress_bar(f"epoch {epoch + 1}") if show_progress else None
        start = time.perf_counter()
        train_perplexity = run_epoch(sess, model, train_data, True, bar)
        seconds = time.perf_counter() - start
        valid_perplexity = run_epoch(sess, valid_model, valid_data, False)
        words = len(train_data) * config.batch_size * config.num_steps
        log(f"Epoch: {epoch + 1} Train Perplexity: {train_perplexity:.3f} Valid Perplexity: {valid_perplexity:.3f}"
            f" ({words / seconds:.0f} words/s)")
        history.append({"epoch": epoch + 1, "lr": lr, "train_perplexity": train_perplexity,
                        "valid_perplexity": valid_perplexity, "seconds": seconds, "words_per_s": words / seconds})
    return history
