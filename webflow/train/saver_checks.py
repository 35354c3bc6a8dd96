"""What `Saver.restore` checks before it changes any variable: each key is in the checkpoint, with the
variable's dtype and a compatible shape (with `reshape=True`, the same number of elements), raising
TensorFlow's errors and messages (NotFoundError, InvalidArgumentError) with its "Restoring from checkpoint
failed" preamble."""

from __future__ import annotations

from typing import Any

from webflow.framework import errors

_FAILED = ("Restoring from checkpoint failed. This is most likely due to a mismatch between the current graph "
           "and the graph from the checkpoint. Please ensure that you have not altered the graph expected based "
           "on the checkpoint. Original error:\n\n")


def check_restorable(reader: Any, name: str, variable: Any, reshape: bool = False) -> None:
    """Raises TensorFlow's error when the BundleReader's tensor `name` cannot be restored into `variable`."""
    if not reader.has_tensor(name):
        raise errors.NotFoundError(None, None, f"{_FAILED}Key {name} not found in checkpoint")
    stored_dtype = reader.dtype(name)
    wanted = variable.dtype.base_dtype
    if stored_dtype != wanted:
        raise errors.InvalidArgumentError(
            None, None, f"{_FAILED}tensor_name = {name}; expected dtype {wanted.name} does not equal "
                        f"original dtype {stored_dtype.name}")
    stored, shape = list(reader.shape(name)), variable.shape
    if reshape and shape.is_fully_defined() and shape.num_elements() == _count(stored):
        return   # reshape=True: the same number of elements is enough
    if not shape.is_compatible_with(stored):
        lhs = "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
        rhs = "[" + ",".join(str(d) for d in stored) + "]"
        raise errors.InvalidArgumentError(
            None, None, f"{_FAILED}Assign requires shapes of both tensors to match. lhs shape= {lhs} "
                        f"rhs shape= {rhs} (variable {name})")


def _count(shape: list) -> int:
    count = 1
    for size in shape:
        count *= size
    return count
