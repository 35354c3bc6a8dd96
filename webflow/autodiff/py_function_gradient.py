"""The gradient of `EagerPyFunc` (`tf.py_function`, ops/script_ops.py): another EagerPyFunc that runs the Python
function again on the same inputs under a GradientTape and returns d(outputs)/d(inputs) times the upstream
gradients. (TensorFlow keeps the tape of the forward call instead of rerunning it: the same numbers for a
function without randomness or side effects.) Inputs that are not floating point get no gradient (None).
"""

from __future__ import annotations

from typing import Any

from webflow.autodiff.tape import GradientTape
from webflow.ops import script_ops
from webflow.ops.array_ops import zeros_like
from webflow.ops.registry import register_gradient


def _differentiable(dtype: Any) -> bool:
    return dtype.base_dtype.is_floating or dtype.base_dtype.is_complex


@register_gradient("EagerPyFunc")
def _eager_py_func_grad(op: Any, *grads: Any) -> list:
    func = script_ops.function_of(op.get_attr("token"))
    inputs, outputs = list(op.inputs), list(op.outputs)
    wanted = [i for i, x in enumerate(inputs) if _differentiable(x.dtype)]
    if not wanted:
        return [None] * len(inputs)
    upstream = [zeros_like(y) if g is None else g for g, y in zip(grads, outputs)]

    def gradient_function(*values: Any) -> list:
        xs, seeds = list(values[:len(inputs)]), list(values[len(inputs):])
        with GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            ys = func(*xs)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        sources = [xs[i] for i in wanted]
        found = tape.gradient(ys, sources, output_gradients=seeds)
        return [zeros_like(x) if g is None else g for g, x in zip(found, sources)]

    computed = script_ops.py_function(gradient_function, inputs + upstream,
                                      [inputs[i].dtype.base_dtype for i in wanted])
    result: list = [None] * len(inputs)
    for i, g in zip(wanted, computed):
        result[i] = g
    return result
