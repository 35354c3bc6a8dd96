"""Python functions as ops: `PyFunc`, `PyFuncStateless` (TF1's `tf.py_func`, TF2's `tf.numpy_function`) and
`EagerPyFunc` (`tf.py_function`).

    y = tf.numpy_function(lambda a: np.sort(a), [x], tf.float32)     # the function gets and returns NumPy arrays
    y = tf.py_function(lambda a: tf.sort(a) * 2, [x], tf.float32)    # it gets EagerTensors, runs ops eagerly

The op holds only a `token` attr ("pyfunc_0", "pyfunc_1" ... as TensorFlow names them); the Python callable
lives in this process's table under that token, so such a graph cannot be serialized and run elsewhere (as in
TensorFlow). The outputs' shapes are unknown to the graph. PyFunc's results must already have their `Tout`
dtypes ("0-th value returned by pyfunc_3 is double, but expects float"); EagerPyFunc's are converted to them
as convert_to_tensor converts. An exception inside the function becomes the OpError TensorFlow maps it to
(ValueError/TypeError: InvalidArgumentError, StopIteration: OutOfRangeError, NotImplementedError:
UnimplementedError, MemoryError: ResourceExhaustedError, else UnknownError). Eagerly, `py_func` and
`numpy_function` call the function at once without an op, as TensorFlow 2 does.

`PyFunc` / `PyFuncStateless` are not differentiable (TensorFlow: NotDifferentiable). `EagerPyFunc` is: its
gradient is another EagerPyFunc that reruns the function under a GradientTape (autodiff/py_function_gradient.py
registers it: ops/ sits below autodiff/).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from webflow.backends.arrays.numpy_arrays import dtype_of, np
from webflow.framework import context, dtypes, errors
from webflow.framework.tensor import EagerTensor
from webflow.ops.constants import tf_type_name
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op

_FUNCTIONS: dict[str, Callable] = {}
_COUNTER = itertools.count()
_ERRORS = ((StopIteration, errors.OutOfRangeError), (NotImplementedError, errors.UnimplementedError),
           (MemoryError, errors.ResourceExhaustedError), ((ValueError, TypeError), errors.InvalidArgumentError))


def register_function(func: Callable) -> str:
    """The token an op names `func` by (TensorFlow's FuncRegistry: "pyfunc_<n>")."""
    token = f"pyfunc_{next(_COUNTER)}"
    _FUNCTIONS[token] = func
    return token


def function_of(token: str) -> Callable:
    return _FUNCTIONS[token]


def _outputs_shape(inputs: list, attrs: dict) -> list:
    return [output_spec(None, dtype) for dtype in attrs["Tout"]]


@contextlib.contextmanager
def eager_inside_kernel() -> Iterator[None]:
    """Runs a py_function's ops eagerly even while a Session runs its graph (inside `graph.as_default()`), and
    keeps the caller's tapes from recording them (the EagerPyFunc op itself is what they record)."""
    state = context._state
    saved = (state.graph_stack, state.tape_recorders, context._eager_enabled)
    state.graph_stack, state.tape_recorders, context._eager_enabled = [], [], True
    try:
        yield
    finally:
        state.graph_stack, state.tape_recorders, context._eager_enabled = saved


def _call(token: str, arguments: list) -> list:
    try:
        result = _FUNCTIONS[token](*arguments)
    except errors.OpError:
        raise
    except Exception as error:  # noqa: BLE001 - every Python error becomes TensorFlow's OpError for it
        kind = next((error_type for python, error_type in _ERRORS if isinstance(error, python)), errors.UnknownError)
        raise kind(None, None, f"{type(error).__name__}: {error}\n\t [[{{{{node {token}}}}}]]") from error
    if result is None:
        return []
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _check_count(token: str, results: list, Tout: list) -> None:  # noqa: N803
    if len(results) != len(Tout):
        raise errors.InvalidArgumentError(None, None, f"{token} returns {len(results)} values, but expects to see "
                                                      f"{len(Tout)} values.")


def _as_array(token: str, index: int, value: Any, dtype: Any) -> Any:
    """np.asarray(value), which must already have the Tout dtype (TensorFlow converts no further)."""
    if not (hasattr(value, "dtype") and hasattr(value, "shape")):   # a CArray passes as it is (no NumPy needed)
        if isinstance(value, (bytes, str)) or (isinstance(value, (list, tuple)) and value
                                               and isinstance(value[0], (bytes, str))):
            array = np.empty(np.shape(value), dtype=object)
            array[...] = value
            value = array
        else:
            value = np.asarray(value)
    actual = dtypes.string if getattr(value.dtype, "kind", "") in "OSU" else dtype_of(value)
    if actual != dtype:
        raise errors.InvalidArgumentError(None, None, f"{index}-th value returned by {token} is "
                                                      f"{tf_type_name(actual)}, but expects {tf_type_name(dtype)}")
    return value


def _kernel_result(arrays: list) -> Any:
    """A kernel's result as the executor takes it: one array for one output, None for none, else a list."""
    if len(arrays) == 1:
        return arrays[0]
    return arrays or None


def _py_func_kernel(*values: Any, token: str, Tin: list, Tout: list) -> Any:  # noqa: N803
    """outputs = func(*inputs) on NumPy arrays (np.asarray of each result, whose dtype must be its Tout)."""
    results = _call(token, list(values))
    _check_count(token, results, Tout)
    return _kernel_result([_as_array(token, i, value, dtype) for i, (value, dtype) in enumerate(zip(results, Tout))])


register_op("PyFunc", "PyFunc", inputs=("*input",), shape=_outputs_shape, stateful=True)(_py_func_kernel)
register_op("PyFuncStateless", "PyFuncStateless", inputs=("*input",), shape=_outputs_shape)(_py_func_kernel)
NotDifferentiable("PyFunc")
NotDifferentiable("PyFuncStateless")


@register_op("EagerPyFunc", "EagerPyFunc", inputs=("*input",), shape=_outputs_shape, stateful=True)
def eager_py_func_kernel(*values: Any, token: str, is_async: bool = False, Tin: list, Tout: list) -> Any:  # noqa: N803
    """outputs = func(*inputs), func run eagerly on EagerTensors; each result converted to a tensor of its Tout
    dtype (a result of another dtype is an error, as convert_to_tensor's)."""
    with eager_inside_kernel():
        results = _call(token, [EagerTensor(value, dtype_of(value)) for value in values])
        _check_count(token, results, Tout)
        try:
            return _kernel_result([convert_to_tensor(value, dtype=dtype)._value
                                   for value, dtype in zip(results, Tout)])
        except (TypeError, ValueError) as error:
            raise errors.InvalidArgumentError(None, None, f"{error}\n\t [[{{{{node {token}}}}}]]") from error


# --- the wrappers ------------------------------------------------------------------------------------------------
def _apply(op_type: str, func: Callable, inp: Any, Tout: Any, name: str | None, extra: dict) -> Any:  # noqa: N803
    many = isinstance(Tout, (list, tuple))
    touts = [dtypes.as_dtype(dtype) for dtype in (Tout if many else [Tout])]
    inputs = [convert_to_tensor(value) for value in (inp or [])]
    attrs = {"token": register_function(func), **extra, "Tin": [t.dtype.base_dtype for t in inputs], "Tout": touts}
    outputs = apply_op(op_type, inputs, attrs, name=name)
    if not touts:   # no outputs: the Operation (graph), None (eager), as TensorFlow returns
        return None if context.executing_eagerly() else outputs
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else ([] if outputs is None else [outputs])
    if many:
        return outputs
    return outputs[0] if outputs else None


def py_func(func: Callable, inp: Any, Tout: Any, stateful: bool = True, name: str | None = None) -> Any:  # noqa: N803
    """TF1's `tf.py_func`: `func` gets the inputs as NumPy arrays; op PyFunc (`stateful`) or PyFuncStateless.

    Eagerly no op runs, as in TensorFlow 2: `func` is called at once and each result becomes a tensor of its own
    dtype (Tout is not checked); one result is returned as a tensor, several as a list."""
    if context.executing_eagerly():
        return _call_now(func, inp)
    return _apply("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name, {})


def numpy_function(func: Callable, inp: Any, Tout: Any, stateful: bool = True,  # noqa: N803
                   name: str | None = None) -> Any:
    """`tf.numpy_function`: the same op as `py_func` (NumPy arrays in and out)."""
    return py_func(func, inp, Tout, stateful=stateful, name=name)


def py_function(func: Callable, inp: Any, Tout: Any, name: str | None = None) -> Any:  # noqa: N803
    """`tf.py_function`: `func` runs eagerly on EagerTensors (op EagerPyFunc), differentiable through its ops."""
    return _apply("EagerPyFunc", func, inp, Tout, name, {"is_async": False})


eager_py_func = py_function


def _call_now(func: Callable, inp: Any) -> Any:
    result = func(*[convert_to_tensor(value).numpy() for value in (inp or [])])
    flat = list(result) if isinstance(result, (list, tuple)) else [result]
    tensors = [None if value is None else convert_to_tensor(value) for value in flat]
    return tensors[0] if len(tensors) == 1 else tensors

__all__ = ["py_func", "numpy_function", "py_function", "eager_py_func", "register_function", "function_of",
           "eager_inside_kernel"]
