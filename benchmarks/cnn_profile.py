"""Where a Deep MNIST CNN training step spends its time, per layer, webflow next to TensorFlow.

    PYTHONPATH=. python benchmarks/cnn_profile.py --tf-python .venv-tf/bin/python [--batch 50] [--steps 20]
                                                  [--rounds 3] [--threads 2]

Each engine runs cnn_model_tf1.py's CNN (the very same TF1 code) in a worker process and traces --steps
training steps with RunOptions(FULL_TRACE): webflow's RunMetadata and TensorFlow's step stats give each op's
time. The ops are grouped by the layer whose name scope they carry (gradients/conv1/... is conv1's backward,
Adam/update_conv1/... its optimizer update; a fused step counts for the layer of the op it is named after:
webflow's _FusedMaxPoolGrad ends in conv's ReluGrad), each group's minimum (or --statistic median) over the
steps is kept (on a loaded machine the minimum is the least inflated), and the engines take turns for
--rounds rounds (the best of each group counts). Prints one table: layer, forward, backward
and update milliseconds, webflow | TensorFlow, with the ratio (below 1: webflow takes less time), then each
engine's op types by total time. Traced ops are timed one by one: TensorFlow runs independent ops in parallel
on its inter-op pool, so its columns add up to more than its step's wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ("forward", "backward", "update")


def node_stats(run_metadata) -> list:
    """(name, op type, microseconds) of each op a traced run ran, from either engine's RunMetadata."""
    rows = []
    for device in run_metadata.step_stats.dev_stats:
        nodes = getattr(device, "node_stats", None)
        for node in nodes if nodes is not None else [device]:
            op_type = node.timeline_label.split(" = ")[-1].split("(")[0] if node.timeline_label else ""
            rows.append((node.node_name, getattr(node, "op_type", "") or op_type, node.all_end_rel_micros))
    return rows


def phase_and_layer(name: str) -> tuple:
    """('forward' | 'backward' | 'update', layer scope) of an op name under cnn_model_tf1's scopes."""
    parts = name.split("/")
    if parts[0] == "gradients":
        return "backward", parts[1] if len(parts) > 2 else "other"
    if parts[0] == "Adam" or parts[0].startswith("beta"):
        layer = parts[1].removeprefix("update_") if len(parts) > 2 and parts[1].startswith("update_") else "adam"
        return "update", layer
    return "forward", parts[0] if len(parts) > 1 else "other"


def profile(framework: str, batch: int, steps: int, threads: int, statistic: str = "min") -> dict:
    sys.path.insert(0, HERE)
    import numpy as np
    from cnn_model_tf1 import build_cnn, load

    tf, config = load(framework, threads)
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        x, y_, keep_prob, train_op = build_cnn(tf, batch)
        feed = {x: rng.random((batch, 784), dtype="float32"),
                y_: rng.multinomial(1, [0.1] * 10, size=batch).astype("float32"), keep_prob: 0.5}
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train_op, feed)
            groups: dict = {}
            types: dict = {}
            for _ in range(steps):
                metadata = tf.RunMetadata()
                sess.run(train_op, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                         run_metadata=metadata)
                step_groups: dict = {}
                step_types: dict = {}
                for name, op_type, micros in node_stats(metadata):
                    key = "/".join(phase_and_layer(name))
                    step_groups[key] = step_groups.get(key, 0.0) + micros / 1e3
                    step_types[op_type] = step_types.get(op_type, 0.0) + micros / 1e3
                for key, ms in step_groups.items():
                    groups.setdefault(key, []).append(ms)
                for key, ms in step_types.items():
                    types.setdefault(key, []).append(ms)
    pick = min if statistic == "min" else statistics.median
    return {"groups": {key: pick(v) for key, v in groups.items()},
            "types": {key: pick(v) for key, v in types.items()}}


def run_worker(python: str, framework: str, args: argparse.Namespace) -> dict:
    command = [python, os.path.abspath(__file__), "--worker", framework, "--batch", str(args.batch),
               "--steps", str(args.steps), "--threads", str(args.threads), "--statistic", args.statistic]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def best(kept: dict | None, new: dict) -> dict:
    if kept is None:
        return new
    for part in ("groups", "types"):
        for key, value in new[part].items():
            kept[part][key] = min(kept[part].get(key, value), value)
    return kept


def print_tables(results: dict) -> None:
    names = list(results)
    layers = sorted({key.split("/")[1] for result in results.values() for key in result["groups"]})
    print(f"per-layer ms (the statistic over traced steps, best of rounds); ratio = {names[0]} / {names[-1]}")
    print(f"{'layer':<12}" + "".join(f"{phase + ' ' + name[:3]:>14}" for phase in PHASES for name in names)
          + "".join(f"{phase[:4] + ' ratio':>12}" for phase in PHASES))
    totals = {(phase, name): 0.0 for phase in PHASES for name in names}
    for layer in layers:
        row, ratios = "", ""
        for phase in PHASES:
            values = [results[name]["groups"].get(f"{phase}/{layer}", 0.0) for name in names]
            for name, value in zip(names, values):
                totals[phase, name] += value
            row += "".join(f"{value:>14.3f}" for value in values)
            ratios += f"{values[0] / values[-1]:>12.2f}" if values[-1] > 0.005 else f"{'':>12}"
        print(f"{layer:<12}{row}{ratios}")
    print(f"{'total':<12}" + "".join(f"{totals[phase, name]:>14.3f}" for phase in PHASES for name in names))
    for name in names:
        print(f"\n{name}: op types by ms per step")
        ranked = sorted(results[name]["types"].items(), key=lambda item: -item[1])
        print("  " + ", ".join(f"{op_type} {ms:.2f}" for op_type, ms in ranked[:16]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--statistic", choices=["min", "median"], default="min",
                        help="of each layer's time over the traced steps (min: what load did not inflate)")
    parser.add_argument("--worker", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(profile(args.worker, args.batch, args.steps, args.threads, args.statistic)))
        return
    engines = {"webflow": sys.executable}
    if args.tf_python:
        engines["tensorflow"] = args.tf_python
    results: dict = {}
    for _ in range(args.rounds):
        for name, python in engines.items():
            results[name] = best(results.get(name), run_worker(python, name, args))
    print(f"load average {os.getloadavg()[0]:.1f}, batch {args.batch}, {args.threads} threads")
    print_tables(results)


if __name__ == "__main__":
    main()
