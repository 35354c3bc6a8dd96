"""Training steps/s of the PTB-small word LM (word_lm_model.py), webflow and TensorFlow back to back.

    PYTHONPATH=. python benchmarks/word_lm_steps.py --tf-python .venv-tf/bin/python [--vocab 10000] [--rounds 3]
    PYTHONPATH=. python benchmarks/word_lm_steps.py --worker webflow --profile 5   # cProfile of 5 steps

The same program as word_lm.py's (2 x 200 BasicLSTMCell unrolled over 20 steps, batch 20, clip 5, SGD), on random
word ids (the speed of a step does not depend on the words), from the same initial weights; each engine runs in
its own process, one after the other, `--rounds` times alternating. A worker times `--steps` training steps after
`--warmup` ones, both wall (time.perf_counter) and CPU (time.process_time, all threads), and prints one `RESULT:`
line; the driver prints one JSON line per round with both engines' steps/s, their ratio and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def random_batches(vocab: int, count: int, batch: int, steps: int) -> list:
    rng = random.Random(0)
    return [([[rng.randrange(vocab) for _ in range(steps)] for _ in range(batch)],
             [[rng.randrange(vocab) for _ in range(steps)] for _ in range(batch)]) for _ in range(count)]


def worker(args: argparse.Namespace) -> None:
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # before NumPy loads
    import word_lm
    import word_lm_corpus as corpus
    import word_lm_model as m

    tf, session_config = word_lm.load_tf(args.worker, args.threads)
    tf.set_random_seed(0)
    config = m.WordLMConfig(args.vocab)
    model = m.build_model(tf, config, True)
    variables = tf.trainable_variables()
    values = corpus.initial_values([(v.op.name, v.shape.as_list()) for v in variables], config.init_scale, 0)
    data = random_batches(args.vocab, args.warmup + args.steps, config.batch_size, config.num_steps)
    fetches = {"cost": model["cost"], "final_state": model["final_state"], "train_op": model["train_op"]}
    with tf.Session(config=session_config) as sess:
        sess.run(tf.global_variables_initializer())
        for variable in variables:
            variable.load(values[variable.op.name], sess)
        sess.run(model["lr_update"], {model["new_lr"]: config.learning_rate})
        state = sess.run(model["initial_state"])
        costs = []

        def step(x: list, y: list) -> None:
            nonlocal state
            out = sess.run(fetches, {model["inputs"]: x, model["targets"]: y, **m._state_feed(model, state)})
            state = out["final_state"]
            costs.append(float(out["cost"]))

        for x, y in data[:args.warmup]:
            step(x, y)
        if args.profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            for x, y in data[args.warmup:args.warmup + args.profile]:
                step(x, y)
            profiler.disable()
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("tottime").print_stats(40)
            return
        wall, cpu = [], []
        for x, y in data[args.warmup:]:
            started, started_cpu = time.perf_counter(), time.process_time()
            step(x, y)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    print("RESULT:" + json.dumps({"engine": args.worker, "steps": args.steps,
                                  "median_ms": round(1000 * statistics.median(wall), 2),
                                  "min_ms": round(1000 * min(wall), 2),
                                  "cpu_ms": round(1000 * sum(cpu) / len(cpu), 2),
                                  "steps_per_s": round(1 / statistics.median(wall), 2),
                                  "first_costs": [round(c, 5) for c in costs[:3]]}), flush=True)


def run_worker(python: str, engine: str, args: argparse.Namespace) -> dict | None:
    argv = [f"--threads={args.threads}", f"--vocab={args.vocab}", f"--steps={args.steps}", f"--warmup={args.warmup}"]
    process = subprocess.run([python, __file__, "--worker", engine, *argv], stdout=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": REPO})
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    return json.loads(lines[-1][len("RESULT:"):]) if lines else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["webflow", "tensorflow"])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--vocab", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", type=int, default=0, help="cProfile this many steps (worker only)")
    args = parser.parse_args()
    if args.worker:
        worker(args)
        return
    for round_ in range(args.rounds):
        results = {}
        for engine, python in (("webflow", sys.executable), ("tensorflow", args.tf_python)):
            if python:
                results[engine] = run_worker(python, engine, args)
        line = {"benchmark": "word_lm_steps", "round": round_ + 1, "vocab": args.vocab, "threads": args.threads,
                "load_average": [round(x, 2) for x in os.getloadavg()]}
        for engine, result in results.items():
            line[engine] = result
        if results.get("webflow") and results.get("tensorflow"):
            line["steps_per_s_vs_tensorflow"] = round(results["webflow"]["steps_per_s"]
                                                      / results["tensorflow"]["steps_per_s"], 3)
            line["cpu_vs_tensorflow"] = round(results["tensorflow"]["cpu_ms"] / results["webflow"]["cpu_ms"], 3)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
