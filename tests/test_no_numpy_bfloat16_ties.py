"""bfloat16 Maximum / Minimum / Relu / Relu6 ties under denormals-as-zero without NumPy (as in Pyodide): the C/portable
path returns the same operand's own bits as the NumPy path (backends/bfloat16_eigen.py's break_ties).

TensorFlow compares bfloat16 values with denormals read as 0 and returns one operand's bits: on a tie the first.
With d the bfloat16 denormal nearest 1e-39 (bits 0x000B) the expected bits below follow from that rule alone (and
are TensorFlow 2.21's, checked once: signed zeros tie the same way).
"""

from __future__ import annotations

import json
import subprocess
import sys

import test_no_numpy as no_numpy

PROGRAM = """
import json, struct
import webflow as wf

def bits(t):
    values = wf.reshape(wf.cast(t, wf.float32), [-1]).numpy().tolist()
    return [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in values]

def bf16(values):
    return wf.cast(wf.constant(values, wf.float32), wf.bfloat16)

d, z = bf16([1e-39, -1e-39, 0.0, -0.0, 2.0, 1e-39]), bf16([0.0, -0.0, 1e-39, -1e-39, -1e-39, 1e-39])
zero = bf16(0.0)
print(json.dumps({"max": bits(wf.maximum(d, z)), "min": bits(wf.minimum(d, z)), "relu": bits(wf.nn.relu(-d)),
                  "relu6": bits(wf.nn.relu6(bf16([1e-39, -1e-39, 7.0, -3.0, -0.0]))),
                  "max_row": bits(wf.maximum(wf.reshape(d, [2, 3]), bf16([[0.0], [-1e-39]]))),
                  "max_scalar_first": bits(wf.maximum(zero, d))}))
"""

D, MINUS_D, ZERO, MINUS_ZERO, TWO, SIX = 0x000B, 0x800B, 0x0000, 0x8000, 0x4000, 0x40C0
EXPECTED = {
    "max": [D, MINUS_D, ZERO, MINUS_ZERO, TWO, D],   # ties keep the first operand; 2 > -d
    "min": [D, MINUS_D, ZERO, MINUS_ZERO, MINUS_D, D],   # -d (read as 0) < 2
    "relu": [MINUS_D, D, MINUS_ZERO, ZERO, ZERO, MINUS_D],   # relu(-d) = max(-d, 0) ties: -d itself; -0 too
    "relu6": [D, MINUS_D, SIX, ZERO, MINUS_ZERO],
    "max_row": [D, MINUS_D, ZERO, MINUS_ZERO, TWO, D],   # a broadcast second operand: each row's own tie
    "max_scalar_first": [ZERO, ZERO, ZERO, ZERO, TWO, ZERO],   # maximum(0, d) = maximum(0, -0) = 0 (the first)
}


def _with_numpy() -> dict:
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=dict(no_numpy.os.environ, PYTHONPATH=no_numpy.ROOT),
                          capture_output=True, text=True, timeout=600, cwd=no_numpy.ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_ties_without_numpy_give_tensorflow_bits() -> None:
    assert no_numpy.run_without_numpy(PROGRAM) == EXPECTED


def test_ties_with_numpy_give_the_same_bits() -> None:
    assert _with_numpy() == EXPECTED
