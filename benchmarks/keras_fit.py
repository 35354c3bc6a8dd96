"""Keras `fit` throughput: the same MLP (784-128-10) and small CNN on MNIST in webflow.keras, tf_keras and a PyTorch
loop of the same model, steps/s, one JSON line per engine and model.

    python benchmarks/keras_fit.py [--tf-python PATH] [--torch-python PATH] [--examples 12800] [--batch-size 128]
                                   [--rounds 2] [--run-eagerly]

webflow and tf_keras run the same Keras source (MODELS below; tf_keras from --tf-python or $WEBFLOW_TF_PYTHON with
TF_USE_LEGACY_KERAS=1), PyTorch its twin (`torch_model`) with the same optimizer (Adam 1e-3) and loss (sparse
cross-entropy from logits); an engine without an interpreter is skipped. Each engine runs in its own process, one
after the other, with --threads intra-op threads (default 1: on a shared machine more threads mostly wait); a
first epoch warms up (tracing, allocation), the second is timed; each figure is the engine's best of --rounds
rounds. Data: the first --examples MNIST training images from $WEBFLOW_DATA/mnist.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

MODELS = {
    "mlp": """
model = keras.Sequential([keras.layers.Flatten(input_shape=(28, 28, 1)), keras.layers.Dense(128, activation="relu"),
                          keras.layers.Dense(10)])
""",
    "cnn": """
model = keras.Sequential([keras.layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
                          keras.layers.MaxPooling2D(), keras.layers.Conv2D(64, 3, activation="relu"),
                          keras.layers.MaxPooling2D(), keras.layers.Flatten(), keras.layers.Dense(10)])
""",
}


def mnist(examples: int) -> tuple:
    import numpy as np
    folder = os.path.join(os.environ["WEBFLOW_DATA"], "mnist")

    def idx(name: str) -> np.ndarray:
        with gzip.open(os.path.join(folder, name)) as file:
            data = file.read()
        dims = data[3]
        shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
        return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)

    images = idx("train-images-idx3-ubyte.gz")[:examples].astype(np.float32)[..., None] / 255.0
    return images, idx("train-labels-idx1-ubyte.gz")[:examples].astype(np.int64)


def keras_worker(engine: str, model_name: str, args: argparse.Namespace) -> dict:
    if engine == "tf_keras":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(args.threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        keras = tf.keras
    else:
        sys.path.insert(0, os.path.dirname(HERE))
        from webflow import keras
    x, y = mnist(args.examples)
    scope = {"keras": keras}
    exec(MODELS[model_name], scope)
    model = scope["model"]
    model.compile(keras.optimizers.Adam(1e-3), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=args.run_eagerly)
    model.fit(x, y, batch_size=args.batch_size, epochs=1, shuffle=False, verbose=0)   # warm-up: traces, allocates
    start = time.perf_counter()
    history = model.fit(x, y, batch_size=args.batch_size, epochs=1, shuffle=False, verbose=0)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "loss": float(history.history["loss"][-1])}


def torch_model(model_name: str):
    import torch.nn as nn
    if model_name == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64 * 5 * 5, 10))


def torch_worker(model_name: str, args: argparse.Namespace) -> dict:
    import torch
    torch.set_num_threads(args.threads)
    x, y = mnist(args.examples)
    x, y = torch.from_numpy(x.transpose(0, 3, 1, 2).copy()), torch.from_numpy(y)
    model = torch_model(model_name)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
    loss_fn = torch.nn.CrossEntropyLoss()

    def epoch() -> float:   # what fit does per step: forward, loss, backward, update, the running loss/accuracy
        total, correct = 0.0, 0
        for start in range(0, len(x), args.batch_size):
            images, labels = x[start:start + args.batch_size], y[start:start + args.batch_size]
            optimizer.zero_grad()
            logits = model(images)
            loss = loss_fn(logits, labels)
            loss.backward()
            optimizer.step()
            total += float(loss) * len(labels)
            correct += int((logits.argmax(1) == labels).sum())
        return total / len(x)

    epoch()
    start = time.perf_counter()
    loss = epoch()
    return {"seconds": time.perf_counter() - start, "loss": loss}


def worker(args: argparse.Namespace) -> None:
    engine, model_name = args.worker
    result = torch_worker(model_name, args) if engine == "pytorch" else keras_worker(engine, model_name, args)
    steps = -(-args.examples // args.batch_size)
    print(json.dumps({"engine": engine, "model": model_name, "steps_per_second": round(steps / result["seconds"], 1),
                      "steps": steps, "batch_size": args.batch_size, "final_loss": round(result["loss"], 4)}))


def run(python: str, engine: str, model_name: str, args: argparse.Namespace) -> dict:
    command = [python, os.path.abspath(__file__), "--worker", engine, model_name, "--examples", str(args.examples),
               "--batch-size", str(args.batch_size), "--threads", str(args.threads)]
    command += ["--run-eagerly"] if args.run_eagerly else []
    env = {**os.environ, "TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "",
           "OMP_NUM_THREADS": str(args.threads)}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{engine} {model_name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--torch-python", default=os.environ.get("WEBFLOW_TORCH_PYTHON"))
    parser.add_argument("--examples", type=int, default=12800)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="intra-op threads of TensorFlow and PyTorch")
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--run-eagerly", action="store_true", help="webflow/tf_keras: compile(run_eagerly=True)")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    engines = {"webflow": sys.executable, "tf_keras": args.tf_python, "pytorch": args.torch_python}
    for model_name in args.models:
        best: dict = {}
        for _ in range(args.rounds):
            for engine, python in engines.items():
                if python:
                    result = run(python, engine, model_name, args)
                    if engine not in best or result["steps_per_second"] > best[engine]["steps_per_second"]:
                        best[engine] = result
        for result in best.values():
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
