"""Op table rows for the Python-function ops (ops/script_ops.py): PyFunc and PyFuncStateless (`tf.py_func`,
`tf.numpy_function`: not differentiable, as in TensorFlow) and EagerPyFunc (`tf.py_function`, differentiable: its
gradient reruns the function under a tape). The functions here use only what runs without NumPy too (returning
their inputs, webflow ops), so the rows also run as Pyodide runs them. tests/test_script_ops.py compares
with real TensorFlow."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops import script_ops

rng = np.random.default_rng(27)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.integers(-5, 5, (4,)).astype(np.int32)
X = rng.standard_normal((3, 2))
Y = rng.standard_normal((3, 2))


def _swap(a, b):
    return b, a


def _product_plus_sine(a, b):
    return a * b + wf.sin(a), wf.reduce_sum(b)


CASES = [
    OpCase("py_func_two_outputs", lambda a, b: script_ops.py_func(_swap, [a, b], [wf.int32, wf.float32]), [A, B],
           lambda a, b: [b, a], grad=False, fully_static=False),
    OpCase("py_func_stateless", lambda a: script_ops.numpy_function(lambda v: v, [a], wf.float32, stateful=False),
           [A], lambda a: a, grad=False, fully_static=False),
    OpCase("eager_py_func", lambda x, y: script_ops.py_function(_product_plus_sine, [x, y], [wf.float64, wf.float64]),
           [X, Y], lambda x, y: [x * y + np.sin(x), np.sum(y)], fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
