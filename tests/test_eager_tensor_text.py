"""str() and repr() of eager tensors, compared with TensorFlow 2.21's text for the same values."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

import webflow as wf

TF_PYTHON = os.environ.get("WEBFLOW_TF_PYTHON")

# (Python expression for the value, dtype name): scalars of every printed kind, where float32's shortest digits
# differ from float64's, and small arrays.
CASES = [
    ("1.1920929e-06", "float32"), ("0.1", "float32"), ("3.0 * 0.1", "float32"), ("16777216.0", "float32"),
    ("1e8", "float32"), ("-0.0", "float32"), ("float('nan')", "float32"), ("2 / 3", "float64"),
    ("1.5", "float16"), ("7", "int32"), ("-3", "int64"), ("True", "bool"), ("b'ab'", "string"),
    ("[1.1920929e-06, 0.1]", "float32"), ("[[1, 2], [3, 4]]", "int32"), ("[]", "float32"),
]

_TF_DRIVER = r"""
import json, sys
import tensorflow as tf
out = []
for expression, dtype in json.load(sys.stdin):
    tensor = tf.constant(eval(expression), dtype=dtype)
    out.append([str(tensor), repr(tensor)])
print("RESULT:" + json.dumps(out))
"""


def tensorflow_texts() -> list:
    done = subprocess.run([TF_PYTHON, "-c", _TF_DRIVER], input=json.dumps(CASES), capture_output=True, text=True,
                          timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT:"))
    return json.loads(line[len("RESULT:"):])


@pytest.mark.skipif(not TF_PYTHON, reason="WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with")
def test_eager_tensor_str_and_repr_match_tensorflow():
    for (expression, dtype), (tf_str, tf_repr) in zip(CASES, tensorflow_texts(), strict=True):
        tensor = wf.constant(eval(expression), dtype=dtype)
        assert (str(tensor), repr(tensor)) == (tf_str, tf_repr), expression


@pytest.mark.skipif(not TF_PYTHON, reason="WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with")
def test_eager_tensor_text_without_numpy_matches_tensorflow():
    """The browser's case: the same texts from CArray values (backends/arrays/carray_print.py); float16 needs
    NumPy."""
    from test_no_numpy import run_without_numpy

    cases = [case for case in CASES if case[1] != "float16"]

    texts = run_without_numpy(f"""
        import json
        import webflow as wf
        texts = []
        for expression, dtype in {cases!r}:
            tensor = wf.constant(eval(expression), dtype=dtype)
            texts.append([str(tensor), repr(tensor)])
        print(json.dumps(texts))
    """)
    expected = dict(zip(CASES, tensorflow_texts()))
    assert len(texts) == len(cases)
    for case, ours in zip(cases, texts):
        assert ours == expected[case], case
