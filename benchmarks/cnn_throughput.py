"""CNN training throughput: the Deep MNIST CNN on webflow, TensorFlow and PyTorch, side by side.

    python benchmarks/cnn_throughput.py [--tf-python PATH] [--torch-python PATH] [--threads 2] [--batches 50 128]
                                        [--rounds 3]

Each framework runs in its own worker process, one after the other (they would fight over the cores if
run at once), taking turns for --rounds rounds; each number is that framework's best round. webflow and
TensorFlow run the same TF1 code (cnn_model_tf1.py), PyTorch its twin (cnn_model_torch.py). TensorFlow's
interpreter comes from --tf-python or $WEBFLOW_TF_PYTHON, PyTorch's from --torch-python or
$WEBFLOW_TORCH_PYTHON; a framework without an interpreter is skipped. Prints a table: training images/s
per batch size, then per layer the forward and forward+backward milliseconds, with ratios webflow / peer
(for images/s above 1 means webflow is faster; for milliseconds below 1).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_worker(python: str, script: str, arguments: list) -> dict:
    command = [python, os.path.join(HERE, script), *arguments]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def collect(args: argparse.Namespace) -> dict:
    """Each framework's best over `args.rounds` rounds, the frameworks taking turns within a round: on a
    shared VM a neighbour's load comes and goes over seconds, so one run each can favour whichever ran in a
    quiet moment (the same code measured 0.74x and 1.01x TensorFlow's rate in two single runs)."""
    common = ["--batches", *map(str, args.batches), "--threads", str(args.threads), "--steps", str(args.steps)]
    workers = {"webflow": (sys.executable, "cnn_model_tf1.py", ["webflow", *common])}
    if args.tf_python:
        workers["tensorflow"] = (args.tf_python, "cnn_model_tf1.py", ["tensorflow", *common])
    if args.torch_python:
        workers["pytorch"] = (args.torch_python, "cnn_model_torch.py", common)
    results: dict = {}
    for _ in range(args.rounds):
        for name, worker in workers.items():
            results[name] = best_of(results.get(name), run_worker(*worker))
    return results


def best_of(best: dict | None, new: dict) -> dict:
    """The higher images/s and the lower milliseconds of two results of one framework."""
    if best is None:
        return new
    for batch, rate in new["images_per_second"].items():
        best["images_per_second"][batch] = max(best["images_per_second"][batch], rate)
    for batch, layers in new["layers"].items():
        for layer, times in layers.items():
            for measure, value in times.items():
                kept = best["layers"][batch][layer]
                kept[measure] = min(kept[measure], value)
    return best


def print_table(results: dict, batches: list) -> None:
    names = list(results)
    peers = names[1:]
    header = "".join(f"{name:>12}" for name in names) + "".join(f"{'vs ' + peer:>14}" for peer in peers)
    print(f"{'training images/s':<34}{header}")
    for batch in batches:
        rates = [results[name]["images_per_second"][str(batch)] for name in names]
        ratios = "".join(f"{rates[0] / rate:>13.2f}x" for rate in rates[1:])
        print(f"{'  batch ' + str(batch):<34}" + "".join(f"{rate:>12,.0f}" for rate in rates) + ratios)
    for batch in batches:
        print(f"\nper layer, batch {batch}, ms (ratio = webflow / peer, below 1 is faster)")
        for layer in results["webflow"]["layers"][str(batch)]:
            for measure in ("forward_ms", "forward_backward_ms"):
                times = [results[name]["layers"][str(batch)][layer][measure] for name in names]
                ratios = "".join(f"{times[0] / value:>13.2f}x" for value in times[1:])
                label = f"  {layer} {'fwd' if measure == 'forward_ms' else 'fwd+bwd'}"
                print(f"{label:<34}" + "".join(f"{value:>12.2f}" for value in times) + ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--torch-python", default=os.environ.get("WEBFLOW_TORCH_PYTHON"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[50, 128])
    parser.add_argument("--steps", type=int, default=10, help="timed training steps per repeat")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved runs per framework; the best counts")
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON instead of a table")
    args = parser.parse_args()
    results = collect(args)
    if args.json:
        print(json.dumps(results))
    else:
        print_table(results, args.batches)


if __name__ == "__main__":
    main()
