"""`tf.nn.static_rnn`, `tf.nn.dynamic_rnn` and their bidirectional forms (TF1): a cell unrolled over time, in
variable scope "rnn" ("bidirectional_rnn/fw" and ".../bw").

static_rnn calls the cell once per Python list entry; dynamic_rnn runs it in a tf.while_loop, reading the
inputs from a TensorArray and writing the outputs into another, as TensorFlow's rnn.py does. With
`sequence_length`, a batch entry's outputs past its length are zeros and its state stays the one of its last
valid step (TensorFlow's _rnn_step, without its skip-the-computation branches: the numbers are the same).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.ops import array_ops, concat_ops, logic_ops, manip_ops, math_ops
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.convert import convert_to_tensor
from webflow.ops.reverse_sequence_ops import reverse_sequence
from webflow.ops.tensor_array import TensorArray
from webflow.ops.variable_scope import variable_scope
from webflow.ops.while_loop import while_loop


def static_rnn(cell: Any, inputs: list, initial_state: Any = None, dtype: Any = None, sequence_length: Any = None,
               scope: Any = None) -> tuple:
    """(outputs, final state) of `cell` applied to each [batch, depth] tensor of the list `inputs` in turn."""
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variable_scope(scope or "rnn"):
        inputs = [convert_to_tensor(x) for x in inputs]
        state = _initial_state(cell, inputs[0], initial_state, dtype)
        lengths = _lengths(sequence_length)
        outputs = []
        for time, step_input in enumerate(inputs):
            output, new_state = cell(step_input, state)
            if lengths is not None:
                output, new_state = _mask_step(time, lengths, output, state, new_state)
            outputs.append(output)
            state = new_state
    return outputs, state


def dynamic_rnn(cell: Any, inputs: Any, sequence_length: Any = None, initial_state: Any = None, dtype: Any = None,
                parallel_iterations: Any = None, swap_memory: bool = False, time_major: bool = False,
                scope: Any = None) -> tuple:
    """(outputs [batch, time, output_size] (time first if time_major), final state): `cell` run by a
    while_loop over the time steps of `inputs` ([batch, time, depth], or [time, batch, depth])."""
    with variable_scope(scope or "rnn"):
        inputs = convert_to_tensor(inputs)
        if inputs.shape.rank is not None and inputs.shape.rank < 3:
            raise ValueError(f"Shape {inputs.shape} must have rank at least 3")
        if not time_major:
            inputs = manip_ops.transpose(inputs, [1, 0, 2])
        depth = inputs.shape.as_list()[2]
        if depth is None:
            raise ValueError("Input size (depth of inputs) must be accessible via shape inference, but saw value "
                             "None.")
        cell.build_once(depth, dtype=inputs.dtype.base_dtype)
        state = _initial_state(cell, inputs[0], initial_state, dtype)
        lengths = _lengths(sequence_length)
        outputs, state = _dynamic_loop(cell, inputs, state, lengths, parallel_iterations or 32)
        if not time_major:
            outputs = manip_ops.transpose(outputs, [1, 0, 2])
    return outputs, state


def bidirectional_dynamic_rnn(cell_fw: Any, cell_bw: Any, inputs: Any, sequence_length: Any = None,
                              initial_state_fw: Any = None, initial_state_bw: Any = None, dtype: Any = None,
                              parallel_iterations: Any = None, swap_memory: bool = False, time_major: bool = False,
                              scope: Any = None) -> tuple:
    """((outputs_fw, outputs_bw), (state_fw, state_bw)): cell_fw over the inputs (scope fw), cell_bw over each
    sequence reversed within its length (scope bw), its outputs reversed back."""
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw, dtype,
                                              parallel_iterations, swap_memory, time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse(inputs, sequence_length, time_axis, batch_axis)
            output, state_bw = dynamic_rnn(cell_bw, reversed_inputs, sequence_length, initial_state_bw, dtype,
                                           parallel_iterations, swap_memory, time_major, scope=bw_scope)
    return (output_fw, _reverse(output, sequence_length, time_axis, batch_axis)), (state_fw, state_bw)


def static_bidirectional_rnn(cell_fw: Any, cell_bw: Any, inputs: list, initial_state_fw: Any = None,
                             initial_state_bw: Any = None, dtype: Any = None, sequence_length: Any = None,
                             scope: Any = None) -> tuple:
    """(outputs, state_fw, state_bw): outputs[t] = concat(fw output t, bw output t) along the depth."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError("inputs must be a non-empty list")
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length, fw_scope)
        with variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_list(inputs, sequence_length)
            output_bw, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length,
                                             bw_scope)
    output_bw = _reverse_list(output_bw, sequence_length)
    outputs = [concat_ops.concat([fw, bw], 1) for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def _reverse(tensor: Any, lengths: Any, time_axis: int, batch_axis: int) -> Any:
    if lengths is None:
        return manip_ops.reverse(tensor, [time_axis])
    return reverse_sequence(tensor, lengths, seq_axis=time_axis, batch_axis=batch_axis)


def _reverse_list(tensors: list, lengths: Any) -> list:
    """A list of [batch, ...] steps reversed in time (within each entry's length), as TensorFlow's
    _reverse_seq: stacked, reversed, unstacked."""
    if lengths is None:
        return list(reversed(tensors))
    stacked = concat_ops.stack(list(tensors))
    return concat_ops.unstack(reverse_sequence(stacked, math_ops.cast(lengths, dtypes.int64), seq_axis=0,
                                               batch_axis=1))


def _dynamic_loop(cell: Any, inputs: Any, state: Any, lengths: Any, parallel_iterations: int) -> tuple:
    static_steps = inputs.shape.as_list()[0]
    steps = static_steps if static_steps is not None else array_ops.shape(inputs)[0]
    batch = inputs.shape.as_list()[1]
    element = [batch, cell.output_size]
    input_ta = TensorArray(inputs.dtype, size=steps, element_shape=inputs.shape[1:],
                           tensor_array_name="dynamic_rnn_input").unstack(inputs)
    output_ta = TensorArray(inputs.dtype, size=steps, element_shape=element, tensor_array_name="dynamic_rnn_output")
    leaves = flatten(state)

    def body(time: Any, output_ta: Any, *state_leaves: Any) -> list:
        previous = pack_sequence_as(state, list(state_leaves)) if isinstance(state, (tuple, list)) else state_leaves[0]
        output, new_state = cell(input_ta.read(time), previous)
        if lengths is not None:
            output, new_state = _mask_step(time, lengths, output, previous, new_state)
        return [time + 1, output_ta.write(time, output)] + flatten(new_state)

    time = convert_to_tensor(0, dtype=dtypes.int32, name="time")
    results = while_loop(lambda t, *_: t < steps, body, [time, output_ta] + leaves,
                         parallel_iterations=parallel_iterations, return_same_structure=True)
    final = pack_sequence_as(state, list(results[2:])) if isinstance(state, (tuple, list)) else results[2]
    outputs = results[1].stack()
    if static_steps is not None:
        outputs.set_shape([static_steps] + element)
    return outputs, final


def _initial_state(cell: Any, first_input: Any, initial_state: Any, dtype: Any) -> Any:
    if initial_state is not None:
        expected, given = _skeleton(cell.state_size), _skeleton(initial_state)
        if expected != given:
            raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: "
                             f"{cell.state_size}\n\nSecond structure: {initial_state}")
        return initial_state
    if dtype is None:
        raise ValueError("If no initial_state is provided, argument `dtype` must be specified")
    batch = first_input.shape.as_list()[0]
    return cell.zero_state(batch if batch is not None else array_ops.shape(first_input)[0], dtype)


def _skeleton(structure: Any) -> Any:
    if isinstance(structure, (tuple, list)):
        return tuple(_skeleton(item) for item in structure)
    return "."


def _lengths(sequence_length: Any) -> Any:
    if sequence_length is None:
        return None
    lengths = math_ops.cast(convert_to_tensor(sequence_length), dtypes.int32)
    if lengths.shape.rank not in (None, 1):
        raise ValueError(f"sequence_length must be a vector of length batch_size, but saw shape: {lengths.shape}")
    return array_ops.identity(lengths, name="sequence_length") if not context.executing_eagerly() else lengths


def _mask_step(time: Any, lengths: Any, output: Any, state: Any, new_state: Any) -> tuple:
    """Past its length (time >= length) a batch entry outputs zeros and keeps its previous state."""
    done = manip_ops.expand_dims(math_ops.cast(time, dtypes.int32) >= lengths, 1)
    output = logic_ops.select_v2(done, array_ops.zeros_like(output), output)
    kept = [logic_ops.select_v2(done, old, new) for old, new in zip(flatten(state), flatten(new_state))]
    return output, pack_sequence_as(new_state, kept) if isinstance(new_state, (tuple, list)) else kept[0]
