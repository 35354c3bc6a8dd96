"""Deep MNIST CNN training fed by feed_dict vs by tf.data, webflow next to TensorFlow: steps/s, as JSON lines.

    PYTHONPATH=. python benchmarks/cnn_input_pipeline.py [--tf-python PATH] [--data DIR] [--steps 20] [--threads 2]

The model is cnn_model_tf1.py's (conv 5x5x32, pool, conv 5x5x64, pool, dense 1024, dropout, dense 10, Adam 1e-4),
batch 50, the same TF1 code under both engines. Its images and labels come, per mode:
- feed_dict:        NumPy arrays (float32 images in [0, 1], one-hot labels) shuffled once per epoch, each step's
                    batch a slice fed to [50, 784] / [50, 10] placeholders (the tutorial's `next_batch` loop);
- feed_dict_unknown_batch: the same fed to [None, 784] / [None, 10] placeholders;
- from_tensor_slices: Dataset.from_tensor_slices((images, labels)).shuffle(10000, seed).repeat().batch(50)
                    .prefetch(1), the model built on the one-shot iterator's get_next();
- tfrecord_map_parse: TFRecordDataset(file).repeat().map(parse_single_example -> decode_raw -> cast/255,
                    one_hot).batch(50).prefetch(1): one tf.train.Example per image (784 raw bytes + int64 label);
- tfrecord_batch_parse: the vectorised form, TFRecordDataset(file).repeat().batch(50).map(parse_example ...)
                    .prefetch(1) (TensorFlow's performance guide: batch before parsing);
- *_static:         the same with batch(50, drop_remainder=True): a batch dimension known when the graph is built.
tf.data's batch() without drop_remainder gives a batch dimension of None (as in TensorFlow, even after repeat()),
which cost webflow ~2 ms of CPU per step while its executor fused bias + Relu only on known shapes, ~0.1-0.6 ms since
it fuses on the rank and channel count: benchmarks/FIGURES.md, "Fusion with an unknown batch".
Every mode still feeds keep_prob (0.5) so each step is one Session.run with a feed. MNIST's 60,000 training
images (--data, else $WEBFLOW_DATA's mnist/, else the 6,000-image sample in the wheel); the TFRecord file is
written once by webflow (TensorFlow reads the same bytes). Each engine runs in its own child process (TensorFlow
under --tf-python, else $WEBFLOW_TF_PYTHON), the models side by side; a figure is the best of 7 repeats of
--steps steps after 3 warm-up steps, the modes taking turns within each repeat. One line per mode:
{"benchmark", "batch", "unit": "steps/s", "webflow", "tensorflow", "ratio" (webflow / TensorFlow),
"webflow_vs_feed_dict", "tensorflow_vs_feed_dict" (each engine's steps/s over its own feed_dict figure),
"cpu_ms_per_step" (process CPU time per step, all threads: less moved by other jobs on a shared machine)}.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BATCH = 50
REPEATS = 7   # = len(MODES): each mode leads one round
# "_static": batch(drop_remainder=True), so the batch dimension is known when the graph is built (50, not None)
MODES = ["feed_dict", "feed_dict_unknown_batch", "from_tensor_slices", "from_tensor_slices_static",
         "tfrecord_map_parse", "tfrecord_batch_parse", "tfrecord_batch_parse_static"]


def mnist_folder(data: str | None) -> str:
    """The folder holding train-images-idx3-ubyte.gz: DATA/mnist, else the sample shipped in the wheel."""
    if data and os.path.exists(os.path.join(data, "mnist", "train-images-idx3-ubyte.gz")):
        return os.path.join(data, "mnist")
    return os.path.join(REPO, "webflow", "datasets", "sample")


def read_mnist(folder: str) -> tuple[bytes, bytes]:
    """(all training pixels, 784 bytes per image; the label bytes) of the IDX files."""
    with gzip.open(os.path.join(folder, "train-images-idx3-ubyte.gz")) as images:
        pixels = images.read()[16:]
    with gzip.open(os.path.join(folder, "train-labels-idx1-ubyte.gz")) as labels:
        return pixels, labels.read()[8:]


def write_records(folder: str, path: str) -> int:
    """One tf.train.Example per image, written by webflow's TFRecordWriter; the record count."""
    sys.path.insert(0, REPO)
    import webflow.compat.v1 as wf

    pixels, labels = read_mnist(folder)
    with wf.python_io.TFRecordWriter(path) as writer:
        for i, label in enumerate(labels):
            example = wf.train.Example(features=wf.train.Features(feature={
                "image_raw": wf.train.Feature(bytes_list=wf.train.BytesList(value=[pixels[i * 784:(i + 1) * 784]])),
                "label": wf.train.Feature(int64_list=wf.train.Int64List(value=[label]))}))
            writer.write(example.SerializeToString())
    return len(labels)


def _features(tf) -> dict:
    return {"image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)}


def _decoded(tf, features: dict, shape: list) -> tuple:
    """Parsed features -> (float images in [0, 1] of `shape`, one-hot float labels)."""
    images = tf.reshape(tf.cast(tf.decode_raw(features["image_raw"], tf.uint8), tf.float32) / 255.0, shape)
    return images, tf.one_hot(features["label"], 10)


def dataset_inputs(tf, mode: str, arrays: tuple, path: str):
    """The (images, labels) get_next() tensors of the mode's input pipeline."""
    static = mode.endswith("_static")
    if mode.startswith("from_tensor_slices"):
        dataset = tf.data.Dataset.from_tensor_slices(arrays).shuffle(10000, seed=1).repeat().batch(
            BATCH, drop_remainder=static)
    elif mode == "tfrecord_map_parse":
        dataset = tf.data.TFRecordDataset(path).repeat().map(
            lambda record: _decoded(tf, tf.parse_single_example(record, _features(tf)), [784])).batch(BATCH)
    else:
        dataset = tf.data.TFRecordDataset(path).repeat().batch(BATCH, drop_remainder=static).map(
            lambda records: _decoded(tf, tf.parse_example(records, _features(tf)), [-1, 784]))
    return tf.data.make_one_shot_iterator(dataset.prefetch(1)).get_next()


def training_step(tf, config, mode: str, arrays: tuple, path: str):
    """(session, step): one training step of the CNN fed as `mode` says, in its own graph and session."""
    import numpy as np
    from cnn_model_tf1 import cnn_train_op

    images, labels = arrays
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        keep_prob = tf.placeholder(tf.float32)
        if mode.startswith("feed_dict"):
            rows = None if mode == "feed_dict_unknown_batch" else BATCH
            x = tf.placeholder(tf.float32, [rows, 784])
            y_ = tf.placeholder(tf.float32, [rows, 10])
        else:
            x, y_ = dataset_inputs(tf, mode, arrays, path)
        train_op = cnn_train_op(tf, x, y_, keep_prob)
        session = tf.Session(config=config)
        session.run(tf.global_variables_initializer())
    rng = np.random.default_rng(1)
    order, at = rng.permutation(len(images)), [len(images)]

    def feed() -> dict:
        if not mode.startswith("feed_dict"):
            return {keep_prob: 0.5}
        if at[0] + BATCH > len(images):    # a new epoch: reshuffle, as DataSet.next_batch does
            order[:] = rng.permutation(len(images))
            at[0] = 0
        chosen = order[at[0]:at[0] + BATCH]
        at[0] += BATCH
        return {x: images[chosen], y_: labels[chosen], keep_prob: 0.5}

    return session, lambda: session.run(train_op, feed())


def measure(framework: str, folder: str, path: str, steps: int, threads: int) -> dict:
    """The child run: every mode's steps/s under one engine. The modes take turns within each repeat (the
    machine is shared: its load then weighs on every mode alike); a mode's figure is its best repeat."""
    sys.path.insert(0, HERE)
    from cnn_model_tf1 import load

    tf, config = load(framework, threads)
    import numpy as np

    pixels, digits = read_mnist(folder)
    images = (np.frombuffer(pixels, np.uint8).reshape(-1, 784) / np.float32(255)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[np.frombuffer(digits, np.uint8)]
    steppers = {mode: training_step(tf, config, mode, (images, labels), path) for mode in MODES}
    for _, step in steppers.values():
        for _ in range(3):   # warm-up: plans, caches, the prefetch threads started
            step()
    best = {mode: [float("inf"), float("inf")] for mode in MODES}   # wall seconds, CPU seconds per step
    for repeat in range(REPEATS):
        for mode in MODES[repeat % len(MODES):] + MODES[:repeat % len(MODES)]:   # each mode goes first once
            step = steppers[mode][1]
            started, cpu = time.perf_counter(), time.process_time()
            for _ in range(steps):
                step()
            wall, cpu = (time.perf_counter() - started) / steps, (time.process_time() - cpu) / steps
            best[mode] = [min(best[mode][0], wall), min(best[mode][1], cpu)]
    for session, _ in steppers.values():
        session.close()
    return {mode: {"steps_per_second": 1.0 / wall, "cpu_ms": 1e3 * cpu} for mode, (wall, cpu) in best.items()}


def run_child(python: str, framework: str, args: argparse.Namespace, folder: str, path: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if framework == "webflow":
        env["PYTHONPATH"] = REPO
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    done = subprocess.run([python, os.path.abspath(__file__), "--framework", framework, "--folder", folder,
                           "--records", path, "--steps", str(args.steps), "--threads", str(args.threads)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        sys.exit(f"the {framework} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description="Deep MNIST CNN steps/s fed by feed_dict vs tf.data")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"),
                        help="TensorFlow's python interpreter (default: $WEBFLOW_TF_PYTHON)")
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA"), help="the folder holding mnist/")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per repeat")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--framework", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--records", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.framework:  # a child run: one JSON dict
        print(json.dumps(measure(args.framework, args.folder, args.records, args.steps, args.threads)))
        return
    folder = mnist_folder(args.data)
    with tempfile.TemporaryDirectory(prefix="cnn_input_pipeline-") as directory:
        path = os.path.join(directory, "mnist_train.tfrecord")
        records = write_records(folder, path)
        mine = run_child(sys.executable, "webflow", args, folder, path)
        theirs = run_child(args.tf_python, "tensorflow", args, folder, path) if args.tf_python else {}
    if not theirs:
        print("# no TensorFlow interpreter (--tf-python or WEBFLOW_TF_PYTHON): webflow figures only", file=sys.stderr)
    for mode in MODES:
        rate = {name: figures[mode]["steps_per_second"] for name, figures in (("webflow", mine), ("tensorflow", theirs))
                if figures}
        line = {"benchmark": f"cnn_{mode}", "batch": BATCH, "records": records, "unit": "steps/s",
                "webflow": round(rate["webflow"], 2),
                "webflow_vs_feed_dict": round(rate["webflow"] / mine["feed_dict"]["steps_per_second"], 2)}
        if theirs:
            line.update(tensorflow=round(rate["tensorflow"], 2), ratio=round(rate["webflow"] / rate["tensorflow"], 2),
                        tensorflow_vs_feed_dict=round(rate["tensorflow"] / theirs["feed_dict"]["steps_per_second"], 2))
        line["cpu_ms_per_step"] = {name: round(figures[mode]["cpu_ms"], 2)
                                   for name, figures in (("webflow", mine), ("tensorflow", theirs)) if figures}
        print(json.dumps(line))


if __name__ == "__main__":
    main()
