"""Training throughput of the Shakespeare character LM (char_lm_model.py), webflow next to TensorFlow.

    PYTHONPATH=. WEBFLOW_DATA=../shared/data python benchmarks/char_lm.py --tf-python .venv-tf/bin/python

Each engine trains the same TF1 program in its own worker process (`--worker webflow|tensorflow|torch`): a warm-up
of 3 steps, then `--steps` timed Adam steps. One JSON line per engine: characters/s, and words/s (characters/s
times the corpus' words per character, as a word-level LM would count it). PyTorch (nn.LSTM, same sizes) is
measured only when `torch` imports in the TensorFlow interpreter; nothing is installed for it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SIZES = {"embedding_size": 32, "hidden_size": 128, "num_layers": 2, "batch_size": 32, "num_steps": 50}


def corpus_ids(max_chars: int = 400_000) -> tuple[list[int], int, float]:
    """(ids of the first max_chars characters, vocabulary size, words per character of the whole text)."""
    sys.path.insert(0, REPO)
    from webflow.datasets import shakespeare

    text = shakespeare.load_text()
    vocabulary = shakespeare.CharVocabulary(text)
    return vocabulary.encode(text[:max_chars]), len(vocabulary), len(text.split()) / len(text)


def load_tf(engine: str, threads: int):
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
    if engine == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # tf.nn.rnn_cell needs Keras 2 in TF 2.16+
        import tensorflow.compat.v1 as tf
    else:
        import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    return tf, tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)


def time_tf1(engine: str, threads: int, steps: int, ids: list, vocab: int) -> float:
    """Seconds per training step of the TF1 program."""
    sys.path.insert(0, HERE)
    import char_lm_model as m

    tf, config = load_tf(engine, threads)
    cfg = m.CharLMConfig(vocab, **SIZES)
    model = m.build_training(tf, cfg)
    data = m.batches(ids, cfg.batch_size, cfg.num_steps, steps + 3)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        feeds = [{model["inputs"]: x, model["targets"]: y} for x, y in data]
        for feed in feeds[:3]:
            sess.run(model["train_op"], feed)
        start = time.perf_counter()
        for feed in feeds[3:]:
            sess.run([model["loss"], model["train_op"]], feed)
        return (time.perf_counter() - start) / steps


def time_torch(threads: int, steps: int, ids: list, vocab: int) -> float:
    """Seconds per step of the same model in PyTorch: Embedding -> nn.LSTM(2 layers) -> Linear, Adam, clipping."""
    import torch

    torch.set_num_threads(threads)
    b, t, h = SIZES["batch_size"], SIZES["num_steps"], SIZES["hidden_size"]
    model = torch.nn.ModuleDict({"embed": torch.nn.Embedding(vocab, SIZES["embedding_size"]),
                                 "lstm": torch.nn.LSTM(SIZES["embedding_size"], h, SIZES["num_layers"],
                                                       batch_first=True),
                                 "out": torch.nn.Linear(h, vocab)})
    optimizer = torch.optim.Adam(model.parameters(), lr=0.002)
    stride = (len(ids) - 1) // b
    x = torch.tensor([ids[r * stride:r * stride + t] for r in range(b)])
    y = torch.tensor([ids[r * stride + 1:r * stride + t + 1] for r in range(b)])

    def step() -> None:
        outputs, _ = model["lstm"](model["embed"](x))
        loss = torch.nn.functional.cross_entropy(model["out"](outputs).reshape(-1, vocab), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()

    for _ in range(3):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps


def worker(engine: str, threads: int, steps: int) -> None:
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)  # before NumPy loads: OpenBLAS reads it once
    ids, vocab, words_per_char = corpus_ids()
    seconds = time_torch(threads, steps, ids, vocab) if engine == "torch" else time_tf1(engine, threads, steps,
                                                                                          ids, vocab)
    chars = SIZES["batch_size"] * SIZES["num_steps"] / seconds
    print("RESULT:" + json.dumps({"engine": engine, "threads": threads, "ms_per_step": round(seconds * 1e3, 1),
                                  "chars_per_s": round(chars), "words_per_s": round(chars * words_per_char)}))


def run_worker(python: str, engine: str, threads: int, steps: int) -> dict | None:
    env = {**os.environ, "PYTHONPATH": REPO}
    process = subprocess.run([python, __file__, "--worker", engine, "--threads", str(threads), "--steps", str(steps)],
                             capture_output=True, text=True, env=env)
    lines = [line for line in process.stdout.splitlines() if line.startswith("RESULT:")]
    if not lines:
        print(json.dumps({"engine": engine, "error": process.stderr[-500:]}))
        return None
    return json.loads(lines[-1][len("RESULT:"):])


def has_torch(python: str) -> bool:
    return subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", choices=["webflow", "tensorflow", "torch"])
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.threads, args.steps)
        return
    engines = [(sys.executable, "webflow")]
    if args.tf_python:
        engines.append((args.tf_python, "tensorflow"))
        if has_torch(args.tf_python):
            engines.append((args.tf_python, "torch"))
    results = [run_worker(python, engine, args.threads, args.steps) for python, engine in engines]
    tensorflow = next((r for r in results if r and r["engine"] == "tensorflow"), None)
    for result in results:
        if result:
            if tensorflow:
                result["ratio_to_tensorflow"] = round(result["chars_per_s"] / tensorflow["chars_per_s"], 3)
            print(json.dumps({"benchmark": "char_lm_train", **SIZES, **result}))


if __name__ == "__main__":
    main()
