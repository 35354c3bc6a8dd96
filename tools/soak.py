"""`make soak`: resident memory stays flat over long runs (issue 29's soak; not part of `make test`).

    python tools/soak.py                      # 100,000 Session.run steps, then 100,000 eager steps
    python tools/soak.py --steps 20000        # fewer of each (a loaded machine)

Each run trains a small model (a 2-layer MLP on a fixed batch, plain SGD): TF1 `Session.run(train_op)` on one
graph, then TF2 eager steps (GradientTape + assign_sub). Resident memory (/proc/self/statm) is read after a
warm-up (a tenth of the steps: caches, allocator pools and plans settle) and then every tenth; the run fails
if the last reading exceeds the warm-up one by more than 5%. Linux only (/proc). Prints one line per run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable

import numpy as np

MAX_GROWTH = 0.05
PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes() -> int:
    """This process's resident set size: statm's second field, in pages."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * PAGE


def data(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((32, 20)).astype(np.float32)
    return x, (x[:, :1] * 0.5 - x[:, 1:2]).astype(np.float32)


def session_steps() -> tuple[Callable[[], float], Callable[[], None]]:
    """(one Session.run training step -> loss, close)."""
    import webflow.compat.v1 as tf
    x_value, y_value = data()
    graph = tf.Graph()
    with graph.as_default():
        x, y = tf.placeholder(tf.float32, [None, 20]), tf.placeholder(tf.float32, [None, 1])
        hidden = tf.layers.dense(x, 16, activation=tf.nn.relu)
        loss = tf.reduce_mean(tf.square(tf.layers.dense(hidden, 1) - y))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        session = tf.Session(graph=graph)
        session.run(tf.global_variables_initializer())
    feed = {x: x_value, y: y_value}
    return lambda: session.run([train, loss], feed)[1], session.close


def eager_steps() -> tuple[Callable[[], float], Callable[[], None]]:
    """(one eager GradientTape training step -> loss, nothing to close)."""
    import webflow as wf
    x_value, y_value = data()
    x, y = wf.constant(x_value), wf.constant(y_value)
    rng = np.random.default_rng(1)
    weights = [wf.Variable(rng.standard_normal(shape).astype(np.float32) * 0.1) for shape in ((20, 16), (16, 1))]
    biases = [wf.Variable(np.zeros(n, np.float32)) for n in (16, 1)]
    variables = weights + biases

    def step() -> float:
        with wf.GradientTape() as tape:
            hidden = wf.nn.relu(wf.matmul(x, weights[0]) + biases[0])
            loss = wf.reduce_mean(wf.square(wf.matmul(hidden, weights[1]) + biases[1] - y))
        for variable, grad in zip(variables, tape.gradient(loss, variables)):
            variable.assign_sub(0.01 * grad)
        return float(loss)

    return step, lambda: None


def soak(name: str, make: Callable, steps: int) -> bool:
    step, close = make()
    warm_up = max(1, steps // 10)
    first_loss = step()
    for _ in range(warm_up - 1):
        step()
    before, peak, started = resident_bytes(), 0, time.perf_counter()
    for done in range(warm_up, steps):
        loss = step()
        if done % warm_up == 0:
            peak = max(peak, resident_bytes())
    after = resident_bytes()
    close()
    growth = after / before - 1
    print(f"{name}: {steps} steps in {time.perf_counter() - started:.1f} s after {warm_up} warm-up; resident "
          f"{before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB ({growth:+.2%}; peak {max(peak, after) / 2**20:.1f}"
          f" MiB); loss {first_loss:.4f} -> {loss:.4f}", flush=True)
    return growth <= MAX_GROWTH and loss < first_loss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="steps of each run (default 100,000)")
    parser.add_argument("--only", choices=("session", "eager"), help="one of the two runs")
    options = parser.parse_args(argv)
    runs = {"session": session_steps, "eager": eager_steps}
    results = [soak(name, make, options.steps) for name, make in runs.items() if options.only in (None, name)]
    if not all(results):
        print(f"soak: FAILED (resident memory grew more than {MAX_GROWTH:.0%}, or the loss did not fall)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
