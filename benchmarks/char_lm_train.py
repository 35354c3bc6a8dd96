"""Train the Shakespeare character LM (char_lm_model.py) with webflow for a few hundred steps, then sample from it.

    PYTHONPATH=. WEBFLOW_DATA=../shared/data python benchmarks/char_lm_train.py --steps 300 --engine webflow

Prints the training loss every 50 steps, the held-out perplexity (the last 5% of the plays) before and after,
and a seeded sample at two temperatures. `--engine tensorflow` runs the same program on TensorFlow.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import char_lm  # noqa: E402
import char_lm_model as m  # noqa: E402

# small enough for a few hundred steps in about a minute on 2 cores under webflow
SIZES = {"embedding_size": 32, "hidden_size": 64, "num_layers": 2, "batch_size": 32, "num_steps": 25,
         "learning_rate": 0.01}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=["webflow", "tensorflow"], default="webflow")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # before NumPy loads: OpenBLAS reads it once
    sys.path.insert(0, char_lm.REPO)
    from webflow.datasets import shakespeare

    text = shakespeare.load_text()
    vocabulary = shakespeare.CharVocabulary(text)
    train_ids, valid_ids = shakespeare.split(vocabulary.encode(text))
    tf, config = char_lm.load_tf(args.engine, args.threads)
    cfg = m.CharLMConfig(len(vocabulary), **SIZES)
    model, sampler = m.build_training(tf, cfg), m.build_sampler(tf, cfg)
    valid = m.batches(valid_ids, cfg.batch_size, cfg.num_steps, 10)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        print(f"valid perplexity before: {m.perplexity(sess, model, valid):.2f}")
        start = time.perf_counter()
        for step, (x, y) in enumerate(m.batches(train_ids, cfg.batch_size, cfg.num_steps, args.steps), 1):
            loss, _ = sess.run([model["loss"], model["train_op"]], {model["inputs"]: x, model["targets"]: y})
            if step % 50 == 0:
                print(f"step {step}: loss {float(loss):.3f} ({time.perf_counter() - start:.1f} s)", flush=True)
        seconds = time.perf_counter() - start
        chars = args.steps * cfg.batch_size * cfg.num_steps
        print(f"{args.steps} steps in {seconds:.1f} s ({chars / seconds:.0f} chars/s)")
        print(f"valid perplexity after: {m.perplexity(sess, model, valid):.2f}")
        for temperature in (0.5, 1.0):
            ids = m.sample(sess, sampler, vocabulary.encode("KING"), 120, temperature, seed=args.seed)
            print(f"--- sample, temperature {temperature}:\nKING{vocabulary.decode(ids)}")


if __name__ == "__main__":
    main()
