"""Keras masks: which timesteps of a tensor are real (True) and which are padding (False).

tf_keras hangs a mask on a tensor as `tensor._keras_mask`; webflow's tensors have fixed slots, so the mask lives
in this side table keyed by the tensor's identity, and leaves the table when the tensor is garbage collected.
A layer whose `call` takes `mask=` receives its input's mask; its `compute_mask` gives the mask of its output.
"""

from __future__ import annotations

import weakref
from typing import Any

_MASKS: dict[int, tuple[Any, Any]] = {}   # id(tensor) -> (weak reference to it, its mask)


def set_mask(tensor: Any, mask: Any) -> None:
    """Records `mask` ([batch, time] bool, or None to forget) as the mask of `tensor`."""
    key = id(tensor)
    if mask is None:
        _MASKS.pop(key, None)
        return
    try:
        ref = weakref.ref(tensor, lambda _ref, key=key: _MASKS.pop(key, None))
    except TypeError:   # not weak-referenceable (a Python value): no mask to carry
        return
    _MASKS[key] = (ref, mask)


def get_mask(tensor: Any) -> Any:
    """The mask recorded for `tensor`, or None."""
    entry = _MASKS.get(id(tensor))
    if entry is None or entry[0]() is not tensor:
        return None
    return entry[1]


def masks_of(inputs: Any) -> Any:
    """The mask of one input, or the list of masks of a list of inputs (None when there is none at all)."""
    if isinstance(inputs, (list, tuple)):
        found = [get_mask(item) for item in inputs]
        return found if any(mask is not None for mask in found) else None
    return get_mask(inputs)


def attach(outputs: Any, output_mask: Any) -> None:
    """Records the masks `compute_mask` gave: one for one output, a list for a list of outputs."""
    if isinstance(outputs, (list, tuple)):
        output_masks = output_mask if isinstance(output_mask, (list, tuple)) else [output_mask] * len(outputs)
        for item, mask in zip(outputs, output_masks):
            set_mask(item, mask)
    else:
        set_mask(outputs, output_mask[0] if isinstance(output_mask, (list, tuple)) else output_mask)


def loss_weights(mask: Any, dtype: Any) -> Any:
    """tf_keras's weights for the loss of a masked output: mask * (entries / real entries), so the loss's mean
    over all entries is the mean over the real ones (padding counts for nothing)."""
    from webflow.ops.array_ops import size
    from webflow.ops.math_ops import cast, multiply, truediv
    from webflow.ops.sum_mean_ops import reduce_sum

    weights = cast(mask, dtype)
    return multiply(weights, truediv(cast(size(mask), dtype), reduce_sum(weights)))
