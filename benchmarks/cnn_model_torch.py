"""The Deep MNIST CNN timed in PyTorch (CPU), the peer of cnn_model_tf1.py: same model, same shapes, same
measurements, NCHW as PyTorch prefers. Run as a worker by cnn_throughput.py under a PyTorch interpreter.

    python cnn_model_torch.py --batches 50 128 --threads 2
"""

from __future__ import annotations

import argparse
import json

import torch
from bench_timing import best_seconds, timed_steps
from torch import nn

# (layer, input shape without the batch (NCHW), module) mirroring cnn_model_tf1.LAYERS.
LAYERS = [
    ("conv1 5x5x1->32", (1, 28, 28), lambda: nn.Conv2d(1, 32, 5, padding=2, bias=False)),
    ("pool1 2x2", (32, 28, 28), lambda: nn.MaxPool2d(2)),
    ("conv2 5x5x32->64", (32, 14, 14), lambda: nn.Conv2d(32, 64, 5, padding=2, bias=False)),
    ("pool2 2x2", (64, 14, 14), lambda: nn.MaxPool2d(2)),
    ("fc1 3136->1024", (3136,), lambda: nn.Linear(3136, 1024, bias=False)),
    ("fc2 1024->10", (1024,), lambda: nn.Linear(1024, 10, bias=False)),
]


def build_cnn() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 1024), nn.ReLU(), nn.Dropout(0.5), nn.Linear(1024, 10))


def training_rate(batch: int, steps: int) -> tuple:
    torch.manual_seed(0)
    model = build_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    images = torch.rand(batch, 1, 28, 28)
    labels = torch.randint(0, 10, (batch,))

    def step():
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()

    seconds, cpu_seconds = timed_steps(step, steps)
    return batch / seconds, 1e3 * cpu_seconds


def time_layer(layer: nn.Module, batch: int, in_shape: tuple, number: int) -> dict:
    """Milliseconds for one layer's forward pass and for forward + backward (input and weight gradients)."""
    x = torch.rand(batch, *in_shape, requires_grad=True)
    with torch.no_grad():
        upstream = torch.rand_like(layer(x))

    def forward_only():
        with torch.no_grad():
            layer(x)

    def forward_backward():
        layer(x).backward(upstream)

    return {"forward_ms": 1e3 * best_seconds(forward_only, number),
            "forward_backward_ms": 1e3 * best_seconds(forward_backward, number)}


def layer_times(batch: int, number: int) -> dict:
    return {name: time_layer(make(), batch, in_shape, number) for name, in_shape, make in LAYERS}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, nargs="+", default=[50, 128])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-layers", action="store_true", help="training steps only")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    result = {"framework": "pytorch", "threads": args.threads, "images_per_second": {}, "cpu_ms_per_step": {},
              "layers": {}}
    for batch in args.batches:
        rate, cpu_ms = training_rate(batch, args.steps)
        result["images_per_second"][batch], result["cpu_ms_per_step"][batch] = rate, cpu_ms
        if not args.no_layers:
            result["layers"][batch] = layer_times(batch, max(3, args.steps // 2))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
