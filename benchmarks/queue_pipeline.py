"""Records per second through TF1's queue pipeline, webflow next to TensorFlow: string_input_producer ->
TFRecordReader.read -> tf.train.batch(128), with queue-runner threads and a Coordinator, to the OutOfRangeError.

    PYTHONPATH=. python benchmarks/queue_pipeline.py --tf-python /path/to/tf-venv/bin/python
    PYTHONPATH=. python benchmarks/queue_pipeline.py --quick      # fewer records; TF from $WEBFLOW_TF_PYTHON

webflow runs in this process, TensorFlow by re-running this file under its interpreter; the files (20 TFRecord
files of 100-byte records) go to a fresh temporary directory, written by the engine under test. One JSON line:
records/s of each engine (best of 3 runs) and ratio = webflow / TensorFlow (above 1: webflow is faster).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def measure(tf, records: int) -> float:
    """Best records/s of three runs of the pipeline over `records` records."""
    tf.disable_v2_behavior()
    with tempfile.TemporaryDirectory() as directory:
        files = [os.path.join(directory, f"part-{i:02d}.tfrecord") for i in range(20)]
        for path in files:
            with tf.python_io.TFRecordWriter(path) as writer:
                for i in range(records // len(files)):
                    writer.write(bytes([i % 256]) * 100)
        best = 0.0
        for _ in range(3):
            tf.reset_default_graph()
            queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
            _, value = tf.TFRecordReader().read(queue)
            batch = tf.train.batch([value], batch_size=128, allow_smaller_final_batch=True)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                count, started = 0, time.perf_counter()
                try:
                    while True:
                        count += len(sess.run(batch))
                except tf.errors.OutOfRangeError:
                    pass
                elapsed = time.perf_counter() - started
                coord.request_stop()
                coord.join(threads)
            assert count == records // len(files) * len(files), count
            best = max(best, count / elapsed)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tf-python", default=os.environ.get("WEBFLOW_TF_PYTHON"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--engine", choices=["webflow", "tensorflow"], default=None)  # internal: one engine only
    args = parser.parse_args()
    records = 4000 if args.quick else 20000
    if args.engine == "tensorflow":
        import tensorflow.compat.v1 as tf

        print(json.dumps({"records_per_s": measure(tf, records)}))
        return
    import webflow.compat.v1 as wf

    figures = {"benchmark": "queue_pipeline_tfrecord_batch128", "records": records, "unit": "records/s",
               "webflow": round(measure(wf, records))}
    if args.tf_python:
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
        command = [args.tf_python, __file__, "--engine", "tensorflow"] + (["--quick"] if args.quick else [])
        done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
        figures["tensorflow"] = round(json.loads(done.stdout.strip().splitlines()[-1])["records_per_s"])
        figures["ratio"] = round(figures["webflow"] / figures["tensorflow"], 2)
    print(json.dumps(figures))


if __name__ == "__main__":
    sys.exit(main())
