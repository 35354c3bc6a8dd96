"""site/demo/char_rnn_model.py (the char-RNN page's model) in CPython without NumPy, as Pyodide runs it.

A child Python with `sys.modules["numpy"] = None` builds CharRnnDemo on a Shakespeare slice ($WEBFLOW_DATA),
and the parent checks, against oracles derived by hand:
- the untrained loss is ln(vocabulary) (small initial weights: a near-uniform guess), and 60 Adam steps bring
  the loss on the same batch clearly below it;
- the one-character-at-a-time sampler carries the LSTM state correctly: after reading T characters its
  next-character distribution equals the softmax of the unrolled training graph's logits at step T (a second,
  independent path through the same variables), within float32 tolerance;
- a sample has the requested length and only the text's characters, and the same seed gives the same sample.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PROGRAM = """
import sys, json, math
sys.modules["numpy"] = None
sys.path[:0] = ["site/demo", "benchmarks"]
from webflow.datasets import shakespeare
import char_rnn_model as m

text = shakespeare.load_text(max_chars=20_000)
demo = m.CharRnnDemo(text, steps=60, sizes={"hidden_size": 48, "embedding_size": 16, "batch_size": 16,
                                            "num_steps": 12})
before = demo.loss_on(0)
demo.train_chunk(60)
after = demo.loss_on(0)

# The unrolled graph's next-character law after the first T characters of batch row 0 ...
cfg, model = demo.config, demo.model
inputs, targets = m.lm.batches(demo.ids, cfg.batch_size, cfg.num_steps, 1)[0]
last = demo.session.run(model["logits"][-1], {model["inputs"]: inputs})
row = [float(v) for v in last.tolist()[0]]
top = max(row)
exps = [math.exp(v - top) for v in row]
unrolled = [e / sum(exps) for e in exps]
# ... and the sampler's, fed the same characters one at a time with the state carried in Python.
s = demo.sampler
state = [[[0.0] * cfg.hidden_size] for _ in s["state_in"]]
for token in inputs[0]:
    feed = {s["input"]: [token]}
    feed.update(zip(s["state_in"], state))
    probs, *state = demo.session.run([s["probs"]] + s["state_out"], feed)
    state = [v.tolist() for v in state]
stepped = [float(p) for p in probs.tolist()]
print(json.dumps({"vocab": len(demo.chars), "chars": demo.chars, "before": before, "after": after,
                  "unrolled": unrolled, "stepped": stepped, "sample": demo.sample(50, 0.7, seed=3),
                  "again": demo.sample(50, 0.7, seed=3)}))
"""


@pytest.fixture(scope="module")
def result() -> dict:
    data = os.environ.get("WEBFLOW_DATA")
    if not data or not os.path.exists(os.path.join(data, "text", "shakespeare_plays.txt.gz")):
        pytest.skip("needs WEBFLOW_DATA with text/shakespeare_plays.txt.gz")
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(PROGRAM)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_loss_starts_at_ln_vocabulary_and_falls(result: dict) -> None:
    uniform = math.log(result["vocab"])
    assert abs(result["before"] - uniform) < 0.05, (result["before"], uniform)
    assert result["after"] < uniform - 0.6, (result["after"], uniform)


def test_sampler_state_matches_the_unrolled_graph(result: dict) -> None:
    assert len(result["stepped"]) == len(result["unrolled"]) == result["vocab"]
    assert abs(sum(result["stepped"]) - 1) < 1e-5
    assert max(abs(a - b) for a, b in zip(result["stepped"], result["unrolled"])) < 1e-5


def test_sample_length_vocabulary_and_seed(result: dict) -> None:
    assert len(result["sample"]) == 50 and set(result["sample"]) <= set(result["chars"])
    assert result["sample"] == result["again"]
