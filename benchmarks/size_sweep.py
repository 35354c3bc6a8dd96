"""Size sweep: webflow next to TensorFlow and PyTorch, op by op, from 1 element to 4 M, eager and graph mode.

    PYTHONPATH=. python benchmarks/size_sweep.py [--tf-python PATH] [--torch-python PATH] [--quick]
                                                 [--rounds 9] [--ops matmul,add] [--json benchmarks/size_sweep.json]
                                                 [--only 256x256,softmax] [--engines webflow,tensorflow] [--load 8]
                                                 [--baseline /tmp/head]   (another checkout: before / after)

Ops: matmul (8^2 ... 1024^2; A.B everywhere, A^T.B and A.B^T at some sizes), conv2d (NHWC, SAME, stride 1),
add / mul / relu, reduce_sum / reduce_mean (whole tensor), softmax (last axis of at most 1024), all float32.
Eager: one op call on existing tensors. Graph: one Session.run of the op on variables (TF1, the same code for
webflow and TensorFlow; values fetched). PyTorch: eager only, conv2d in its native NCHW.

Each engine is a worker process (size_sweep_worker.py) under its own interpreter, all alive at once; the driver
asks them in turn for one block of calls (about 4 ms, after one untimed call) of the same case, rotating which
engine goes first, with --gap seconds of idle before each block (an engine's BLAS / OpenMP threads keep spinning
for a while after its work and would steal the 2 cores from the next engine), for --rounds rounds, and keeps
each engine's median: a neighbour's load on the shared machine then hurts every engine alike.
--load N starts N busy Python loops for the run (a classroom machine that other work keeps busy: more runnable
threads than cores) and stops them at the end; --only keeps the cases whose "op label" contains one of its words.
TensorFlow's interpreter: --tf-python or $WEBFLOW_TF_PYTHON; PyTorch's: --torch-python or $WEBFLOW_TORCH_PYTHON
(or the repository's .venv-tf / .venv-torch when present); a missing peer is skipped.

Prints the load average, the CPU model, the peak FLOP/s (peak_flops.py), then a table of microseconds per call
and the ratios webflow / TensorFlow and webflow / PyTorch (above 1: webflow is slower); one JSON line per
point, and the whole run as one JSON file (--json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import peak_flops  # noqa: E402 - benchmarks/ is not a package

ENGINES = ("webflow", "tensorflow", "pytorch")
ELEMENT_SIZES = (1, 64, 4096, 1 << 16, 1 << 18, 1 << 20, 1 << 22)
QUICK_ELEMENT_SIZES = (1, 4096, 1 << 16, 1 << 20, 1 << 22)
MATMUL_SIZES = (8, 16, 32, 64, 100, 128, 256, 384, 512, 768, 1024)
QUICK_MATMUL_SIZES = (8, 64, 100, 256, 512, 1024)
TRANSPOSED_SIZES = (64, 256, 1024)
CONV_SHAPES = (  # (input NHWC, filter HWIO): the Deep MNIST CNN's two convolutions, and a ResNet-style 3x3
    ((50, 28, 28, 1), (5, 5, 1, 32)),
    ((50, 14, 14, 32), (5, 5, 32, 64)),
    ((8, 56, 56, 64), (3, 3, 64, 64)),
)


def cases(ops: set, quick: bool) -> list:
    """Each case: {"op", "label", "shapes", "flops"?, ...}; the worker builds it from these fields."""
    found = []
    for n in QUICK_MATMUL_SIZES if quick else MATMUL_SIZES:
        for ta, tb in ((False, False), (True, False), (False, True)):
            if (ta or tb) and n not in TRANSPOSED_SIZES:
                continue
            name = "A^T.B" if ta else "A.B^T" if tb else "A.B"
            found.append({"op": "matmul", "label": f"{name} {n}x{n}", "shapes": [[n, n], [n, n]],
                          "ta": ta, "tb": tb, "flops": 2 * n ** 3})
    for x, w in CONV_SHAPES:
        flops = 2 * x[0] * x[1] * x[2] * w[0] * w[1] * w[2] * w[3]
        found.append({"op": "conv2d", "label": f"{'x'.join(map(str, x))} * {'x'.join(map(str, w))}",
                      "shapes": [list(x), list(w)], "flops": flops})
    for size in QUICK_ELEMENT_SIZES if quick else ELEMENT_SIZES:
        for op in ("add", "mul", "relu", "sum", "mean"):
            shapes = [[size], [size]] if op in ("add", "mul") else [[size]]
            found.append({"op": op, "label": f"{size}", "shapes": shapes})
        last = min(size, 1024)
        found.append({"op": "softmax", "label": f"{size // last}x{last}", "shapes": [[size // last, last]]})
    return [case for case in found if case["op"] in ops]


class Worker:
    """One engine's worker process, answering a block's per-call seconds per request."""

    def __init__(self, engine: str, python: str, repo: str = REPO) -> None:
        """`repo`: the checkout whose webflow (and worker script) runs: another one for --baseline."""
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=repo if engine == "webflow" else "")
        script = os.path.join(repo, "benchmarks", "size_sweep_worker.py")
        self.process = subprocess.Popen([python, script, engine], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.info = json.loads(self.process.stdout.readline())

    def time(self, case: dict, mode: str) -> float | str:
        self.process.stdin.write(json.dumps({"case": case, "mode": mode}) + "\n")
        answer = json.loads(self.process.stdout.readline())
        return answer.get("seconds", answer.get("error", "error"))

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=60)


def interpreters(args: argparse.Namespace) -> dict:
    def default(name: str) -> str | None:
        path = os.path.join(REPO, name, "bin", "python")
        return path if os.path.exists(path) else None

    found = {"webflow": sys.executable,
             "tensorflow": args.tf_python or os.environ.get("WEBFLOW_TF_PYTHON") or default(".venv-tf"),
             "pytorch": args.torch_python or os.environ.get("WEBFLOW_TORCH_PYTHON") or default(".venv-torch")}
    return {engine: python for engine, python in found.items() if python}


def measure_case(workers: dict, case: dict, mode: str, rounds: int, gap: float) -> dict:
    """Each engine's median per-call microseconds over `rounds` interleaved blocks (or its error text)."""
    engines = [engine for engine in workers if mode == "eager" or engine != "pytorch"]
    samples: dict = {engine: [] for engine in engines}
    for round_index in range(rounds):
        shift = round_index % len(engines)  # who goes first rotates: no engine always follows a warm cache
        for engine in engines[shift:] + engines[:shift]:
            time.sleep(gap)  # the engine before may leave threads spinning (OpenBLAS, OpenMP) for a while
            result = workers[engine].time(case, mode)
            samples[engine].append(result)
            if isinstance(result, str):
                break
    medians = {}
    for engine, values in samples.items():
        errors = [value for value in values if isinstance(value, str)]
        medians[engine] = errors[0] if errors else statistics.median(values) * 1e6
    return medians


def point(case: dict, mode: str, medians: dict) -> dict:
    line = {"benchmark": "size_sweep", "op": case["op"], "case": case["label"], "mode": mode, "unit": "us"}
    for engine, value in medians.items():
        line[engine] = round(value, 2) if isinstance(value, float) else value
    mine = medians.get("webflow")
    for peer, key in (("tensorflow", "ratio_tf"), ("pytorch", "ratio_torch"), ("baseline", "ratio_baseline")):
        if isinstance(mine, float) and isinstance(medians.get(peer), float):
            line[key] = round(mine / medians[peer], 2)
    if "flops" in case:
        for engine, value in medians.items():
            if isinstance(value, float):
                line[f"gflops_{engine}"] = round(case["flops"] / value / 1e3, 1)
    return line


def cell(value: object, width: int = 10) -> str:
    if isinstance(value, float | int):
        return f"{value:>{width}.2f}" if value < 100 else f"{value:>{width}.0f}"
    return f"{'n/a' if value is None else 'error':>{width}}"


def machine() -> dict:
    model = "?"
    try:
        with open("/proc/cpuinfo") as file:
            model = next((line.split(":", 1)[1].strip() for line in file if line.startswith("model name")), "?")
    except OSError:
        pass
    load = subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    return {"cpu_model": model, "cpus": os.cpu_count(), "uptime": load}


def main() -> None:
    parser = argparse.ArgumentParser(description="webflow vs TensorFlow vs PyTorch, op by op and size by size")
    parser.add_argument("--tf-python")
    parser.add_argument("--torch-python")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and rounds")
    parser.add_argument("--rounds", type=int, help="interleaved blocks per engine and case (default 9, quick 5)")
    parser.add_argument("--ops", help="comma-separated subset of matmul,conv2d,add,mul,relu,sum,mean,softmax")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds of idle before each engine's block")
    parser.add_argument("--modes", default="eager,graph")
    parser.add_argument("--only", help="comma-separated words: only cases whose 'op label' contains one of them")
    parser.add_argument("--engines", default=",".join(ENGINES), help="comma-separated subset of the engines")
    parser.add_argument("--load", type=int, default=0, help="busy processes to run alongside (a loaded machine)")
    parser.add_argument("--baseline", help="another checkout (e.g. `git archive HEAD` unpacked) whose webflow runs "
                        "as engine 'baseline', in the torch column: before / after a change, in the same run")
    parser.add_argument("--json", default=os.path.join(HERE, "size_sweep.json"), help="the whole run as JSON")
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 9)
    ops = set((args.ops or "matmul,conv2d,add,mul,relu,sum,mean,softmax").split(","))
    chosen = [case for case in cases(ops, args.quick)
              if not args.only or any(word in f"{case['op']} {case['label']}" for word in args.only.split(","))]
    busy = busy_loops(args.load)
    try:
        sweep(args, rounds, chosen)
    finally:
        for process in busy:
            process.kill()
            process.wait()


def busy_loops(count: int) -> list:
    """`count` processes that only spin (stopped by the caller): more runnable threads than cores."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def sweep(args: argparse.Namespace, rounds: int, chosen: list) -> None:
    time.sleep(1 if args.load else 0)  # the busy loops are running before the first block
    run = {"benchmark": "size_sweep", "machine": machine(), "quick": args.quick, "rounds": rounds,
           "load_processes": args.load}
    print(f"# {run['machine']['cpu_model']}, {run['machine']['cpus']} CPUs; {run['machine']['uptime']}"
          + (f"; {args.load} busy processes started" if args.load else ""))
    run["peak"] = peak_flops.measure(os.cpu_count() or 1, 0.2)
    print(f"# peak float32: {run['peak']['gflops_1_thread']} GFLOP/s on 1 thread, "
          f"{run['peak']['gflops_all_threads']} on {run['peak']['threads']} ({run['peak']['flags']})")
    workers = {engine: Worker(engine, python) for engine, python in interpreters(args).items()
               if engine in args.engines.split(",")}
    if args.baseline:
        workers["baseline"] = Worker("webflow", sys.executable, os.path.abspath(args.baseline))
    third, third_ratio = ("baseline", "ratio_baseline") if args.baseline else ("pytorch", "ratio_torch")
    run["engines"] = {engine: worker.info for engine, worker in workers.items()}
    print("# " + ", ".join(f"{e} {w.info['version']}" for e, w in workers.items()) + f"; median of {rounds}")
    print(f"{'mode':<6}{'op':<8}{'case':<26}{'webflow':>10}{'tf':>10}{third[:5]:>10}{'wf/tf':>8}"
          f"{'wf/' + third[:4]:>9}"
          f"{'wf GF/s':>9}")
    started, points = time.time(), []
    try:
        for mode in args.modes.split(","):
            for case in chosen:
                line = point(case, mode, measure_case(workers, case, mode, rounds, args.gap))
                points.append(line)
                print(f"{mode:<6}{case['op']:<8}{case['label']:<26}{cell(line.get('webflow'))}"
                      f"{cell(line.get('tensorflow'))}{cell(line.get(third))}{cell(line.get('ratio_tf'), 8)}"
                      f"{cell(line.get(third_ratio), 9)}{cell(line.get('gflops_webflow'), 9)}", flush=True)
    finally:
        for worker in workers.values():
            worker.close()
    run["seconds"] = round(time.time() - started, 1)
    run["machine"]["uptime_after"] = machine()["uptime"]
    run["points"] = points
    for line in points:
        print(json.dumps(line))
    write_json(args.json, run)


def write_json(path: str, data: dict) -> None:
    """Temp file + rename: never a half-written file."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "w") as file:
        json.dump(data, file, indent=1)
    os.replace(temporary, path)


if __name__ == "__main__":
    main()
