"""EnsureShape (`tf.ensure_shape`): x passed on unchanged, its static shape refined by merging it with `shape` when
the graph is built, and checked when the op runs (TensorFlow's words: "Shape of tensor x [3,2] is not compatible
with expected shape [3,3].").

Unlike `Tensor.set_shape`, which only claims a shape, the check runs: in a graph only when something reads the
output (the op is not stateful, so an unused EnsureShape is pruned, as TensorFlow's docs warn).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.framework.errors import InvalidArgumentError, ShapeError
from webflow.framework.func_graph import FuncGraph
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.registry import apply_op, output_spec, register_gradient, register_op


def _dims(shape: TensorShape) -> str:
    """A partial shape as TensorFlow's shape inference prints it: [3,?]."""
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_tuple()) + "]"


def _ensure_shape_rule(inputs: list, attrs: dict) -> tuple:
    """The output's static shape: `shape` merged with x's (TensorFlow's Merge(shape, x), in that order)."""
    expected, given = attrs["shape"], inputs[0].shape
    if given.rank is not None:
        if expected.rank != given.rank:  # an unknown-rank `shape` counts as rank -1 here, as in TF 2.21's shape fn
            raise ShapeError(f"Shape must be rank {-1 if expected.rank is None else expected.rank} "
                             f"but is rank {given.rank}")
        for i, (want, got) in enumerate(zip(expected.as_tuple(), given.as_tuple())):
            if want is not None and got is not None and want != got:
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {want} and {got}. "
                                 f"Shapes are {_dims(expected)} and {_dims(given)}.")
    return output_spec(expected.merge_with(given), inputs[0].dtype.base_dtype)


def _input_label(context: Any) -> str:
    """How TensorFlow's kernel names its input: "input" eagerly; in a wf.function the argument's name; in a
    Session the producing op's name (":k" for output k > 0), a fed placeholder renamed by the feed rewrite."""
    op = getattr(context, "op", None)
    if op is None:
        return "input"
    tensor = op.inputs[0]
    label = tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"
    if tensor.op.type == "Placeholder" and not isinstance(op.graph, FuncGraph):
        # TensorFlow numbers the fed tensors in name order (the last number); webflow's kernels do not see the
        # feeds, so it says 0, right when x is the first (or only) fed tensor
        return f"_arg_{tensor.op.name}_{tensor.value_index}_0"
    return label


def _check(context: Any, shape_found: tuple, shape: TensorShape) -> None:
    """Raises TensorFlow's error when the value's shape is not compatible with `shape`."""
    if shape.is_compatible_with(TensorShape(list(shape_found))):
        return
    message = (f"Shape of tensor {_input_label(context)} [{','.join(str(d) for d in shape_found)}] is not "
               f"compatible with expected shape {_dims(shape)}.")
    if getattr(context, "op", None) is None:  # eagerly: the error as TensorFlow's eager op raises it
        raise InvalidArgumentError(None, None, f"{message} [Op:EnsureShape]")
    raise ValueError(message)  # the executor adds the node (runtime/kernel_errors.py)


def ensure_shape_kernel(context: Any, x: Any, *, shape: TensorShape, **_: Any) -> Any:
    """y = x, after checking that x's shape is compatible with `shape` (unknown dims and unknown rank match any).
    Only the shape is read, so the one kernel serves NumPy arrays and the portable ones (Pyodide) alike."""
    _check(context, tuple(int(d) for d in backend_values.shape_of(x)), shape)
    return x


register_op("EnsureShape", "EnsureShape", inputs=("input",), shape=_ensure_shape_rule, needs_context=True,
            portable=ensure_shape_kernel)(ensure_shape_kernel)


@register_gradient("EnsureShape")
def _ensure_shape_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1: the incoming gradient as it is (TensorFlow's _ensure_shape_grad checks nothing more)."""
    return grad


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Any:
    """`tf.ensure_shape`: x, with its static shape merged with `shape` (ValueError when they disagree) and checked
    when it runs (InvalidArgumentError)."""
    return apply_op("EnsureShape", [x], {"shape": TensorShape(shape)}, name=name)


__all__ = ["ensure_shape"]
