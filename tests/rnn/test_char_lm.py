"""The Shakespeare character LM (benchmarks/char_lm_model.py) trained for 20 Adam steps by webflow and by real
TensorFlow 2.21 from the same initial variable values, on the same batches of the real corpus ($WEBFLOW_DATA).

Compared step by step: the loss and the gradients' global norm before clipping (max_grad_norm is set low so that
clip_by_global_norm really scales), the held-out perplexity before and after, and the sampler's next-character
distribution. Tolerance: relative 2e-4 on losses, norms and perplexities, absolute 2e-5 on probabilities — float32
sums taken in different orders drift by ~1e-6 per step and Adam's normalised updates carry that drift forward,
so 20 steps stay well inside 2e-4 (the runs measured differ by < 1e-5).
"""

import os

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

from webflow.datasets import shakespeare

BENCHMARKS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")

PROGRAM = """
import sys
sys.path.insert(0, BENCHMARKS)
import char_lm_model as m
cfg = m.CharLMConfig(VOCAB, embedding_size=16, hidden_size=32, batch_size=8, num_steps=20, learning_rate=0.01,
                     max_grad_norm=0.1)
model = m.build_training(tf, cfg)
sampler = m.build_sampler(tf, cfg)
train = m.batches(TRAIN, cfg.batch_size, cfg.num_steps, 20)
valid = m.batches(VALID, cfg.batch_size, cfg.num_steps, 4)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(m.initial_values(tf))
    before = m.perplexity(sess, model, valid)
    losses, norms = [], []
    for x, y in train:
        loss, norm, _ = sess.run([model["loss"], model["global_norm"], model["train_op"]],
                                 {model["inputs"]: x, model["targets"]: y})
        losses.append(float(loss))
        norms.append(float(norm))
    after = m.perplexity(sess, model, valid)
    probs = sess.run(sampler["probs"], {sampler["prefix"]: [TRAIN[:30]], sampler["temperature"]: 0.7})
    samples = [m.sample(sess, sampler, TRAIN[:5], 12, temperature=0.8, seed=7) for _ in range(2)]
    result = {"losses": losses, "norms": norms, "perplexity": [before, after], "probs": probs,
              "samples": samples}
"""


@pytest.fixture(scope="module")
def corpus():
    if not os.environ.get("WEBFLOW_DATA"):
        pytest.skip("WEBFLOW_DATA is not set: no Shakespeare corpus")
    text = shakespeare.load_text(max_chars=200_000)
    vocabulary = shakespeare.CharVocabulary(text)
    train, valid = shakespeare.split(vocabulary.encode(text), valid_fraction=0.1)
    return len(vocabulary), train[:40_000], valid[:10_000]


def _source(corpus) -> str:
    vocab, train, valid = corpus
    return f"BENCHMARKS = {BENCHMARKS!r}\nVOCAB = {vocab}\nTRAIN = {train}\nVALID = {valid}\n" + PROGRAM


@pytest.fixture(scope="module")
def webflow_result(corpus):
    return run_webflow(_source(corpus))


def test_training_lowers_the_loss_and_samples_are_seeded(webflow_result):
    losses = webflow_result["losses"]
    assert np.mean(losses[-5:]) < np.mean(losses[:5]) - 0.3
    before, after = webflow_result["perplexity"]
    assert after < before
    first, second = webflow_result["samples"]
    assert first == second and len(first) == 12
    assert abs(sum(webflow_result["probs"]) - 1) < 1e-5


def test_clip_by_global_norm_is_active(webflow_result):
    assert min(webflow_result["norms"]) > 0.1   # every step was clipped down to norm 0.1


def test_steps_match_tensorflow(corpus, webflow_result):
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    expected = run_tensorflow({"char_lm": _source(corpus)})["char_lm"]
    np.testing.assert_allclose(webflow_result["losses"], expected["losses"], rtol=2e-4)
    np.testing.assert_allclose(webflow_result["norms"], expected["norms"], rtol=2e-4)
    np.testing.assert_allclose(webflow_result["perplexity"], expected["perplexity"], rtol=2e-4)
    np.testing.assert_allclose(webflow_result["probs"], expected["probs"], atol=2e-5)
