"""Bad inputs raise TensorFlow's run-time errors without NumPy too (no NumpyUnavailable from a fallback).

Several C adapters used to hand bad shapes to the NumPy kernel "to raise the error"; without NumPy
(Pyodide) that became NumpyUnavailable. Each case runs in a child Python with `import numpy` blocked;
the expected messages are TensorFlow 2.x's for the same calls (checked with tensorflow-cpu, eager
mode; TF appends " [Op:...]" and, with oneDNN, the adjoint flags to the matmul message).
"""

from __future__ import annotations

import pytest
from test_no_numpy import NEEDS_C, _skip_if_no_c, run_with_numpy, run_without_numpy

PROGRAM = NEEDS_C + """
    import webflow as wf
    from webflow.ops.array_ops import unsorted_segment_sum
    from webflow.ops.nn_ops import relu_grad

    cases = {
        "batch_matmul_inner": lambda: wf.matmul(wf.ones([2, 2, 3]), wf.ones([2, 4, 5])),
        "batch_matmul_batch": lambda: wf.matmul(wf.ones([2, 2, 3]), wf.ones([3, 3, 5])),
        "reduce_axis": lambda: wf.reduce_sum(wf.ones([2, 3]), 2),
        "reduce_axis_negative": lambda: wf.reduce_max(wf.ones([2, 3]), -3),
        "relu_grad": lambda: relu_grad(wf.ones([2, 3]), wf.ones([3])),
        "select_v2": lambda: wf.where([True, False], wf.ones([3]), wf.ones([3])),
        "gather_axis": lambda: wf.gather(wf.ones([2, 3]), [0], axis=2),
    }
    errors = {}
    for name, make in cases.items():
        try:
            make()
            errors[name] = None
        except Exception as error:
            errors[name] = [type(error).__name__, str(error)]
    values = {
        "broadcast_batches": wf.matmul(wf.reshape(wf.range(12.0), [2, 1, 2, 3]),
                                       wf.reshape(wf.range(18.0), [1, 3, 3, 2])).numpy().tolist(),
        "negative_segment_ids": unsorted_segment_sum(wf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                                                     [0, -1, 1], 2).numpy().tolist(),
        "boolean_mask": wf.boolean_mask(wf.reshape(wf.range(12.0), [2, 2, 3]), [[True, False], [True, True]])
                        .numpy().tolist(),
    }
    print(json.dumps({"errors": errors, "values": values}))
"""

# TensorFlow 2.x's messages for the same calls
TF_MESSAGES = {
    "batch_matmul_inner": "Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,5]",
    "batch_matmul_batch": "In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,5]",
    "reduce_axis": "Invalid reduction dimension (2 for input with 2 dimension(s)",
    "reduce_axis_negative": "Invalid reduction dimension (-3 for input with 2 dimension(s)",
    "relu_grad": "Inputs to operation ReluGrad of type ReluGrad must have the same size and shape.  "
                 "Input 0: [2,3] != input 1: [3]",
    "select_v2": "condition [2], then [3], and else [3] must be broadcastable",
    "gather_axis": "Shape must be at least rank 3 but is rank 2",
}


@pytest.fixture(scope="module")
def without_numpy() -> dict:
    result = run_without_numpy(PROGRAM)
    _skip_if_no_c(result)
    return result


@pytest.mark.parametrize("name", TF_MESSAGES)
def test_bad_input_raises_tensorflows_error_without_numpy(name: str, without_numpy: dict) -> None:
    error = without_numpy["errors"][name]
    assert error is not None, f"{name}: no error"
    kind, message = error
    assert kind == "InvalidArgumentError", error
    assert TF_MESSAGES[name] in message


def test_batch_broadcasting_and_segment_ids_as_tensorflow(without_numpy: dict) -> None:
    values = without_numpy["values"]
    # TensorFlow 2.x: matmul of range(12) [2,1,2,3] by range(18) [1,3,3,2] (partial batch broadcasting)
    assert values["broadcast_batches"] == [
        [[[10.0, 13.0], [28.0, 40.0]], [[28.0, 31.0], [100.0, 112.0]], [[46.0, 49.0], [172.0, 184.0]]],
        [[[46.0, 67.0], [64.0, 94.0]], [[172.0, 193.0], [244.0, 274.0]], [[298.0, 319.0], [424.0, 454.0]]]]
    assert values["negative_segment_ids"] == [[1.0, 2.0], [5.0, 6.0]]  # TF drops rows with a negative id
    assert values["boolean_mask"] == [[0.0, 1.0, 2.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]]


def test_errors_match_the_numpy_run_where_it_raises_too(without_numpy: dict) -> None:
    reference = run_with_numpy(PROGRAM)
    assert reference["values"]["broadcast_batches"] == without_numpy["values"]["broadcast_batches"]
    assert reference["values"]["boolean_mask"] == without_numpy["values"]["boolean_mask"]
    for name in ("batch_matmul_inner", "batch_matmul_batch", "reduce_axis", "select_v2"):
        assert reference["errors"][name] is not None, name
