"""tf.data throughput of webflow next to TensorFlow's, printed as JSON lines: records per second.

    PYTHONPATH=. python benchmarks/data_pipeline.py [--tf-python PATH] [--quick] [--data DIR]

The records are MNIST's: each one the 784 pixel bytes of an image followed by its label byte, written once
by webflow's TFRecordWriter into a temporary file (TFRecord files are byte-compatible, so TensorFlow reads
the same file). MNIST comes from --data, else $WEBFLOW_DATA (its mnist/ folder): the 60,000 training images,
or the 10,000 test images with --quick. Each engine then runs, best of 3 passes over the whole file:
- tfrecord_batch128_eager:  `for batch in TFRecordDataset(path).batch(128)` in TF2's eager mode;
- tfrecord_batch128_graph:  the same pipeline in a TF1 graph, a one-shot iterator's get_next per Session.run
                            until OutOfRangeError;
- tfrecord_map_shuffle_batch128_eager: `.map(lambda r: (r, 1)).shuffle(1024, seed=1).batch(128).prefetch(2)`;
- png_decode_resize_map_autotune_eager: the same images as PNG files (8-bit grey, written by zlib here) read
  from a second TFRecord file, `.map(decode_png -> resize 56x56 -> per_image_standardization,
  num_parallel_calls=AUTOTUNE).batch(128)`: TensorFlow runs the calls in parallel threads, webflow in turn
  (webflow/data/README.md says why); `..._sequential_eager` is the same without num_parallel_calls.
TensorFlow runs by re-running this file under its interpreter (--tf-python, else $WEBFLOW_TF_PYTHON).
One line per figure: {"benchmark", "unit": "records/s", "webflow", "tensorflow", "ratio"}, ratio = webflow /
TensorFlow (below 1: webflow is slower).
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
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSES = 3


def write_records(data: str, quick: bool, path: str) -> int:
    """MNIST images + labels as TFRecords (784 pixel bytes + 1 label byte each); returns the record count."""
    sys.path.insert(0, REPO)
    from webflow.io.tfrecord import TFRecordWriter

    part = "t10k" if quick else "train"
    images = gzip.decompress(open(os.path.join(data, "mnist", f"{part}-images-idx3-ubyte.gz"), "rb").read())[16:]
    labels = gzip.decompress(open(os.path.join(data, "mnist", f"{part}-labels-idx1-ubyte.gz"), "rb").read())[8:]
    with TFRecordWriter(path) as writer:
        for i, label in enumerate(labels):
            writer.write(images[i * 784:(i + 1) * 784] + bytes([label]))
    return len(labels)


def png_path(path: str) -> str:
    return path + ".png.tfrecord"


def write_png_records(path: str) -> None:
    """Each record of `path` (784 pixels + label) again as a 28x28 grey PNG, in a second TFRecord file."""
    from webflow.io.tfrecord import TFRecordWriter, tf_record_iterator

    with TFRecordWriter(png_path(path)) as writer:
        for record in tf_record_iterator(path):
            writer.write(_png(record[:784], 28, 28))


def _png(pixels: bytes, width: int, height: int) -> bytes:
    """A minimal PNG (the PNG spec: IHDR, one zlib IDAT of rows each led by filter byte 0, IEND)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    rows = b"".join(b"\0" + pixels[y * width:(y + 1) * width] for y in range(height))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def _best_rate(run_pass, records: int) -> float:
    best = float("inf")
    for _ in range(PASSES):
        started = time.perf_counter()
        seen = run_pass()
        best = min(best, time.perf_counter() - started)
        if seen != records:
            raise AssertionError(f"a pass saw {seen} records, expected {records}")
    return records / best


def measure(framework: str, path: str, records: int) -> dict:
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow as tf
        import tensorflow.compat.v1 as tf1
    else:
        sys.path.insert(0, REPO)
        import webflow as tf
        import webflow.compat.v1 as tf1

    def eager_pass() -> int:
        return sum(int(batch.shape[0]) for batch in tf.data.TFRecordDataset(path).batch(128))

    def eager_map_shuffle_pass() -> int:
        dataset = tf.data.TFRecordDataset(path).map(lambda r: (r, 1)).shuffle(1024, seed=1).batch(128).prefetch(2)
        return sum(int(batch[0].shape[0]) for batch in dataset)

    def graph_pass() -> int:
        graph = tf1.Graph()
        with graph.as_default():
            batch = tf1.data.make_one_shot_iterator(tf1.data.TFRecordDataset(path).batch(128)).get_next()
            seen = 0
            with tf1.Session(graph=graph) as session:
                try:
                    while True:
                        seen += len(session.run(batch))
                except tf1.errors.OutOfRangeError:
                    return seen

    def png_pass(parallel: bool) -> int:
        def prepare(record):
            image = tf.image.resize(tf.image.decode_png(record, channels=1), [56, 56])
            return tf.image.per_image_standardization(image)

        calls = tf.data.AUTOTUNE if parallel else None
        dataset = tf.data.TFRecordDataset(png_path(path)).map(prepare, num_parallel_calls=calls).batch(128)
        return sum(int(batch.shape[0]) for batch in dataset)

    return {"png_decode_resize_map_autotune_eager": _best_rate(lambda: png_pass(True), records),
            "png_decode_resize_map_sequential_eager": _best_rate(lambda: png_pass(False), records),
            "tfrecord_batch128_eager": _best_rate(eager_pass, records),
            "tfrecord_batch128_graph": _best_rate(graph_pass, records),
            "tfrecord_map_shuffle_batch128_eager": _best_rate(eager_map_shuffle_pass, records)}


def main() -> None:
    parser = argparse.ArgumentParser(description="tf.data records/s, webflow next to TensorFlow")
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"),
                        help="TensorFlow's python interpreter (default: $WEBFLOW_TF_PYTHON)")
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA"), help="the folder holding mnist/")
    parser.add_argument("--quick", action="store_true", help="the 10,000 test images instead of 60,000")
    parser.add_argument("--framework", choices=["webflow", "tensorflow"], help=argparse.SUPPRESS)
    parser.add_argument("--records", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.framework:  # the child run: print one JSON dict
        path, count = args.records.rsplit(":", 1)
        print(json.dumps(measure(args.framework, path, int(count))))
        return
    if not args.data:
        sys.exit("no MNIST: pass --data DIR or set WEBFLOW_DATA")
    with tempfile.TemporaryDirectory(prefix="data_pipeline-") as directory:
        path = os.path.join(directory, "mnist.tfrecord")
        records = write_records(args.data, args.quick, path)
        write_png_records(path)
        theirs: dict = {}
        if args.tf_python:
            env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
            env["TF_CPP_MIN_LOG_LEVEL"] = "3"
            done = subprocess.run([args.tf_python, os.path.abspath(__file__), "--framework", "tensorflow",
                                   "--records", f"{path}:{records}"], capture_output=True, text=True, env=env,
                                  check=False)
            if done.returncode != 0:
                sys.exit(f"the TensorFlow run failed:\n{done.stderr[-3000:]}")
            theirs = json.loads(done.stdout.strip().splitlines()[-1])
        else:
            print("# no TensorFlow interpreter (--tf-python or WEBFLOW_TF_PYTHON): webflow figures only",
                  file=sys.stderr)
        mine = measure("webflow", path, records)
    for name, rate in mine.items():
        line = {"benchmark": name, "records": records, "unit": "records/s", "webflow": round(rate)}
        if name in theirs:
            line["tensorflow"] = round(theirs[name])
            line["ratio"] = round(rate / theirs[name], 2)
        print(json.dumps(line))


if __name__ == "__main__":
    main()
