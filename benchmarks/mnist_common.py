"""What the three MNIST tutorial scripts share: arguments, the data, timing and batched evaluation.

Kept apart so each tutorial script reads as the plain TF1 program it reproduces.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # run from a checkout without installing

from webflow.datasets import tutorial_reader  # noqa: E402


def parse_args(description: str, steps: int, batch_size: int) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA"),
                        help="folder with the four MNIST IDX files (or its parent); default $WEBFLOW_DATA")
    parser.add_argument("--steps", type=int, default=steps, help=f"training steps; default {steps}")
    parser.add_argument("--batch-size", type=int, default=batch_size, help=f"default {batch_size}")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log-every", type=int, default=1000)
    args = parser.parse_args()
    if not args.data:
        parser.error("give --data DIR or set WEBFLOW_DATA (the full MNIST, e.g. ../shared/data/mnist)")
    return args


def read_mnist(args: argparse.Namespace):
    """The TF1 tutorial's `input_data.read_data_sets(dir, one_hot=True)`: 55k train, 5k validation, 10k test."""
    return tutorial_reader.read_data_sets(args.data, one_hot=True, seed=args.seed)


def batched_accuracy(session, accuracy, feeds: dict, images, labels, chunk: int = 1000) -> float:
    """Mean of `accuracy` over the test set in chunks (the CNN's activations for 10,000 images at once are ~1 GB)."""
    x, y = feeds["x"], feeds["y"]
    extra = {k: v for k, v in feeds.items() if k not in ("x", "y")}
    correct = 0.0
    for start in range(0, len(images), chunk):
        part = slice(start, start + chunk)
        correct += session.run(accuracy, {x: images[part], y: labels[part], **extra}) * len(images[part])
    return correct / len(images)


class Clock:
    """Wall time since construction, for the progress lines and the final report."""

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self.start


def report(name: str, steps: int, batch_size: int, clock: Clock, test_accuracy: float) -> None:
    seconds = clock.seconds()
    print(f"{name}: {steps} steps of batch {batch_size} in {seconds:.1f} s "
          f"({steps * batch_size / seconds:,.0f} examples/s incl. evaluation); "
          f"test accuracy {100 * test_accuracy:.2f}%")
