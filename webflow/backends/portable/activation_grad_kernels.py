"""TanhGrad and SigmoidGrad without NumPy or C: plain Python over the CArrays' flat `array.array`s.

Used only where neither NumPy nor the C library is there (the C kernels, wasm/activation_grads.c, run in Pyodide).
Each element is computed in double precision and rounded once when stored into a float32 array, so a float32
result may differ from the NumPy kernel's (which rounds after every operation) in the last bit.
"""

from __future__ import annotations

import array
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.c.activations import same_shapes


def _elementwise(op_type: str, formula: Callable[[float, float], float]) -> Callable:
    def kernel(y: Any, dy: Any) -> CArray:
        y, dy = c_array.from_value(y), c_array.from_value(dy, y.dtype)
        same_shapes(op_type, y, dy)
        values = array.array(y.data.typecode, [formula(out, grad) for out, grad in zip(y.data, dy.data)])
        return CArray(values, y.shape, y.dtype)

    kernel.__name__ = op_type
    kernel.__doc__ = formula.__doc__
    return kernel


def _tanh_grad(out: float, grad: float) -> float:
    """z = dy * (1 - y * y)."""
    return grad * (1.0 - out * out)


def _sigmoid_grad(out: float, grad: float) -> float:
    """z = dy * (y * (1 - y))."""
    return grad * (out * (1.0 - out))


tanh_grad = _elementwise("TanhGrad", _tanh_grad)
sigmoid_grad = _elementwise("SigmoidGrad", _sigmoid_grad)
