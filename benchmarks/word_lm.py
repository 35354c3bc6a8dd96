"""The PTB "small" word LM (word_lm_model.py) trained on Shakespeare: webflow, TensorFlow and PyTorch in one run.

    PYTHONPATH=. WEBFLOW_DATA=../shared/data python benchmarks/word_lm.py \
        --tf-python .venv-tf/bin/python --torch-python .venv-torch/bin/python [--epochs 13] [--threads 1]

Each engine trains in its own worker process, one after the other (`--worker webflow|tensorflow|torch`), on the
same data and from the same initial weights (every variable set from a RandomState seeded by its TensorFlow name;
the PyTorch worker loads the same arrays into nn.LSTM). A worker prints per-epoch train/valid perplexity and a
progress bar on stderr, and one `RESULT:` JSON line; the driver prints one JSON line per engine with the final valid
perplexity, its ratio to TensorFlow's, and training words/s (the median epoch's).

Data (word_lm_corpus.py): the plays lower-cased, words and `<eos>` per line; the first 200,000 tokens train, the
first 40,000 tokens of the last 5% of the plays validate; the vocabulary is the training part's 9,999 most frequent
words + `<unk>` (PTB's size). Small enough that the three engines together take ~15-20 minutes on an idle
2-core machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import word_lm_corpus as corpus  # noqa: E402
import word_lm_model as m  # noqa: E402


def load_tf(engine: str, threads: int):
    if engine == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.nn.rnn_cell needs Keras 2 in TF 2.16+
        warnings.filterwarnings("ignore", category=UserWarning)  # rnn_cell's deprecation notices
        import tensorflow.compat.v1 as tf
        tf.logging.set_verbosity(tf.logging.ERROR)
    else:
        sys.path.insert(0, REPO)
        import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    return tf, tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)


def log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def train_tf1(engine: str, args: argparse.Namespace, data: corpus.Corpus, config: m.WordLMConfig) -> dict:
    """Train the TF1 program; the history of word_lm_model.train plus the variable names."""
    tf, session_config = load_tf(engine, args.threads)
    tf.set_random_seed(args.seed)
    models = (m.build_model(tf, config, True), m.build_model(tf, config, False))
    variables = tf.trainable_variables()
    values = corpus.initial_values([(v.op.name, v.shape.as_list()) for v in variables], config.init_scale, args.seed)
    train_data = m.batches(data.train, config.batch_size, config.num_steps)
    valid_data = m.batches(data.valid, config.batch_size, config.num_steps)
    with tf.Session(config=session_config) as sess:
        sess.run(tf.global_variables_initializer())
        for variable in variables:
            variable.load(values[variable.op.name], sess)
        history = m.train(tf, sess, config, models, train_data, valid_data, log, not args.no_progress)
    return {"history": history, "variables": [v.op.name for v in variables]}


def worker(engine: str, args: argparse.Namespace) -> None:
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # before NumPy loads: OpenBLAS reads it once
    data = corpus.load(args.train_words, args.valid_words, args.vocab)
    config = m.WordLMConfig(len(data.vocabulary), max_max_epoch=args.epochs, max_epoch=args.max_epoch)
    log(f"{engine}: {len(data.train)} training words, {len(data.valid)} validation words, vocabulary "
        f"{len(data.vocabulary)}, {config.max_max_epoch} epochs")
    if engine == "torch":
        import word_lm_torch

        outcome = word_lm_torch.train(args, data, config, log)
    else:
        outcome = train_tf1(engine, args, data, config)
    history = outcome["history"]
    seconds = sum(h["seconds"] for h in history)
    # the median epoch: one epoch slowed by another process on the shared machine does not move it
    print("RESULT:" + json.dumps({"engine": engine, "vocab": len(data.vocabulary), "threads": args.threads,
                                  "epochs": len(history),
                                  "train_seconds": round(seconds, 1),
                                  "words_per_s": round(statistics.median(h["words_per_s"] for h in history)),
                                  "valid_perplexity": round(history[-1]["valid_perplexity"], 3),
                                  "train_perplexity": round(history[-1]["train_perplexity"], 3),
                                  "valid_by_epoch": [round(h["valid_perplexity"], 3) for h in history],
                                  "variables": outcome["variables"]}), flush=True)


def run_worker(python: str, engine: str, argv: list[str]) -> dict | None:
    env = {**os.environ, "PYTHONPATH": REPO}
    process = subprocess.run([python, __file__, "--worker", engine, *argv], stdout=subprocess.PIPE, text=True,
                             env=env)  # stderr passes through: the progress bars and epoch lines
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    if not lines:
        print(json.dumps({"engine": engine, "error": f"worker exited {process.returncode} without a result"}))
        return None
    return json.loads(lines[-1][len("RESULT:"):])


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["webflow", "tensorflow", "torch"])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--torch-python")
    parser.add_argument("--engines", default="webflow,tensorflow,torch", help="comma-separated subset to run")
    # 1: with 2 BLAS/intra-op threads a shared machine's load made webflow and PyTorch 10-40x slower (FIGURES.md)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=13, help="max_max_epoch (13 in the PTB small config)")
    parser.add_argument("--max-epoch", type=int, default=4, help="epochs at the full learning rate")
    parser.add_argument("--train-words", type=int, default=200_000)
    parser.add_argument("--valid-words", type=int, default=40_000)
    parser.add_argument("--vocab", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-progress", action="store_true")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    if args.worker:
        worker(args.worker, args)
        return
    argv = [f"--threads={args.threads}", f"--epochs={args.epochs}", f"--max-epoch={args.max_epoch}",
            f"--train-words={args.train_words}", f"--valid-words={args.valid_words}", f"--vocab={args.vocab}",
            f"--seed={args.seed}"] + (["--no-progress"] if args.no_progress else [])
    pythons = {"webflow": sys.executable, "tensorflow": args.tf_python, "torch": args.torch_python}
    wanted = [e for e in args.engines.split(",") if pythons.get(e)]
    results = [r for r in (run_worker(pythons[e], e, argv) for e in wanted) if r]
    tensorflow = next((r for r in results if r["engine"] == "tensorflow"), None)
    sizes = {"vocab": args.vocab, "train_words": args.train_words, "valid_words": args.valid_words}
    tensorflow_variables = tensorflow["variables"] if tensorflow else None
    for result in results:
        variables = result.pop("variables")
        if tensorflow:
            result["valid_perplexity_vs_tensorflow"] = round(result["valid_perplexity"]
                                                             / tensorflow["valid_perplexity"], 4)
            result["words_per_s_vs_tensorflow"] = round(result["words_per_s"] / tensorflow["words_per_s"], 3)
            result["same_variable_names"] = variables == tensorflow_variables
        print(json.dumps({"benchmark": "word_lm_small", **sizes, **result}), flush=True)


if __name__ == "__main__":
    main()
