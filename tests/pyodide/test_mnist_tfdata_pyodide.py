"""The MNIST demo's tf.data mode inside Pyodide (Node, offline, no NumPy; protobuf's pure-Python wheel from the
built site, as the pages load it), against CPython.

site/demo/mnist_tfdata.py writes 1,000 sample images as tf.train.Example records into a TFRecord under /tmp
(Pyodide's in-memory file system), then trains
the demo's TF1 model through TFRecordDataset -> map(parse_single_example) -> cache -> shuffle(seed) -> batch, no
feed_dict. The oracle is the same file run in CPython with NumPy and protobuf (a child process): every batch
(labels, per-image pixel sums, the first image) must be identical — the seeded shuffle and the parsing are
engine-independent — and the losses equal to float32 rounding (wasm kernels vs NumPy), and falling.

Fast: webflow is copied into Pyodide (no wheel build); the sample's .gz files and the demo's .py files reach
it through the exchange folder. Needs node + `npm ci` in tests/pyodide; skips without them.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable, site_protobuf_wheel  # noqa: E402

DEMO = os.path.join(ROOT, "site", "demo")
SAMPLE = os.path.join(ROOT, "webflow", "datasets", "sample")
EXAMPLES, EPOCHS, STEPS = 1000, 2, 20   # 10 batches of 100 per pass over the first 1,000 images; the 2nd cached

# Runs in both engines; `demo_dir` / `sample_dir` are set before it. The last expression is the result.
PROGRAM = textwrap.dedent(f"""
    import sys, time
    from pathlib import Path
    sys.path.insert(0, demo_dir)
    from mnist_tfdata import MnistTfDataDemo
    started = time.perf_counter()
    demo = MnistTfDataDemo(Path(sample_dir), examples={EXAMPLES}, epochs={EPOCHS})
    built = time.perf_counter() - started
    log = demo.train_logged({STEPS})
    {{"log": log, "info": demo.info(), "records_in": demo.records_path, "build_s": built,
      "train_s": time.perf_counter() - started - built,
      "numpy": sys.modules.get("numpy") is not None, "protobuf": sys.modules.get("google.protobuf") is not None}}
""")


def _cpython() -> dict:
    """The oracle: PROGRAM in a CPython child process (NumPy backend, real protobuf Examples)."""
    code = (f"demo_dir, sample_dir = {DEMO!r}, {SAMPLE!r}\nimport ast, json\n"
            f"tree = ast.parse({PROGRAM!r})\nlast = tree.body.pop()\nexec(compile(tree, 'p', 'exec'))\n"
            "print('RESULT:' + json.dumps(eval(compile(ast.Expression(last.value), 'p', 'eval'))))")
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-3000:]
    return json.loads(lines[-1][len("RESULT:"):])


def _pyodide() -> dict:
    """PROGRAM inside Pyodide: webflow copied in; the real package imported over the runner's bare stand-in."""
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        pytest.skip("node or tests/pyodide/node_modules (npm ci) missing: cannot run Pyodide")
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"), extra_wheels=[site_protobuf_wheel()])
    except PyodideUnavailable as error:
        pytest.skip(str(error))
    try:
        for folder, names in (("demo", ["mnist_model.py", "mnist_tfdata.py"]),
                              ("sample", [n for n in os.listdir(SAMPLE) if n.endswith(".gz")])):
            os.makedirs(os.path.join(session.exchange, folder))
            source = DEMO if folder == "demo" else SAMPLE
            for name in names:
                shutil.copy(os.path.join(source, name), os.path.join(session.exchange, folder, name))
        return session.evaluate(textwrap.dedent("""
            import sys
            for name in [n for n in sys.modules if n == "webflow" or n.startswith("webflow.")]:
                del sys.modules[name]   # the runner's bare package: import the real one
            demo_dir, sample_dir = "/exchange/demo", "/exchange/sample"
        """) + PROGRAM)
    finally:
        session.close()


def test_tf_data_fed_demo_in_pyodide_gives_cpythons_batches_and_learns() -> None:
    got = _pyodide()
    expected = _cpython()
    assert (got["numpy"], got["protobuf"]) == (False, True)     # the browser's situation
    assert (expected["numpy"], expected["protobuf"]) == (True, True)
    assert got["records_in"].startswith("/tmp/")                 # Pyodide's in-memory file system
    assert got["info"]["input_pipeline"] == "tf.data" and got["info"]["train_examples"] == EXAMPLES
    # each record: 12-byte header/footer frame + the Example (784 image bytes + keys and tags), in both engines
    assert got["info"]["records_bytes"] == expected["info"]["records_bytes"]
    assert len(got["log"]) == len(expected["log"]) == STEPS
    for step, (mine, theirs) in enumerate(zip(got["log"], expected["log"], strict=True)):
        assert mine["labels"] == theirs["labels"], step
        assert mine["pixel_sums"] == theirs["pixel_sums"], step
        assert mine["first_row"] == theirs["first_row"], step
        assert abs(mine["loss"] - theirs["loss"]) < 1e-4 * max(1.0, abs(theirs["loss"])), (step, mine["loss"])
    losses = [entry["loss"] for entry in got["log"]]
    assert sum(losses[-3:]) / 3 < 0.5 * losses[0], losses      # it learns
    # each shuffled pass (the second from cache(), in another order) holds exactly the first 1,000 images of the
    # IDX file, each once
    with gzip.open(os.path.join(SAMPLE, "train-images-idx3-ubyte.gz")) as handle:
        pixels = handle.read()[16:16 + EXAMPLES * 784]
    from_file = sorted(sum(pixels[i * 784:(i + 1) * 784]) for i in range(EXAMPLES))
    passes = [[s for entry in got["log"][start:start + 10] for s in entry["pixel_sums"]] for start in (0, 10)]
    assert sorted(passes[0]) == sorted(passes[1]) == from_file
    assert passes[0] != passes[1]                                  # reshuffled for the second pass
    print(f"\nPyodide: records + graph {got['build_s']:.1f} s, {STEPS} tf.data-fed steps {got['train_s']:.1f} s "
          f"(CPython {expected['build_s']:.1f} s, {expected['train_s']:.1f} s); losses {losses[0]:.3f} -> "
          f"{losses[-1]:.3f}")
