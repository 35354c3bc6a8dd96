"""Run-time argument checks that TensorFlow's CPU kernels make, on plain shape tuples, written once.

Every backend's kernel for an op calls the same check (the NumPy kernel in ops/, the C adapter in backends/c/,
the no-NumPy kernel in backends/portable/), so a learner gets TensorFlow's InvalidArgumentError, word for word,
whichever kernel runs.
"""

from __future__ import annotations

from webflow.framework.errors import InvalidArgumentError


def select_condition_shape(cond: tuple, then: tuple, other: tuple) -> tuple:
    """Select (TF1 `tf.where` with x and y): the shape to read `cond` as against `then` (TF's SelectOp checks).

    `then` and `other` must have one shape; a vector cond picks whole rows (the first dimension) of a higher-rank
    `then`, so it is read as [rows, 1, 1, ...]; any other non-scalar cond must have `then`'s shape."""
    cond, then, other = tuple(cond), tuple(then), tuple(other)
    if then != other:
        raise InvalidArgumentError(None, None, f"'then' and 'else' must have the same size. but received: "
                                               f"{list(then)} vs. {list(other)}")
    if len(cond) == 1 and len(then) > 1:
        if cond[0] != then[0]:
            raise InvalidArgumentError(None, None, f"Number of batches of 'then' must match size of 'cond', "
                                                   f"but saw: {cond[0]} vs. {then[0]}")
        return cond + (1,) * (len(then) - 1)
    if cond and cond != then:
        raise InvalidArgumentError(None, None, f"'cond' and 'then' must have the same size. but received: "
                                               f"{list(cond)} vs. {list(then)}")
    return cond
