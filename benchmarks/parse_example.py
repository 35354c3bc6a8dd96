"""tf.io.parse_example throughput on MNIST Examples, webflow next to TensorFlow, printed as JSON lines.

    python benchmarks/parse_example.py [--data DIR] [--tf-python PATH] [--quick]

The 60,000 MNIST training images (WEBFLOW_DATA/mnist or --data DIR/mnist) become serialized tf.train.Examples in
two layouts: "float" (784 pixels / 255 as a FloatList + the label as an Int64List, the TFRecord tutorials' layout)
and "bytes" (the 784 raw pixel bytes as one BytesList value + the label). They are parsed in batches of 128 with
`tf.io.parse_example` ({"image": FixedLenFeature([784], float32) or FixedLenFeature([], string),
"label": FixedLenFeature([], int64)}), eagerly and through a TF1 Session (a string placeholder fed each batch).
Each figure is records/s, the best of several passes over all 469 batches. webflow runs in this process;
TensorFlow by re-running this file under its interpreter (--tf-python, else $WEBFLOW_TF_PYTHON).
The records are built and checked once (untimed): both engines parse the first batch to the MNIST pixels and labels.

    {"benchmark": "parse_example", "layout": "float", "mode": "eager", "batch": 128, "unit": "records/s",
     "webflow": ..., "tensorflow": ..., "ratio": ...}     ratio = webflow / TensorFlow (above 1: webflow is faster)
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BATCH = 128


def load_mnist(data: str) -> tuple:
    import numpy as np

    folder = os.path.join(data, "mnist")
    with gzip.open(os.path.join(folder, "train-images-idx3-ubyte.gz")) as file:
        images = np.frombuffer(file.read()[16:], np.uint8).reshape(-1, 784)
    with gzip.open(os.path.join(folder, "train-labels-idx1-ubyte.gz")) as file:
        labels = np.frombuffer(file.read()[8:], np.uint8)
    return images, labels


def load(framework: str) -> tuple:
    """(the TF2 module, the TF1 module) of `framework`."""
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf

        return tf, tf.compat.v1
    sys.path.insert(0, REPO)
    import webflow as tf
    import webflow.compat.v1 as tf1

    return tf, tf1


def records(tf, images, labels, layout: str) -> list:
    """Serialized Examples, one per image."""
    import numpy as np

    train = tf.train
    pixels = (images / 255.0).astype(np.float32)
    out = []
    for i in range(len(labels)):
        image = (train.Feature(float_list=train.FloatList(value=pixels[i])) if layout == "float"
                 else train.Feature(bytes_list=train.BytesList(value=[images[i].tobytes()])))
        label = train.Feature(int64_list=train.Int64List(value=[int(labels[i])]))
        out.append(train.Example(features=train.Features(feature={"image": image, "label": label}))
                   .SerializeToString())
    return out


def features(tf, layout: str) -> dict:
    image = tf.io.FixedLenFeature([784], tf.float32) if layout == "float" else tf.io.FixedLenFeature([], tf.string)
    return {"image": image, "label": tf.io.FixedLenFeature([], tf.int64)}


def check(parsed: dict, images, labels, layout: str) -> None:
    import numpy as np

    image = np.asarray(parsed["image"])
    if layout == "bytes":
        image = np.stack([np.frombuffer(b, np.uint8) for b in image.tolist()])
    expected = images[:BATCH] / 255.0 if layout == "float" else images[:BATCH]
    if not (np.allclose(image, expected, atol=1e-6) and (np.asarray(parsed["label"]) == labels[:BATCH]).all()):
        raise AssertionError(f"parse_example ({layout}) did not give back the MNIST batch")


def best_rate(run_batch, batches: list, passes: int) -> float:
    best = float("inf")
    for _ in range(passes):
        started = time.perf_counter()
        for batch in batches:
            run_batch(batch)
        best = min(best, time.perf_counter() - started)
    return sum(len(b) for b in batches) / best


def eager_rate(tf, batches: list, layout: str, images, labels, passes: int) -> float:
    spec = features(tf, layout)
    eager = [tf.constant(b) for b in batches]
    check({k: v.numpy() for k, v in tf.io.parse_example(eager[0], spec).items()}, images, labels, layout)
    return best_rate(lambda b: tf.io.parse_example(b, spec), eager, passes)


def session_rate(tf, tf1, batches: list, layout: str, images, labels, passes: int) -> float:
    graph = tf1.Graph()
    with graph.as_default():
        holder = tf1.placeholder(tf.string, [None])
        parsed = tf.io.parse_example(holder, features(tf, layout))
        with tf1.Session(graph=graph) as session:
            check(session.run(parsed, {holder: batches[0]}), images, labels, layout)
            return best_rate(lambda b: session.run(parsed, {holder: b}), batches, passes)


def measure(framework: str, data: str, quick: bool) -> dict:
    import numpy as np

    tf, tf1 = load(framework)
    images, labels = load_mnist(data)
    if quick:
        images, labels = images[:12800], labels[:12800]
    passes = 2 if quick else 5
    out = {}
    for layout in ("float", "bytes"):
        serialized = records(tf, images, labels, layout)
        batches = [np.array(serialized[i:i + BATCH], dtype=object) for i in range(0, len(serialized), BATCH)]
        out[f"{layout}/eager"] = eager_rate(tf, batches, layout, images, labels, passes)
        out[f"{layout}/session"] = session_rate(tf, tf1, batches, layout, images, labels, passes)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="parse_example records/s on MNIST, webflow next to TensorFlow")
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA"), help="folder holding mnist/ "
                        "(default: $WEBFLOW_DATA)")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"),
                        help="TensorFlow's python interpreter (default: $WEBFLOW_TF_PYTHON)")
    parser.add_argument("--quick", action="store_true", help="12,800 records and fewer passes (a smoke run)")
    parser.add_argument("--framework", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.data:
        parser.error("no MNIST: pass --data or set WEBFLOW_DATA")
    if args.framework:  # the child run: one JSON dict
        print(json.dumps(measure(args.framework, args.data, args.quick)))
        return
    theirs: dict = {}
    if args.tf_python:
        command = [args.tf_python, os.path.abspath(__file__), "--framework", "tensorflow", "--data", args.data]
        done = subprocess.run(command + (["--quick"] if args.quick else []), capture_output=True, text=True,
                              env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
        if done.returncode != 0:
            sys.exit(f"the TensorFlow run failed:\n{done.stderr[-3000:]}")
        theirs = json.loads(done.stdout.strip().splitlines()[-1])
    mine = measure("webflow", args.data, args.quick)
    for key, rate in mine.items():
        layout, mode = key.split("/")
        line = {"benchmark": "parse_example", "layout": layout, "mode": mode, "batch": BATCH, "unit": "records/s",
                "webflow": round(rate)}
        if key in theirs:
            line["tensorflow"] = round(theirs[key])
            line["ratio"] = round(rate / theirs[key], 2)
        print(json.dumps(line))


if __name__ == "__main__":
    main()
