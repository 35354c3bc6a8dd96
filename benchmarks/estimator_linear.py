"""Estimator.train steps per second on a small linear model_fn: webflow, and TensorFlow 2.15 if
WEBFLOW_TF215_PYTHON names its interpreter. Prints one line per engine.

    python benchmarks/estimator_linear.py [steps]
"""

import os
import subprocess
import sys
import tempfile

PROGRAM = r"""
import numpy as np
rng = np.random.RandomState(0)
X = rng.rand(4096, 16).astype(np.float32)
Y = X.sum(1, keepdims=True).astype(np.float32)


def model_fn(features, labels, mode):
    w = tf.get_variable("w", [16, 1], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
    train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=tf.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


estimator = est.Estimator(model_fn, MODEL_DIR, config=est.RunConfig(save_checkpoints_steps=STEPS))
data = lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(64)
estimator.train(data, steps=10)  # warm up: graph building, first checkpoint
start = time.perf_counter()
estimator.train(data, steps=STEPS)
print(f"{ENGINE}: {STEPS / (time.perf_counter() - start):.0f} steps/s (one train() of {STEPS} steps, batch 64)")
"""


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print(os.popen("uptime").read().strip())
    header = f"import time\nSTEPS = {steps}\n"
    import webflow.compat.v1 as tf
    exec(header + PROGRAM, {"tf": tf, "est": tf.estimator, "MODEL_DIR": tempfile.mkdtemp(), "ENGINE": "webflow"})
    tf215 = os.environ.get("WEBFLOW_TF215_PYTHON")
    if tf215:
        driver = ("import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
                  "from tensorflow import estimator as est\nimport tempfile\nMODEL_DIR = tempfile.mkdtemp()\n"
                  f"ENGINE = 'TensorFlow 2.15'\n{header}{PROGRAM}")
        output = subprocess.run([tf215, "-c", driver], capture_output=True, text=True,
                                env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
        print(output.stdout.strip().splitlines()[-1] if output.stdout.strip() else output.stderr[-500:])


if __name__ == "__main__":
    main()
