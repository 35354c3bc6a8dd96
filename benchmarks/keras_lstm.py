"""Keras LSTM `fit` throughput: LSTM(32) + Dense(10) on MNIST rows (28 steps x 28 pixels), batch 32, Adam.

Prints steps/s of webflow.keras and, when WEBFLOW_TF_PYTHON names TensorFlow's interpreter, of tf_keras on the
same data, one after the other. Label the figures with the load average (`uptime`): the machine is shared.
  WEBFLOW_DATA=/work/shared/data python benchmarks/keras_lstm.py
"""

from __future__ import annotations

import os
import subprocess
import sys

import webflow  # noqa: F401 - first, so that NumPy's OpenBLAS starts with webflow's thread settings

MODEL = """
model = keras.Sequential([keras.layers.LSTM(32, input_shape=(28, 28)), keras.layers.Dense(10)])
model.compile(keras.optimizers.Adam(0.003), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x[:320], y[:320], batch_size=32, epochs=1, verbose=0)
start = time.perf_counter()
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
print(f"{NAME}: {len(x) // 32 / (time.perf_counter() - start):.1f} steps/s")
"""

LOAD = """
import gzip, os, struct, time
import numpy as np

def idx(name):
    data = gzip.open(os.path.join(os.environ["WEBFLOW_DATA"], "mnist", name)).read()
    shape = struct.unpack(">" + "I" * data[3], data[4:4 + 4 * data[3]])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * data[3]).reshape(shape)

x = idx("train-images-idx3-ubyte.gz")[:2048].astype(np.float32) / 255.0
y = idx("train-labels-idx1-ubyte.gz")[:2048].astype(np.int64)
"""


def main() -> None:
    if not os.environ.get("WEBFLOW_DATA"):
        sys.exit("set WEBFLOW_DATA (the directory holding mnist/)")
    print("load average:", os.getloadavg())
    from webflow import keras
    exec(LOAD + MODEL, {"keras": keras, "NAME": "webflow.keras"})
    tf_python = os.environ.get("WEBFLOW_TF_PYTHON")
    if tf_python:
        source = ("import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tf_keras as keras\nNAME = 'tf_keras'\n"
                  + LOAD + MODEL)
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
        done = subprocess.run([tf_python, "-c", source], capture_output=True, text=True, env=env)
        print(done.stdout.strip() or done.stderr[-2000:])


if __name__ == "__main__":
    main()
