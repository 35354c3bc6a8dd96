"""The PyTorch peer of word_lm_model.py: Embedding -> nn.LSTM(2 layers, 200) -> Linear, the same sizes, cost, SGD
schedule, clipping and carried state, started from the same initial values as the TF1 program.

TensorFlow's BasicLSTMCell keeps one kernel [input + hidden, 4 * hidden] with the gates in the order
(input, new input j, forget, output) and one bias; nn.LSTM keeps weight_ih / weight_hh ([4 * hidden, ...], gates
(input, forget, cell g, output)) and two biases. The loader transposes and reorders, and sets bias_hh to zero and
frozen (two trained biases would double the bias' step and count its gradient twice in the clipping norm).
forget_bias is 0.0 in the small config, so no constant is added to the forget gate in either engine.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import word_lm_corpus as corpus
import word_lm_model as m


def tf_names(config: m.WordLMConfig) -> list[tuple[str, list[int]]]:
    """The TF1 program's trainable variables (names and shapes), in its creation order."""
    size = config.hidden_size
    cells = []
    for layer in range(config.num_layers):
        prefix = f"Model/RNN/multi_rnn_cell/cell_{layer}/basic_lstm_cell"
        cells += [(f"{prefix}/kernel", [2 * size, 4 * size]), (f"{prefix}/bias", [4 * size])]
    return ([("Model/embedding", [config.vocab_size, size])] + cells
            + [("Model/softmax_w", [size, config.vocab_size]), ("Model/softmax_b", [config.vocab_size])])


def build(config: m.WordLMConfig, values: dict) -> Any:
    import torch

    size = config.hidden_size
    model = torch.nn.ModuleDict({"embed": torch.nn.Embedding(config.vocab_size, size),
                                 "lstm": torch.nn.LSTM(size, size, config.num_layers, batch_first=True),
                                 "out": torch.nn.Linear(size, config.vocab_size)})
    gates = list(range(0, size)) + list(range(2 * size, 3 * size)) + list(range(size, 2 * size)) \
        + list(range(3 * size, 4 * size))   # torch's (i, f, g, o) taken from TensorFlow's (i, j, f, o)
    with torch.no_grad():
        model["embed"].weight.copy_(torch.from_numpy(values["Model/embedding"]))
        for layer in range(config.num_layers):
            prefix = f"Model/RNN/multi_rnn_cell/cell_{layer}/basic_lstm_cell"
            kernel = torch.from_numpy(values[f"{prefix}/kernel"])[:, gates]
            getattr(model["lstm"], f"weight_ih_l{layer}").copy_(kernel[:size].T)
            getattr(model["lstm"], f"weight_hh_l{layer}").copy_(kernel[size:].T)
            getattr(model["lstm"], f"bias_ih_l{layer}").copy_(torch.from_numpy(values[f"{prefix}/bias"])[gates])
            getattr(model["lstm"], f"bias_hh_l{layer}").zero_()
            getattr(model["lstm"], f"bias_hh_l{layer}").requires_grad_(False)  # TF has one bias: train one
        model["out"].weight.copy_(torch.from_numpy(values["Model/softmax_w"]).T)
        model["out"].bias.copy_(torch.from_numpy(values["Model/softmax_b"]))
    return model


def trainable(model: Any) -> list:
    return [p for p in model.parameters() if p.requires_grad]


def run_epoch(model: Any, config: m.WordLMConfig, data: list, optimizer: Any | None,
              progress: Callable | None = None) -> float:
    import torch

    zeros = torch.zeros(config.num_layers, config.batch_size, config.hidden_size)
    state = (zeros, zeros.clone())
    costs, iters, start = 0.0, 0, time.perf_counter()
    for k, (x, y) in enumerate(data):
        x, y = torch.tensor(x), torch.tensor(y)
        with torch.set_grad_enabled(optimizer is not None):
            outputs, state = model["lstm"](model["embed"](x), state)
            logits = model["out"](outputs).reshape(-1, config.vocab_size)
            cost = torch.nn.functional.cross_entropy(logits, y.reshape(-1), reduction="sum") / config.batch_size
        if optimizer is not None:
            optimizer.zero_grad()
            cost.backward()
            torch.nn.utils.clip_grad_norm_(trainable(model), config.max_grad_norm)
            optimizer.step()
        state = (state[0].detach(), state[1].detach())
        costs += float(cost.detach())
        iters += config.num_steps
        if progress is not None:
            words = (k + 1) * config.batch_size * config.num_steps
            progress((k + 1) / len(data), math.exp(costs / iters), words / (time.perf_counter() - start))
    return math.exp(costs / iters)


def train(args: argparse.Namespace, data: corpus.Corpus, config: m.WordLMConfig, log: Callable) -> dict:
    import torch

    torch.set_num_threads(args.threads)
    names = tf_names(config)
    model = build(config, corpus.initial_values(names, config.init_scale, args.seed))
    optimizer = torch.optim.SGD(trainable(model), lr=config.learning_rate)
    train_data = m.batches(data.train, config.batch_size, config.num_steps)
    valid_data = m.batches(data.valid, config.batch_size, config.num_steps)
    history = []
    for epoch in range(config.max_max_epoch):
        lr = config.learning_rate_at(epoch)
        for group in optimizer.param_groups:
            group["lr"] = lr
        log(f"Epoch: {epoch + 1} Learning rate: {lr:.3f}")
        bar = None if args.no_progress else m.progress_bar(f"epoch {epoch + 1}")
        start = time.perf_counter()
        train_perplexity = run_epoch(model, config, train_data, optimizer, bar)
        seconds = time.perf_counter() - start
        valid_perplexity = run_epoch(model, config, valid_data, None)
        words = len(train_data) * config.batch_size * config.num_steps
        log(f"Epoch: {epoch + 1} Train Perplexity: {train_perplexity:.3f} Valid Perplexity: {valid_perplexity:.3f}"
            f" ({words / seconds:.0f} words/s)")
        history.append({"epoch": epoch + 1, "lr": lr, "train_perplexity": train_perplexity,
                        "valid_perplexity": valid_perplexity, "seconds": seconds, "words_per_s": words / seconds})
    return {"history": history, "variables": [name for name, _ in names]}
