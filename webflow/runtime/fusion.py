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

Two more of webflow's own, for a conv layer on the C backend: the MaxPool reading a _FusedConv2D's Relu output
joins that step as its second output (each image pooled while it is still in cache); and a _FusedMaxPoolGrad with
its bias Sum whose gradient only the layer's Conv2DBackpropFilter also reads (a first layer, whose input needs no
gradient; tf.gradients' gating Identity ops between them count as nothing) becomes one
`_FusedConv2DBackpropFilter` step making each image's gradient just before the filter gradient reads it, never
storing it (outputs: the Sum's, then the filter gradient's). Deep MNIST CNN: benchmarks/FIGURES.md, "CNN per
layer".

The result is bit for bit the unfused one (the same float operations in the same order): the direct C
convolution adds the bias and clamps before its store (wasm/conv_direct.c), gemm_strips.c adds a MatMul's bias
as it stores each sum; otherwise the producer's own kernel runs and the bias and Relu are applied in place on its
fresh output (NumPy), or by their own kernels (without NumPy). The kernels are in fusion_kernels.py; this module
decides which chains fuse and rewires the plan. Measured on the Deep MNIST CNN (2 cores): conv1's
add + Relu at batch 128, 2.5 ms of a 64 ms step, become part of the convolution's store.

Shapes partly unknown when the graph is built (placeholders [None, 784], tf.data's batch() without
drop_remainder) fuse as known ones: the plan decides on what it needs, the rank and the channel count; the
kernels check the run-time shapes. Such a graph's gradients may read `Shape(conv)` and, when the shapes leave the
broadcast axes open ([None, None, None, 8] + [8] does not: the axes are static, as in TensorFlow's
_ReduceGradientArgs), sum the bias gradient over axes computed at run time (BroadcastGradientArgs): the Shape reads
the fused output instead (the same shape), and the fused MaxPoolGrad hands its per-channel sums to that Sum,
which returns them when its run-time axes are all but the channel axis (checked once per distinct axes) and
otherwise runs its own kernel. Measured on the
Deep MNIST CNN, batch 50, feed_dict into [None, 784]: benchmarks/FIGURES.md, "Fusion with an unknown batch".

May import: backends/, framework/, ops/, runtime/kernel_errors.py and runtime/fusion_kernels.py; not executor.py,
which imports this module.
"""

from __future__ import annotations

import os
from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c.adapters import flat_ints
from webflow.backends.c.reduce import MAX_SUMMED_COLUMNS
from webflow.runtime.fusion_kernels import (
    bias_relu_kernel,
    bias_relu_pool_kernel,
    pool_filter_grad_kernel,
    pool_grad_relu_kernel,
    pool_grad_relu_sum_kernel,
    pool_grad_relu_sums_kernel,
)
from webflow.runtime.fusion_kernels import presummed_kernel as _presummed_kernel  # (a name tests replace)

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
    made_at = {uid: at for at, step in enumerate(steps) for uid in step.output_uids}  # fed values: none
    first_read = _first_reads(steps)
    replaced: dict[int, Any] = {}  # id(last step of a chain) -> fused step
    absorbed: set[int] = set()
    moved: dict[int, list] = {}  # id(last step of a chain) -> the Shape steps that now read the fused output
    pools = _max_pools(steps)
    consumers = _consumers(steps)
    for step in reversed(steps):  # last ops first: a Relu takes its bias add before the add could end a chain
        fused = _bias_relu_chain(step, by_output, readers, make_step) \
            or _pool_grad_relu_chain(step, by_output, readers, bias_sums, late_sums, make_step)
        if fused is None or any(id(part) in absorbed for part in fused.parts):
            continue
        fused = _with_max_pool(fused, pools.get(step.output_uids[0]), make_step) \
            or _with_filter_grad(fused, consumers, readers, shape_reads, position, made_at, make_step) or fused
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
    kernel = bias_relu_kernel(producer, bias_add, relu, bias_index)
    return _fused_step(chain, FUSED_TYPES[producer.op.type], inputs, kernel, make_step)


def _max_pools(steps: list) -> dict:
    """{tensor uid: a plain float32 NHWC MaxPool step reading it} (the first such reader)."""
    pools: dict = {}
    for step in steps:
        op = step.op
        if op.type == "MaxPool" and _plain([step]) and not step.alias_inputs and len(step.output_uids) == 1 \
                and op._attrs.get("data_format", "NHWC") == "NHWC" \
                and op.outputs[0].dtype.base_dtype.name == "float32":
            pools.setdefault(step.input_uids[0], step)
    return pools


def _with_max_pool(fused: Any, max_pool: Any, make_step: Any) -> Any:
    """A conv layer's _FusedConv2D (with its Relu) that also computes the MaxPool reading its output, each image
    pooled just after it is written (Deep MNIST CNN, batch 50: a separate MaxPool re-read conv1's 5 MB output;
    benchmarks/FIGURES.md, "CNN per layer"). The Relu's output stays an output (MaxPoolGrad and ReluGrad read it);
    the MaxPool's moves up to the fused step, which only needs what the MaxPool needs. None when it does not
    apply: no such MaxPool, or not both on the C backend when the plan is made."""
    if max_pool is None or fused.op_type != "_FusedConv2D" or len(fused.parts) != 3 \
            or fused.parts[0].backend != selection.C_BACKEND or max_pool.backend != selection.C_BACKEND:
        return None
    chain = fused.parts + [max_pool]
    step = make_step(fused.op)
    for field in ("op_type", "backend", "attrs", "input_uids", "alias_inputs"):
        setattr(step, field, getattr(fused, field))
    step.parts = chain
    step.kernel = bias_relu_pool_kernel(fused, max_pool)
    step.output_uids = fused.output_uids + max_pool.output_uids
    return step


def _consumers(steps: list) -> dict:
    """{tensor uid: the steps reading it}."""
    reading: dict = {}
    for step in steps:
        for uid in step.input_uids:
            reading.setdefault(uid, []).append(step)
    return reading


def _with_filter_grad(fused: Any, consumers: dict, readers: dict, shape_reads: dict, position: dict,
                      made_at: dict, make_step: Any) -> Any:
    """A conv layer's _FusedMaxPoolGrad with its bias Sum whose gradient only that Sum and the layer's
    Conv2DBackpropFilter read (the first layer: no input gradient), as one step that makes each image's
    gradient just before the filter gradient uses it and never stores it (Deep MNIST CNN's conv1: 5 MB written
    and read back per step at batch 50). Outputs: the Sum's, then the filter gradient's. None when it does
    not apply."""
    if fused.op_type != "_FusedMaxPoolGrad" or len(fused.parts) != 3 or fused.output_uids[-1] < 0:
        return None
    pool_grad, relu_grad, bias_sum = fused.parts
    gradient, identities = relu_grad.output_uids[0], []
    others = [step for step in consumers.get(gradient, ()) if step is not bias_sum]
    if readers.get(gradient) != 2 or len(others) != 1 or shape_reads.get(gradient):
        return None
    while len(others) == 1 and others[0].op.type == "Identity" and _private(others[0], readers) \
            and _plain(others) and not others[0].alias_inputs and not shape_reads.get(others[0].output_uids[0]):
        identities.append(others[0])  # tf.gradients' tuple() passes each gradient through an Identity
        others = consumers.get(others[0].output_uids[0], [])
    filter_grad = others[0] if len(others) == 1 else None
    if not _filter_grad_fits(filter_grad, (identities or [relu_grad])[-1].output_uids[0]) \
            or pool_grad.backend != selection.C_BACKEND:
        return None
    if any(made_at.get(uid, -1) >= position[id(relu_grad)] for uid in filter_grad.input_uids[:2]):
        return None  # the filter gradient's input or sizes made after the pooling gradient runs
    inputs = [(pool_grad, 0), (pool_grad, 1), (pool_grad, 2), (filter_grad, 0), (filter_grad, 1)]
    kernel = pool_filter_grad_kernel(pool_grad, relu_grad, bias_sum, filter_grad)
    step = _fused_step([pool_grad, relu_grad, bias_sum, *identities, filter_grad], "_FusedConv2DBackpropFilter",
                       inputs, kernel, make_step, last=filter_grad)
    step.output_uids = bias_sum.output_uids + filter_grad.output_uids
    return step


def _filter_grad_fits(step: Any, out_backprop: int) -> bool:
    """A plain NHWC Conv2DBackpropFilter on the C backend reading `out_backprop` as its output gradient only."""
    return step is not None and step.op.type == "Conv2DBackpropFilter" and step.input_uids[2] == out_backprop \
        and out_backprop not in step.input_uids[:2] and _plain([step]) and step.backend == selection.C_BACKEND \
        and step.op._attrs.get("data_format", "NHWC") == "NHWC"


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
                            pool_grad_relu_sum_kernel(pool_grad, step, bias_sum), make_step, last=step)
        fused.output_uids = fused.output_uids + bias_sum.output_uids
        return fused
    if pool_grad.backend == selection.C_BACKEND and late_sums.get(step.output_uids[0]) \
            and _plain(late_sums[step.output_uids[0]]):
        kernel = pool_grad_relu_sums_kernel(pool_grad, step)
        fused = _fused_step([pool_grad, step], "_FusedMaxPoolGrad", inputs, kernel, make_step)
        fused.output_uids = fused.output_uids + [-step.output_uids[0]]  # a value of the plan's own: not a tensor's
        return fused
    return _fused_step([pool_grad, step], "_FusedMaxPoolGrad", inputs, pool_grad_relu_kernel(pool_grad, step),
                       make_step)


def _bias_gradient_sum(step: Any) -> bool:
    """A float32 Sum over every axis but the last (a known rank and channel count; the batch may be unknown) that
    would run backends/c/reduce.py's sum_blocks (the C backend with NumPy arrays, at most MAX_SUMMED_COLUMNS
    channels): the bits the fused kernel gives. The C backend was chosen from the static size (an unknown one
    counts as large, backends/selection.py), so the separate Sum runs sum_blocks at every run-time size but an
    empty one, which pool.max_pool_grad refuses too (Unsupported): the separate ops' kernels then run."""
    op = step.op
    if not HAVE_NUMPY or op.type != "Sum" or step.backend != selection.C_BACKEND:
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
