"""CountUpTo: increments a TF1 integer variable until a limit, then raises OutOfRangeError. It is the epoch
counter of TF1 input pipelines (`tf.train.limit_epochs`), which several queue-runner threads run at once, so the
read-and-increment is atomic. TensorFlow registers no gradient for it (LookupError when differentiated), nor here.
"""

from __future__ import annotations

import threading
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework import context as mode
from webflow.framework.errors import FailedPreconditionError, OutOfRangeError
from webflow.framework.uninitialized import UNINITIALIZED
from webflow.ops.data_flow_ops import located
from webflow.ops.registry import apply_op, output_spec, register_op

_COUNT = threading.Lock()


def _count_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[0].shape, inputs[0].dtype.base_dtype)


@register_op("CountUpTo", "CountUpTo", inputs=("ref",), shape=_count_shape, needs_context=True, stateful=True)
def count_up_to_kernel(context: Any, ref: Any, *, limit: int, T: Any = None) -> Any:  # noqa: N803
    """Returns ref and sets ref = ref + 1, if ref < limit; else OutOfRangeError "Reached limit of <limit>"."""
    key = context.ref_key(0)
    with _COUNT:
        old = context.resources.get(key, UNINITIALIZED)
        if old is UNINITIALIZED:
            raise FailedPreconditionError(None, None, f"Attempting to use uninitialized value {key}\n\t "
                                                      f"[[{{{{node {context.op_name}}}}}]]")
        count = int(backend_values.flat_list(old)[0])
        if count >= limit:
            raise located(OutOfRangeError(None, None, f"Reached limit of {limit}"), context, "CountUpTo")
        context.resources[key] = backend_values.scalar(count + 1, T or old.dtype)
    return old


def count_up_to(ref: Any, limit: int, name: str | None = None) -> Any:
    """`tf.count_up_to(ref, limit)`: the counter's value before this increment (a TF1 variable's op)."""
    if mode.executing_eagerly():
        raise NotImplementedError("count_up_to needs a TF1 (graph) variable in webflow")
    variable = getattr(ref, "_variable", ref)  # a RefVariable's VariableV2 output, a ref tensor
    return apply_op("CountUpTo", [variable], {"limit": int(limit), "T": variable.dtype.base_dtype}, name=name)


__all__ = ["count_up_to"]
