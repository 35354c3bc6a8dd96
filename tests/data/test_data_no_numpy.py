"""A tf.data pipeline runs without NumPy (as in Pyodide) and gives what it gives with NumPy.

The program below runs twice in child processes: with `import numpy` blocked (CArrays, portable kernels,
prefetch as in the browser) and normally; both print the pipeline's elements as JSON, which must be equal.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = r'''
import json, os, sys, tempfile
if "--no-numpy" in sys.argv:
    sys.modules["numpy"] = None
import webflow as wf
from webflow.io.tfrecord import TFRecordWriter

def plain(value):
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    value = value.numpy()
    value = value.tolist() if hasattr(value, "tolist") else value
    return value.decode("latin-1") if isinstance(value, bytes) else \
        [v.decode("latin-1") if isinstance(v, bytes) else v for v in value] if isinstance(value, list) else value

folder = tempfile.mkdtemp()
path = os.path.join(folder, "r.tfrecord")
with TFRecordWriter(path) as writer:
    for i in range(10):
        writer.write(bytes([65 + i]) * (i % 3 + 1))
out = {}
records = wf.data.TFRecordDataset(path).shuffle(4, seed=1).batch(3).prefetch(2)
out["records"] = [plain(b) for b in records]
numbers = wf.data.Dataset.range(12).map(lambda v: (wf.cast(v, wf.float32) * 0.5, {"odd": v % 2}))
numbers = numbers.filter(lambda x, d: x > 1.0).batch(4, drop_remainder=True).unbatch().skip(1).take(5)
out["numbers"] = [plain(e) for e in numbers]
windows = wf.data.Dataset.range(5).map(lambda x: wf.fill(wf.expand_dims(x, 0), x)).window(2)
out["windows"] = [plain(e) for e in windows.flat_map(lambda w: w.padded_batch(2, padded_shapes=[None]))]
out["generator"] = [plain(e) for e in wf.data.Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), wf.int32, [2])
                    .interleave(lambda v: wf.data.Dataset.from_tensors(v).repeat(2), cycle_length=2)]
out["reduce"] = plain(wf.data.Dataset.range(6).reduce(wf.constant(0, wf.int64), lambda s, v: s + v * v))
def parts(s):
    return [plain(s.indices), plain(s.values), plain(s.dense_shape)]

def example(values):
    feature = wf.train.Feature(int64_list=wf.train.Int64List(value=values))
    return wf.train.Example(features=wf.train.Features(feature={"v": feature})).SerializeToString()

parsed = wf.data.Dataset.from_tensor_slices([example([1, 2, 3]), example([]), example([7])]).map(
    lambda r: wf.io.parse_single_example(r, {"v": wf.io.VarLenFeature(wf.int64)})["v"])
out["sparse_batches"] = [parts(b) for b in parsed.batch(2)]
out["sparse_rows"] = [parts(b) for b in parsed.batch(2).unbatch()]
print("RESULT:" + json.dumps(out))
'''


def _run(no_numpy: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("WEBFLOW_BACKEND", None)
    arguments = [sys.executable, "-c", PROGRAM] + (["--no-numpy"] if no_numpy else [])
    done = subprocess.run(arguments, env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])


def test_pipeline_without_numpy_matches_numpy():
    with_numpy, without = _run(False), _run(True)
    assert without == with_numpy
    assert with_numpy["reduce"] == sum(v * v for v in range(6))
    assert with_numpy["windows"] == [[[0], [1]], [[2, 2, 0], [3, 3, 3]], [[4, 4, 4, 4]]]
    # batches of VarLenFeatures: [row, position] indices, dense shape [rows, longest row]
    assert with_numpy["sparse_batches"] == [[[[0, 0], [0, 1], [0, 2]], [1, 2, 3], [2, 3]], [[[0, 0]], [7], [1, 1]]]
    assert [rows[2] for rows in with_numpy["sparse_rows"]] == [[3], [3], [1]]
