"""CNN training throughput: the Deep MNIST CNN on webflow, TensorFlow and PyTorch, side by side.

    python benchmarks/cnn_throughput.py [--tf-python PATH] [--torch-python PATH] [--threads 2] [--batches 50 128]
                                        [--rounds 3] [--no-layers]

Each framework runs in its own worker process, one after the other (they would fight over the cores if
run at once), taking turns for --rounds rounds, the first framework of a round rotating. A worker reports
its best block of steps (images/s) and the process CPU time per step (all its threads). The table shows the
median over the rounds of both, with ratios webflow / peer, and the load average (`uptime`) of each round:
on a shared VM the wall-clock ratio is partly the neighbours' doing, the CPU-time ratio the engines' own.
Then per layer the forward and forward+backward milliseconds (each framework's best round).
webflow and TensorFlow run the same TF1 code (cnn_model_tf1.py), PyTorch its twin (cnn_model_torch.py).
TensorFlow's interpreter comes from --tf-python or $WEBFLOW_TF_PYTHON, PyTorch's from --torch-python or
$WEBFLOW_TORCH_PYTHON; a framework without an interpreter is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
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
    """{framework: [one result per round]}, the frameworks taking turns within a round and each leading one
    round in turn: on a shared VM a neighbour's load comes and goes over seconds, so one run each can favour
    whichever ran in a quiet moment (the same code measured 0.74x and 1.01x TensorFlow's rate in two single
    runs)."""
    common = ["--batches", *map(str, args.batches), "--threads", str(args.threads), "--steps", str(args.steps)]
    common += ["--no-layers"] if args.no_layers else []
    workers = {"webflow": (sys.executable, "cnn_model_tf1.py", ["webflow", *common])}
    if args.tf_python:
        workers["tensorflow"] = (args.tf_python, "cnn_model_tf1.py", ["tensorflow", *common])
    if args.torch_python:
        workers["pytorch"] = (args.torch_python, "cnn_model_torch.py", common)
    results: dict = {name: [] for name in workers}
    names = list(workers)
    for round_number in range(args.rounds):
        for name in names[round_number % len(names):] + names[:round_number % len(names)]:
            result = run_worker(*workers[name])
            result["load_average"] = os.getloadavg()[0]
            results[name].append(result)
    return results


def median_of(rounds: list, measure: str, batch: int) -> float:
    return statistics.median(result[measure][str(batch)] for result in rounds)


def best_layers(rounds: list) -> dict:
    """The lowest milliseconds of each layer and measure over a framework's rounds."""
    best: dict = {}
    for result in rounds:
        for batch, layers in result.get("layers", {}).items():
            for layer, times in layers.items():
                kept = best.setdefault(batch, {}).setdefault(layer, dict(times))
                for measure, value in times.items():
                    kept[measure] = min(kept[measure], value)
    return best


def summary(results: dict, batches: list) -> dict:
    """{framework: {"images_per_second": {batch: median}, "cpu_ms_per_step": {batch: median}, "layers": best,
    "load_averages": [...]}} (make_report.py reads images_per_second)."""
    return {name: {"images_per_second": {str(b): median_of(rounds, "images_per_second", b) for b in batches},
                   "cpu_ms_per_step": {str(b): median_of(rounds, "cpu_ms_per_step", b) for b in batches},
                   "layers": best_layers(rounds), "load_averages": [r["load_average"] for r in rounds]}
            for name, rounds in results.items()}


def print_table(results: dict, batches: list) -> None:
    names = list(results)
    peers = names[1:]
    loads = [result["load_average"] for rounds in results.values() for result in rounds]
    print(f"median of {len(results['webflow'])} rounds; load average (1 min) {min(loads):.1f}-{max(loads):.1f}")
    header = "".join(f"{name:>12}" for name in names) + "".join(f"{'vs ' + peer:>14}" for peer in peers)
    for title, measure in (("training images/s", "images_per_second"), ("CPU images/s", "cpu_ms_per_step")):
        print(f"{title:<34}{header}")
        for batch in batches:
            values = [median_of(results[name], measure, batch) for name in names]
            rates = values if measure == "images_per_second" else [1e3 * batch / ms for ms in values]
            ratios = "".join(f"{rates[0] / rate:>13.2f}x" for rate in rates[1:])
            print(f"{'  batch ' + str(batch):<34}" + "".join(f"{rate:>12,.0f}" for rate in rates) + ratios)
    layers = {name: best_layers(rounds) for name, rounds in results.items()}
    for batch in batches if layers["webflow"] else []:
        print(f"\nper layer, batch {batch}, ms (best round; ratio = webflow / peer, below 1 is faster)")
        for layer in layers["webflow"][str(batch)]:
            for measure in ("forward_ms", "forward_backward_ms"):
                times = [layers[name][str(batch)][layer][measure] for name in names]
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
    parser.add_argument("--rounds", type=int, default=3, help="interleaved runs per framework; the median counts")
    parser.add_argument("--no-layers", action="store_true", help="whole training steps only")
    parser.add_argument("--json", action="store_true", help="print the medians as JSON instead of a table")
    args = parser.parse_args()
    results = collect(args)
    if args.json:
        print(json.dumps(summary(results, args.batches)))
    else:
        print_table(results, args.batches)


if __name__ == "__main__":
    main()
