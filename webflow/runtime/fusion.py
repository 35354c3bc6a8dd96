"""Fuses chains of ops into one step of a plan, as TensorFlow's grappler remapper does.

TensorFlow runs a Conv2D whose output only a BiasAdd (or an AddV2 of a vector over the channels) reads, and
whose sum only a Relu reads, as one `_FusedConv2D` kernel (`_FusedMatMul` for MatMul): the bias and the
max(., 0) are applied while the sums are still in registers instead of in two more passes over memory.
Here the executor does the same to its plan (never to the graph: names, gradients and `graph.get_operations()`
are unchanged). The chain must be private: its intermediate tensors read by nothing else that runs and not
fetched. A traced run shows the fused step as one node named after its last op, with type `_FusedConv2D` or
`_FusedMatMul`, as TensorFlow's RunMetadata does.

One more chain, of webflow's own (TensorFlow runs these apart): a conv layer's gradient, MaxPoolGrad ->
ReluGrad whose features are the pooling's input, as `_FusedMaxPoolGrad`. The C kernel zeroes the cells
where that input is not positive while it writes them, instead of a second pass (measured at batch 128:
ReluGrad 1.55 ms of conv1's gradient). A float32 Sum of that gradient over all but the channel axis (the
layer's bias gradient) joins the step as its second output: each image is summed just after it is written,
while it is still in cache, instead of reading the whole gradient once more (Deep MNIST CNN, batch 50: the
two bias Sums took ~0.45 and ~0.3 ms of a ~25 ms step).

The result is bit for bit the unfused one (the same float operations in the same order): the direct C
convolution adds the bias and clamps before its store (wasm/conv_direct.c), gemm_strips.c adds a MatMul's bias
as it stores each sum; otherwise the producer's own kernel runs and the bias and Relu are applied in place on its
fresh output (NumPy), or by their own kernels (without NumPy). Measured on the Deep MNIST CNN (2 cores): conv1's
add + Relu at batch 128, 2.5 ms of a 64 ms step, become part of the convolution's store.

Shapes partly unknown when the graph is built (placeholders [None, 784], tf.data's batch() without
drop_remainder) fuse as known ones: the plan decides on what it needs, the rank and the channel count; the
kernels check the run-time shapes. Such a graph's gradients read `Shape(conv)` and sum the bias gradient over
axes computed at run time (BroadcastGradientArgs): the Shape reads the fused output instead (the same shape),
and the fused MaxPoolGrad hands its per-channel sums to that Sum, which returns them when its run-time axes are
all but the channel axis (checked once per distinct axes) and otherwise runs its own kernel. Measured on the
Deep MNIST CNN, batch 50, feed_dict into [None, 784]: benchmarks/FIGURES.md, "Fusion with an unknown batch".

May import: backends/, framework/, ops/ and runtime/kernel_errors.py; not executor.py, which imports this module.
"""

from __future__ import annotations

import os
from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c.adapters import Unsupported, flat_ints
from webflow.backends.c.conv import conv2d_bias_relu
from webflow.backends.c.gemm import matmul_bias
from webflow.backends.c.pool import max_pool_grad
from webflow.backends.c.reduce import MAX_SUMMED_COLUMNS
from webflow.framework.errors import OpError
from webflow.runtime.kernel_errors import KERNEL_ERRORS, kernel_error, with_op

# WEBFLOW_FUSION=0 runs every op on its own (to compare, or to see each op's time in a trace)
ENABLED = os.environ.get("WEBFLOW_FUSION", "1") != "0"
FUSED_TYPES = {"Conv2D": "_FusedConv2D", "MatMul": "_FusedMatMul"}
BIAS_ADDS = ("BiasAdd", "AddV2")
FLOAT_TYPES = ("float16", "float32", "float64")


def fuse(steps: list, pinned_uids: set, make_step: Any) -> list:
    """The steps with each private chain (see the module docstring) replaced by one fused step.

    `pinned_uids`: tensors fetched or fed, never private. `make_step(last op)` builds a step like the
    executor's; the fused step keeps the chain's steps in `parts`. A Shape op reading an intermediate tensor of
    a chain (a gradient's `Shape(conv)` when the batch is unknown) does not keep the chain apart: every tensor
    of a chain has the shape of its last one, so that Shape reads the fused output instead, moved just after it
    (only where everything reading that Shape runs later)."""
    if not ENABLED:
        return steps
    shape_reads = _shape_reads(steps, pinned_uids)
    readers = _readers(steps, pinned_uids, shape_reads)
    by_output = {step.output_uids[0]: step for step in steps if len(step.output_uids) == 1}
    bias_sums = {step.input_uids[0]: step for step in steps if _bias_gradient_sum(step) and _constant_axes(step)}
    late_sums: dict[int, list] = {}  # the same Sums with axes known only at run time (an unknown batch's gradient)
    for step in steps:
        if _bias_gradient_sum(step) and not _constant_axes(step):
            late_sums.setdefault(step.input_uids[0], []).append(step)
    position = {id(step): at for at, step in enumerate(steps)}
    first_read = _first_reads(steps)
    replaced: dict[int, Any] = {}  # id(last step of a chain) -> fused step
    absorbed: set[int] = set()
    moved: dict[int, list] = {}  # id(last step of a chain) -> the Shape steps that now read the fused output
    for step in reversed(steps):  # last ops first: a Relu takes its bias add before the add could end a chain
        fused = _bias_relu_chain(step, by_output, readers, make_step) \
            or _pool_grad_relu_chain(step, by_output, readers, bias_sums, late_sums, make_step)
        if fused is None or any(id(part) in absorbed for part in fused.parts):
            continue
        shapes = _shapes_of_intermediates(fused, shape_reads)
        if any(first_read.get(shape.output_uids[0], len(steps)) <= position[id(step)] for shape in shapes):
            continue  # something reads such a Shape before the fused step runs
        replaced[id(step)] = fused
        absorbed.update(id(part) for part in fused.parts)
        moved[id(step)] = shapes
        if fused.output_uids[-1] < 0:  # the per-channel sums, for the Sums that check their axes when they run
            for late_sum in late_sums[fused.output_uids[0]]:
                replaced[id(late_sum)] = _presummed_step(late_sum, fused.output_uids[-1], make_step)
                moved[id(late_sum)] = []
    return _rewired(steps, replaced, absorbed, moved)


def _shape_reads(steps: list, pinned_uids: set) -> dict:
    """{tensor uid: the plain Shape steps reading it}; a fed tensor's Shape steps are not listed."""
    reads: dict[int, list] = {}
    for step in steps:
        if step.op.type == "Shape" and len(step.input_uids) == 1 and _plain([step]) and not step.alias_inputs \
                and step.input_uids[0] not in pinned_uids:
            reads.setdefault(step.input_uids[0], []).append(step)
    return reads


def _first_reads(steps: list) -> dict:
    """{tensor uid: the position of the first step reading it}."""
    first: dict[int, int] = {}
    for at, step in enumerate(steps):
        for uid in step.input_uids:
            first.setdefault(uid, at)
    return first


def _shapes_of_intermediates(fused: Any, shape_reads: dict) -> list:
    outputs = set(fused.output_uids)
    return [shape for part in fused.parts for uid in part.output_uids if uid not in outputs
            for shape in shape_reads.get(uid, ())]


def _rewired(steps: list, replaced: dict, absorbed: set, moved: dict) -> list:
    """The plan: fused steps in place of their chains' last steps, each followed by the Shape steps it feeds."""
    moved_ids = {id(shape) for shapes in moved.values() for shape in shapes}
    plan = []
    for step in steps:
        fused = replaced.get(id(step))
        if fused is not None:
            plan.append(fused)
            for shape in moved[id(step)]:
                shape.input_uids = [fused.output_uids[0]]
                plan.append(shape)
        elif id(step) not in absorbed and id(step) not in moved_ids:
            plan.append(step)
    return plan


def _readers(steps: list, pinned_uids: set, shape_reads: dict) -> dict:
    """{tensor uid: how many times running steps read it}, pinned tensors counted as read twice more; the Shape
    steps of `shape_reads` are not counted (they can read a chain's output instead)."""
    shape_ids = {id(shape) for shapes in shape_reads.values() for shape in shapes}
    counts: dict[int, int] = {}
    for step in steps:
        if id(step) in shape_ids:
            continue
        for uid in step.input_uids:
            counts[uid] = counts.get(uid, 0) + 1
    for uid in pinned_uids:
        counts[uid] = counts.get(uid, 0) + 2
    return counts


def _private(step: Any, readers: dict) -> bool:
    return step is not None and len(step.output_uids) == 1 and readers.get(step.output_uids[0], 0) == 1


def _plain(chain: list) -> bool:
    """Steps the executor runs with nothing but their input values (no context, state or variable checks)."""
    return not any(part.needs_context or part.reads_ref_value or part.state_inputs or part.skip is not None
                   for part in chain)


def _fused_step(chain: list, op_type: str, inputs: list, kernel: Any, make_step: Any, last: Any = None) -> Any:
    """A step for the chain's last op (or `last`) running `kernel` on `inputs`: (step, input index) pairs of
    the parts."""
    fused = make_step((last or chain[-1]).op)
    fused.parts = chain
    fused.op_type = op_type
    fused.backend = chain[0].backend
    fused.attrs = {}
    fused.input_uids = [step.input_uids[index] for step, index in inputs]
    aliases = []
    for position, (step, index) in enumerate(inputs):  # inputs that read a variable's current value
        aliases += [(position, tensor, variable) for at, tensor, variable in step.alias_inputs or () if at == index]
    fused.alias_inputs = aliases or None
    fused.kernel = kernel
    return fused


# --- Conv2D / MatMul -> BiasAdd or AddV2 of a channel vector (-> Relu) ----------------------------------
def _bias_relu_chain(step: Any, by_output: dict, readers: dict, make_step: Any) -> Any:
    relu = step if step.op.type == "Relu" else None
    bias_add = by_output.get(step.input_uids[0]) if relu is not None and step.input_uids else step
    if bias_add is None or bias_add.op.type not in BIAS_ADDS or (relu is not None and not _private(bias_add, readers)):
        return None
    bias_index = _bias_index(bias_add, by_output)
    if bias_index is None:
        return None
    producer = by_output[bias_add.input_uids[1 - bias_index]]
    chain = [producer, bias_add] + ([relu] if relu is not None else [])
    if not _private(producer, readers) or not _plain(chain):
        return None
    inputs = [(producer, index) for index in range(len(producer.input_uids))] + [(bias_add, bias_index)]
    kernel = _bias_relu_kernel(producer, bias_add, relu, bias_index)
    return _fused_step(chain, FUSED_TYPES[producer.op.type], inputs, kernel, make_step)


def _bias_index(bias_add: Any, by_output: dict) -> int | None:
    """Which input of the add is the bias: a vector as long as the producer's last (channel) dimension."""
    op = bias_add.op
    if op.type == "BiasAdd" and op._attrs.get("data_format", "NHWC") != "NHWC":
        return None
    for index in ((1,) if op.type == "BiasAdd" else (1, 0)):
        producer = by_output.get(bias_add.input_uids[1 - index])
        if producer is None or producer.op.type not in FUSED_TYPES or not _producer_fits(producer.op):
            continue
        bias, value = op.inputs[index], op.inputs[1 - index]
        channels = _channels(value.shape)
        if bias.shape.rank == 1 and channels is not None and bias.shape.as_list() == [channels] \
                and op.outputs[0].shape.rank == value.shape.rank:
            return index
    return None


def _channels(shape: Any) -> int | None:
    """The static last (channel / feature) dimension, or None when it or the rank is unknown."""
    return shape.as_list()[-1] if shape.rank else None


def _producer_fits(op: Any) -> bool:
    """A float Conv2D (NHWC) or MatMul of known rank. Other dimensions (the batch, an image's height and width)
    may be unknown: a bias of the channel count adds to every shape, and the kernels check the run-time shapes
    they need (conv2d_bias_relu raises Unsupported, the in-place epilogue compares the bias with the value)."""
    if op.outputs[0].dtype.base_dtype.name not in FLOAT_TYPES or op.outputs[0].shape.rank is None:
        return False
    return op.type != "Conv2D" or op._attrs.get("data_format", "NHWC") == "NHWC"


def _bias_relu_kernel(producer: Any, bias_add: Any, relu: Any, bias_index: int) -> Any:
    def run(*args: Any) -> Any:
        inputs, bias = args[:-1], args[-1]
        if producer.op.type == "Conv2D" and producer.backend == selection.C_BACKEND:
            try:
                return conv2d_bias_relu(*inputs, bias, relu=relu is not None, **producer.attrs)
            except Unsupported:
                pass  # the direct convolution does not apply: the producer's own kernel, then the epilogue
        if producer.op.type == "MatMul" and producer.backend == selection.C_BACKEND and HAVE_NUMPY:
            try:  # gemm_strips.c adds the bias as it stores the sums
                value = matmul_bias(*inputs, bias, **producer.attrs)
                return np.maximum(value, np.zeros((), value.dtype), out=value) if relu is not None else value
            except Unsupported:
                pass
        value = _run_part(producer, inputs)
        if _owned_float_array(value, inputs) and bias.shape == value.shape[-1:]:
            np.add(value, bias, out=value)
            return np.maximum(value, np.zeros((), value.dtype), out=value) if relu is not None else value
        pair = [value, value]
        pair[bias_index] = bias
        value = _run_part(bias_add, pair)
        return value if relu is None else _run_part(relu, [value])

    run.__name__ = f"fused_{producer.op.type.lower()}"
    return run


def _owned_float_array(value: Any, inputs: tuple) -> bool:
    """Whether the bias and Relu may be applied in place: a fresh NumPy float array the producer made."""
    return HAVE_NUMPY and type(value) is np.ndarray and value.flags.writeable and value.dtype.kind == "f" \
        and not any(type(array) is np.ndarray and np.may_share_memory(value, array) for array in inputs)


# --- MaxPoolGrad -> ReluGrad(features = the pooling's input) (+ its Sum over all but the channels) ----------
def _pool_grad_relu_chain(step: Any, by_output: dict, readers: dict, bias_sums: dict, late_sums: dict,
                          make_step: Any) -> Any:
    if step.op.type != "ReluGrad" or len(step.input_uids) != 2:
        return None
    pool_grad = by_output.get(step.input_uids[0])
    if pool_grad is None or pool_grad.op.type != "MaxPoolGrad" or not _private(pool_grad, readers) \
            or step.input_uids[1] != pool_grad.input_uids[0] or not _plain([pool_grad, step]) \
            or pool_grad.op._attrs.get("data_format", "NHWC") != "NHWC":
        return None
    inputs = [(pool_grad, index) for index in range(len(pool_grad.input_uids))]
    bias_sum = bias_sums.get(step.output_uids[0])
    if bias_sum is not None and pool_grad.backend == selection.C_BACKEND and _plain([bias_sum]):
        fused = _fused_step([pool_grad, step, bias_sum], "_FusedMaxPoolGrad", inputs,
                            _pool_grad_relu_sum_kernel(pool_grad, step, bias_sum), make_step, last=step)
        fused.output_uids = fused.output_uids + bias_sum.output_uids
        return fused
    if pool_grad.backend == selection.C_BACKEND and late_sums.get(step.output_uids[0]) \
            and _plain(late_sums[step.output_uids[0]]):
        kernel = _pool_grad_relu_sums_kernel(pool_grad, step)
        fused = _fused_step([pool_grad, step], "_FusedMaxPoolGrad", inputs, kernel, make_step)
        fused.output_uids = fused.output_uids + [-step.output_uids[0]]  # a value of the plan's own: not a tensor's
        return fused
    return _fused_step([pool_grad, step], "_FusedMaxPoolGrad", inputs, _pool_grad_relu_kernel(pool_grad, step),
                       make_step)


def _bias_gradient_sum(step: Any) -> bool:
    """A float32 Sum over every axis but the last (a known rank and channel count; the batch may be unknown) that
    would run backends/c/reduce.py's sum_blocks (the C backend with NumPy arrays, at most MAX_SUMMED_COLUMNS
    channels): the bits the fused kernel gives. The C backend was chosen from the static size (an unknown one
    counts as large, backends/selection.py), so the separate Sum runs sum_blocks at every run-time size but an
    empty one, which pool.max_pool_grad refuses too (Unsupported): the separate ops' kernels then run."""
    op = step.op
    if not HAVE_NUMPY or op.type != "Sum" or step.backend != selection.C_BACKEND or op._attrs.get("keep_dims"):
        return False
    value = op.inputs[0]
    channels = _channels(value.shape)
    if value.dtype.base_dtype.name != "float32" or value.shape.rank is None or value.shape.rank < 2 \
            or channels is None:
        return False
    if channels > MAX_SUMMED_COLUMNS:
        return False
    if not _constant_axes(step):
        return True  # (the axes are checked when the Sum runs: _presummed_kernel)
    axes = sorted(axis % value.shape.rank for axis in flat_ints(op.inputs[1].op._attrs["value"]))
    return axes == list(range(value.shape.rank - 1))


def _constant_axes(step: Any) -> bool:
    return step.op.inputs[1].op.type == "Const"


def _pool_grad_relu_kernel(pool_grad: Any, relu_grad: Any) -> Any:
    def run(*args: Any) -> Any:
        if pool_grad.backend == selection.C_BACKEND:
            try:
                return max_pool_grad(*args, relu=True, **pool_grad.attrs)
            except Unsupported:
                pass
        return _run_part(relu_grad, [_run_part(pool_grad, args), args[0]])

    run.__name__ = "fused_max_pool_grad"
    return run


def _pool_grad_relu_sum_kernel(pool_grad: Any, relu_grad: Any, bias_sum: Any) -> Any:
    def run(*args: Any) -> tuple:
        try:
            return max_pool_grad(*args, relu=True, sums=True, **pool_grad.attrs)
        except Unsupported:
            gradient = _run_part(relu_grad, [_run_part(pool_grad, args), args[0]])
            axes = bias_sum.op.inputs[1].op._attrs["value"]
            return gradient, _run_part(bias_sum, [gradient, axes])

    run.__name__ = "fused_max_pool_grad_sum"
    return run


def _pool_grad_relu_sums_kernel(pool_grad: Any, relu_grad: Any) -> Any:
    """(the gradient, its per-channel sums or None where the C kernel does not apply) for the Sums whose axes are
    known only at run time (_presummed_kernel)."""
    def run(*args: Any) -> tuple:
        if pool_grad.backend == selection.C_BACKEND:
            try:
                return max_pool_grad(*args, relu=True, sums=True, **pool_grad.attrs)
            except Unsupported:
                pass
        return _run_part(relu_grad, [_run_part(pool_grad, args), args[0]]), None

    run.__name__ = "fused_max_pool_grad_sums"
    return run


def _presummed_step(bias_sum: Any, sums_uid: int, make_step: Any) -> Any:
    """The Sum's step, reading the fused step's per-channel sums as a third input (the Sum in its `parts`, so
    that a change of backend re-selects its kernel)."""
    step = make_step(bias_sum.op)
    step.parts = [bias_sum]
    step.backend = bias_sum.backend
    step.attrs = {}
    step.input_uids = bias_sum.input_uids + [sums_uid]
    step.alias_inputs = bias_sum.alias_inputs
    step.kernel = _presummed_kernel(bias_sum)
    return step


def _presummed_kernel(bias_sum: Any) -> Any:
    """The fused step's sums when this run's axes are every axis but the last (then the separate Sum would run
    reduce.sum_blocks, whose bits they have: _bias_gradient_sum), else the Sum's own kernel. Whether the axes
    are those is decided once per distinct (axes, rank): an unknown batch's BroadcastGradientArgs gives the same
    axes at every step."""
    leading_only: dict[tuple, bool] = {}

    def run(gradient: Any, axes: Any, sums: Any) -> Any:
        if sums is not None and bias_sum.backend == selection.C_BACKEND:
            key = (tuple(flat_ints(axes)), gradient.ndim)
            fits = leading_only.get(key)
            if fits is None:
                rank = gradient.ndim
                fits = leading_only[key] = {a + rank if -rank <= a < 0 else a for a in key[0]} == set(range(rank - 1)) \
                    and len(key[0]) == rank - 1
            if fits:
                return sums
        return _run_part(bias_sum, [gradient, axes])

    run.__name__ = "presummed_sum"
    return run


def _run_part(step: Any, args: Any) -> Any:
    """One op of the chain with its own kernel; its errors name that op, as an unfused run's would."""
    try:
        return step.kernel(*args, **step.attrs)
    except OpError as error:
        raise with_op(error, step.op) from None
    except KERNEL_ERRORS as error:
        raise kernel_error(step.op, list(args), error) from None
