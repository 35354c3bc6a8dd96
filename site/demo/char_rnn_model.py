"""The model of the "Train a char-RNN in your browser" page: a character LSTM in TF1 code, run by webflow in Pyodide.

The page's Web Worker writes this file and benchmarks/char_lm_model.py (copied beside it by `make site`) to
Pyodide's file system, imports them and calls `CharRnnDemo` methods between its messages:

    demo = CharRnnDemo(text)                 # the Shakespeare slice shipped with the page; builds the graphs
    demo.train_chunk(5)                      # 5 Adam steps; returns their losses and the speed
    demo.sample(200, temperature=0.8)        # 200 characters drawn one by one from the model

The training graph is char_lm_model's (embedding -> LSTM via dynamic_rnn -> softmax -> sequence_loss, Adam on
clipped gradients). Sampling feeds the LSTM one character at a time and carries its state in Python lists, so
each character costs one small Session.run (char_lm_model's sampler re-reads a whole window per character).
Nothing here needs NumPy: batches are lists of ints and the random draws use Python's `random`.
The same file runs in CPython too (tests): it needs `webflow` and char_lm_model on sys.path.
"""

from __future__ import annotations

import math
import random
import time

import char_lm_model as lm

import webflow.compat.v1 as tf

# Small enough for Pyodide: every unrolled time step is a few ops, each paying pure-Python executor overhead.
# Measured in Chromium (2-core EPYC, shared): about 10 steps/s, 10,000 characters/s; 300 steps reach a loss near 1.9.
SIZES = {"embedding_size": 32, "hidden_size": 128, "num_layers": 1, "batch_size": 32, "num_steps": 32,
         "learning_rate": 0.01}
SEED = 1


class CharRnnDemo:
    """A char-LSTM on `text`: vocabulary = the text's characters in sorted order (as webflow.datasets.shakespeare)."""

    def __init__(self, text: str, steps: int = 300, sizes: dict | None = None) -> None:
        self.chars = sorted(set(text))
        self.index = {char: i for i, char in enumerate(self.chars)}
        self.ids = [self.index[char] for char in text]
        self.config = lm.CharLMConfig(len(self.chars), **{**SIZES, **(sizes or {})})
        self.steps, self.step = steps, 0
        self.graph = tf.Graph()
        with self.graph.as_default():
            tf.set_random_seed(SEED)
            self.model = _build_training(self.config)
            self.sampler = _build_step_sampler(self.config)
            self.session = tf.Session()
            self.session.run(tf.global_variables_initializer())

    def info(self) -> dict:
        """What the page shows before training; `initial_loss` is ln(vocabulary), the loss of a uniform guess."""
        return {**{k: getattr(self.config, k) for k in SIZES}, "vocab_size": len(self.chars),
                "text_chars": len(self.ids), "steps": self.steps, "initial_loss": math.log(len(self.chars))}

    def extend(self, steps: int) -> None:
        """Allows `steps` more training steps (the page's Train button after a finished run)."""
        self.steps = self.step + steps

    def train_chunk(self, count: int) -> dict:
        """`count` training steps (never past `steps`): their losses, the step reached and the speed."""
        count = max(0, min(count, self.steps - self.step))
        cfg = self.config
        data = lm.batches(self.ids, cfg.batch_size, cfg.num_steps, count, start=self.step)
        losses, start = [], time.perf_counter()
        for inputs, targets in data:
            loss, _ = self.session.run([self.model["loss"], self.model["train_op"]],
                                       {self.model["inputs"]: inputs, self.model["targets"]: targets})
            losses.append(float(loss))
        seconds = time.perf_counter() - start
        self.step += count
        chars = count * cfg.batch_size * cfg.num_steps
        return {"step": self.step, "steps": self.steps, "losses": losses, "seconds": seconds,
                "steps_per_s": count / seconds if seconds else 0.0, "chars_per_s": chars / seconds if seconds else 0.0}

    def loss_on(self, start: int = 0) -> float:
        """The loss on one batch without training (for tests: the untrained model's loss ≈ ln(vocabulary))."""
        inputs, targets = lm.batches(self.ids, self.config.batch_size, self.config.num_steps, 1, start=start)[0]
        return float(self.session.run(self.model["loss"], {self.model["inputs"]: inputs,
                                                           self.model["targets"]: targets}))

    def sample(self, length: int, temperature: float = 1.0, prime: str = "\n", seed: int = 0) -> str:
        """`length` characters drawn from the model after reading `prime` (characters outside the vocabulary
        are skipped), each from softmax(logits / temperature) with a seeded Python RNG."""
        rng, s = random.Random(seed), self.sampler
        state = [[[0.0] * self.config.hidden_size] for _ in s["state_in"]]
        ids = [self.index[c] for c in prime if c in self.index] or [0]
        out: list[int] = []
        for position in range(len(ids) - 1 + length):
            current = ids[position] if position < len(ids) else out[-1]
            feed = {s["input"]: [current], s["temperature"]: max(temperature, 1e-3)}
            feed.update(zip(s["state_in"], state))
            probs, *state = self.session.run([s["probs"]] + s["state_out"], feed)
            state = [value.tolist() if hasattr(value, "tolist") else value for value in state]
            if position >= len(ids) - 1:
                weights = [float(p) for p in (probs.tolist() if hasattr(probs, "tolist") else probs)]
                out.append(rng.choices(range(len(weights)), weights=weights)[0])
        return "".join(self.chars[i] for i in out)


def _lstm(config: lm.CharLMConfig, inputs: list, initial_state: tuple | None = None) -> tuple:
    """char_lm_model's network unrolled with static_rnn (no while_loop/TensorArray, whose kernels need NumPy):
    a list of [batch] id tensors -> (list of [batch, vocab] logits, final state). Variables under "char_lm/",
    named as char_lm_model's (rnn/multi_rnn_cell/cell_0/lstm_0/...), created once and then reused."""
    with tf.variable_scope("char_lm", reuse=tf.AUTO_REUSE):
        embedding = tf.get_variable("embedding", [config.vocab_size, config.embedding_size])
        cells = [tf.nn.rnn_cell.LSTMCell(config.hidden_size, name=f"lstm_{i}") for i in range(config.num_layers)]
        outputs, final = tf.nn.static_rnn(tf.nn.rnn_cell.MultiRNNCell(cells),
                                          [tf.nn.embedding_lookup(embedding, ids) for ids in inputs],
                                          initial_state=initial_state, dtype=tf.float32)
        softmax_w = tf.get_variable("softmax_w", [config.hidden_size, config.vocab_size])
        softmax_b = tf.get_variable("softmax_b", [config.vocab_size], initializer=tf.zeros_initializer())
        return [tf.matmul(output, softmax_w) + softmax_b for output in outputs], final


def _build_training(config: lm.CharLMConfig) -> dict:
    """char_lm_model.build_training's graph on the unrolled LSTM: `inputs`/`targets` [batch, steps] int32, `loss`
    (mean nats per character), `train_op` (Adam on gradients clipped to a global norm of max_grad_norm), `logits`
    (one [batch, vocab] tensor per time step)."""
    inputs = tf.placeholder(tf.int32, [config.batch_size, config.num_steps], name="inputs")
    targets = tf.placeholder(tf.int32, [config.batch_size, config.num_steps], name="targets")
    logits, _ = _lstm(config, tf.unstack(inputs, axis=1))
    losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(tf.transpose(targets), [-1]),
                                                            logits=tf.concat(logits, 0))
    loss = tf.reduce_mean(losses)
    variables = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, variables), config.max_grad_norm)
    train_op = tf.train.AdamOptimizer(config.learning_rate).apply_gradients(zip(grads, variables))
    return {"inputs": inputs, "targets": targets, "loss": loss, "train_op": train_op, "logits": logits}


def _build_step_sampler(config: lm.CharLMConfig) -> dict:
    """One LSTM step on the training graph's variables: `input` [1] ids, `state_in`/`state_out` the (c, h) of every
    layer as [1, hidden] tensors, `temperature`, `probs` the next character's distribution."""
    token = tf.placeholder(tf.int32, [1], name="sample_input")
    temperature = tf.placeholder_with_default(1.0, [], name="sample_temperature")
    state_in = [tf.placeholder(tf.float32, [1, config.hidden_size], name=f"sample_state_{i}")
                for i in range(2 * config.num_layers)]
    initial = tuple(tf.nn.rnn_cell.LSTMStateTuple(state_in[2 * i], state_in[2 * i + 1])
                    for i in range(config.num_layers))
    logits, final = _lstm(config, [token], initial)
    state_out = [t for layer in final for t in (layer.c, layer.h)]
    return {"input": token, "temperature": temperature, "state_in": state_in, "state_out": state_out,
            "probs": tf.nn.softmax(logits[0][0] / temperature)}
