"""tf.data.experimental.make_csv_dataset (data/csv_dataset.py) and tf.io.decode_csv in a pipeline, against
TensorFlow 2.21: one TF2 program run under TensorFlow (WEBFLOW_TF_PYTHON, skipped when unset) and under webflow
on the same CSV files; the batches (keys, dtypes, values, in order: no shuffling) must be equal.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

FILES = {
    "a.csv": 'id,score,label,name\n1,2.5,0,x\n2,,1,y\n3,4.5,0,"z,w"\n4,1e3,1,q\n',
    "b.csv": "id,score,label,name\n5,6.5,1,r\n6,-0.25,0,\n",
}

PROGRAM = r'''
import numpy as np

def plain(value):
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    array = value.numpy()
    return [str(array.dtype), [v.decode() if isinstance(v, bytes) else v for v in array.reshape(-1).tolist()]]

def batches(dataset, count=None):
    out = []
    for i, element in enumerate(dataset):
        if count is not None and i >= count:
            break
        out.append(plain(element))
    return out

pattern = FOLDER + "/*.csv"
experimental = tf.data.experimental
result = {
    "inferred": batches(experimental.make_csv_dataset(pattern, 3, label_name="label", num_epochs=1, shuffle=False)),
    "no_label": batches(experimental.make_csv_dataset(pattern, 4, num_epochs=1, shuffle=False)),
    "defaults": batches(experimental.make_csv_dataset(
        pattern, 2, column_defaults=[tf.int64, [-1.0], [0], ["?"]], num_epochs=1, shuffle=False)),
    "select": batches(experimental.make_csv_dataset(pattern, 5, select_columns=["name", "id"], num_epochs=1,
                                                    shuffle=False)),
    "repeat_forever": batches(experimental.make_csv_dataset(pattern, 4, label_name="label", shuffle=False), 4),
    "decode_csv_map": batches(tf.data.TextLineDataset(FOLDER + "/a.csv").skip(1).map(
        lambda line: tf.io.decode_csv(line, [[0], [0.0], [0], ["?"]])).batch(2)),
}
'''


def _run_webflow(program: str) -> dict:
    scope: dict = {}
    exec(program, scope)  # noqa: S102 - the test's own program
    return json.loads(json.dumps(scope["result"]))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> tuple:
    folder = tmp_path_factory.mktemp("csv")
    for name, text in FILES.items():
        (folder / name).write_text(text)
    program = f"FOLDER = {str(folder)!r}\n" + PROGRAM
    driver = ("import json, sys\nimport tensorflow as tf\nscope = {'tf': tf}\nexec(sys.stdin.read(), scope)\n"
              "print('RESULT:' + json.dumps(scope['result']))")
    done = subprocess.run([TF_PYTHON, "-c", driver], input=program, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-4000:]
    return json.loads(lines[-1][len("RESULT:"):]), _run_webflow("import webflow as tf\n" + program)


@pytest.mark.parametrize("key", ["inferred", "no_label", "defaults", "select", "repeat_forever", "decode_csv_map"])
def test_csv_batches_match_tensorflow(results, key):
    theirs, ours = results
    assert ours[key] == theirs[key]
