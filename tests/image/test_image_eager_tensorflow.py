"""TF2-style eager `tf.image` / `tf.io` image calls against real TensorFlow 2.21 (WEBFLOW_TF_PYTHON): the same
programs run with `tf` bound to TensorFlow (in its interpreter) and to `webflow`, compared exactly: seeded random
flips and crops (op seeds under a global seed: the same Philox draws, call after call), `resize` in both methods,
`decode_image` to float32 (PNG scales by 1/65535 after widening to 16 bits, JPEG by 1/255), and decode_png's
channel conversions on a file with alpha."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

import webflow

PROGRAMS = {
    "random_flips": """
tf.random.set_seed(5)
x = tf.constant(np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2))
result = [tf.image.random_flip_left_right(x[0], seed=3).numpy().tolist() for _ in range(4)]
result += [tf.image.random_flip_up_down(x, seed=7).numpy().tolist() for _ in range(3)]
""",
    "random_crop": """
tf.random.set_seed(8)
x = tf.constant(np.arange(6 * 7 * 3, dtype=np.int32).reshape(6, 7, 3))
result = [tf.image.random_crop(x, [3, 4, 3], seed=1).numpy().tolist() for _ in range(4)]
""",
    "resize": """
x = tf.constant((np.arange(5 * 6 * 3) * 37 % 256).astype(np.uint8).reshape(5, 6, 3))
result = [tf.image.resize(x, [8, 3]).numpy().tolist(), tf.image.resize(x, [2, 9], method="nearest").numpy().tolist(),
          tf.image.resize(tf.cast(x, tf.float64)[None], [7, 7]).numpy().tolist()]
""",
    "decode_image_float": """
pixels = (np.arange(4 * 5 * 4) * 53 % 256).astype(np.uint8).reshape(4, 5, 4)
png = tf.io.encode_png(pixels)
png16 = tf.io.encode_png(pixels.astype(np.uint16) * 300)
result = [tf.io.decode_image(png, dtype=tf.float32).numpy().tolist(),
          tf.io.decode_image(png16, dtype=tf.float32).numpy().tolist(),
          tf.io.decode_image(png16, dtype=tf.uint8, channels=3).numpy().tolist(),
          tf.io.decode_png(png, channels=1).numpy().tolist(), tf.io.decode_png(png, channels=3).numpy().tolist(),
          tf.image.convert_image_dtype(tf.io.decode_png(png), tf.float32).numpy().tolist()]
""",
}

_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
out = {}
for key, source in json.load(sys.stdin).items():
    scope = {"tf": tf, "np": np}
    exec(source, scope)
    out[key] = scope["result"]
print("RESULT:" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def tensorflow() -> dict:
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([TF_PYTHON, "-c", _DRIVER], input=json.dumps(PROGRAMS), capture_output=True, text=True,
                          timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_eager_as_tensorflow(key: str, tensorflow: dict) -> None:
    from webflow.framework import random_seed

    random_seed.set_global_seed(None)
    scope = {"tf": webflow, "np": np}
    exec(PROGRAMS[key], scope)
    ours = json.loads(json.dumps(scope["result"]))
    assert len(ours) == len(tensorflow[key])
    for i, (got, expected) in enumerate(zip(ours, tensorflow[key])):
        assert np.array_equal(np.asarray(got), np.asarray(expected)), f"{key}[{i}]"
