"""`wf.function`: trace a Python function into a graph once per input signature, then run the graph.

    @wf.function
    def f(x):
        print("tracing")          # runs only while tracing, as in TensorFlow
        return x * v              # v: a wf.Variable, read live on every call

The first call with a new *signature* — the shapes and dtypes of the tensor arguments and the values
of the other (Python) arguments — traces: it calls the Python function on placeholders inside a
FuncGraph (framework/func_graph.py), giving a `ConcreteFunction`. Later calls with the same
signature only run that graph, with the same executor as `Session.run` (runtime/executor.py).

A call is one op, `PartitionedCall` (or `StatefulPartitionedCall` if the graph assigns variables),
whose inputs are the tensor arguments and the captured tensors (variable handles, outer tensors).
Because it is an ordinary op, a GradientTape records it, and its gradient rule differentiates the
traced graph (ops/functional_ops.py).

Random ops follow TF2's seeds: a trace takes the global seed of the moment (`wf.random.set_seed`), its seedless
random ops get op seeds 0, 1, 2 ...; each trace has its own random kernels, so later calls of one trace continue
their streams while a new function, a retrace or a new `set_seed` starts again (framework/random_generators.py).

Variables follow TF2's rule: only the trace for the first call may make them (lazily, `if self.v is None`); they
are made eagerly, outside the graph (framework/init_scope.py, ops/lift_to_eager.py), and that first call is then
traced again to use them. A variable made by any later trace is TensorFlow's ValueError.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import context, dtypes
from webflow.framework.func_graph import FuncGraph
from webflow.framework.tensor import EagerTensor, TensorBase
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.convert import convert_to_tensor
from webflow.ops.functional_ops import call_function


class TensorSpec:
    """Describes a tensor argument: its shape (None for unknown dims) and dtype."""

    def __init__(self, shape: Any, dtype: Any = dtypes.float32, name: str | None = None):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    def is_compatible_with(self, value: Any) -> bool:
        return self.dtype == value.dtype.base_dtype and self.shape.is_compatible_with(value.shape)

    def __eq__(self, other: object) -> bool:  # as TensorFlow's: same shape, dtype and name (tf.data's element_spec)
        if not isinstance(other, TensorSpec):
            return NotImplemented
        return (self.shape.as_list() if self.shape.rank is not None else None) == \
            (other.shape.as_list() if other.shape.rank is not None else None) \
            and self.dtype == other.dtype and self.name == other.name

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype.name, self.name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


class ConcreteFunction:
    """One trace: a FuncGraph plus how to turn call arguments into its inputs and outputs back into results."""

    def __init__(self, graph: FuncGraph, output_structure: Any, name: str):
        self.graph = graph
        self.structured_outputs = output_structure
        self.name = name

    @property
    def inputs(self) -> list:
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list:
        return list(self.graph.outputs)

    @property
    def captured_inputs(self) -> list:
        return self.graph.captured_inputs

    def __call__(self, *args: Any) -> Any:
        """Runs the graph on the flat tensor arguments (in the order of the traced placeholders)."""
        return self._call_flat([convert_to_tensor(a) for a in args])

    def _call_flat(self, tensors: list) -> Any:
        explicit = len(self.graph.inputs) - len(self.graph.captures)
        if len(tensors) != explicit:
            raise TypeError(f"{self.name} takes {explicit} tensor arguments, got {len(tensors)}")
        outputs = iter(call_function(self.graph, tensors + self.captured_inputs))
        leaves = [next(outputs) if _is_output(leaf) else leaf for leaf in flatten(self.structured_outputs)]
        return pack_sequence_as(self.structured_outputs, leaves)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name} inputs={len(self.graph.inputs)} outputs={len(self.graph.outputs)}>"


def _is_output(leaf: Any) -> bool:
    """Which leaves of a traced function's result came from the graph (the others are Python values)."""
    return isinstance(leaf, _Traced)


class _Traced:
    """Marks, in the stored output structure, a leaf that is graph output number `index`."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index


class Function:
    """What `@wf.function` returns: a callable that traces per input signature and caches the traces."""

    def __init__(self, python_function: Callable, name: str, input_signature: Any = None):
        self._python_function = python_function
        self._name = name
        self._input_signature = None if input_signature is None else list(input_signature)
        self._signature = inspect.signature(python_function)
        self._concrete: dict[Any, ConcreteFunction] = {}
        self._tracing_count = 0
        self._initialized = False         # traced for a first call yet (the only trace that may make variables)
        self._created_variables = False   # whether that first trace made variables
        # Set (to any object) to make every trace keep its random ops' streams in one table: keras's step
        # functions, which tf_keras traces only once (framework/random_generators.py)
        self.random_state_owner: Any = None
        functools.update_wrapper(self, python_function)

    @property
    def python_function(self) -> Callable:
        return self._python_function

    @property
    def input_signature(self) -> Any:
        return self._input_signature

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function has been traced (one per new input signature)."""
        return self._tracing_count

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        """Decorating a method: bind `self`, keeping one Function (and its traces) per instance."""
        if instance is None:
            return self
        bound = instance.__dict__.get(f"_wf_function_{self._name}")
        if bound is None:
            bound = Function(functools.partial(self._python_function, instance), self._name, self._input_signature)
            instance.__dict__[f"_wf_function_{self._name}"] = bound
        return bound

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, leaves = self._concrete_for(args, kwargs)
        return concrete._call_flat([_argument_tensor(leaf) for leaf in leaves if _is_tensor_argument(leaf)])

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (tensors or TensorSpecs), tracing now if needed."""
        if not args and not kwargs and self._input_signature is not None:
            args = tuple(self._input_signature)
        return self._concrete_for(args, kwargs)[0]

    # --- signatures and tracing ------------------------------------------------------------------------
    def _concrete_for(self, args: tuple, kwargs: dict) -> tuple[ConcreteFunction, list]:
        """(the trace for this call's signature, the flat argument leaves)."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        arguments = list(bound.arguments.items())
        if self._input_signature is not None:
            arguments = self._apply_input_signature(arguments)
        leaves = flatten([value for _, value in arguments])
        key = tuple(_signature_of(leaf) for leaf in leaves)
        concrete = self._concrete.get(key)
        if concrete is None:
            concrete = self._trace_under_variable_rule(arguments, leaves)
            self._concrete[key] = concrete
        return concrete, leaves

    def _trace_under_variable_rule(self, arguments: list, leaves: list) -> ConcreteFunction:
        """TF2's rule on variables made inside a function: only while it is traced for its first call. A first
        trace that made some is traced again with variable creation forbidden (the function must reuse them,
        `if self.v is None: self.v = wf.Variable(...)`); that second trace is the one that runs."""
        if self._initialized:
            rule = _NoVariables(_SINGLETON_MESSAGE if self._created_variables else _NON_FIRST_CALL_MESSAGE)
            return self._trace_with(rule, arguments, leaves)
        self._initialized = True
        rule = _FirstTrace()
        concrete = self._trace_with(rule, arguments, leaves)
        if not rule.created:
            return concrete
        self._created_variables = True
        return self._trace_with(_NoVariables(_SINGLETON_MESSAGE), arguments, leaves)

    def _trace_with(self, rule: Any, arguments: list, leaves: list) -> ConcreteFunction:
        context.push_variable_creation_hook(rule)
        try:
            return self._trace(arguments, leaves)
        finally:
            context.pop_variable_creation_hook(rule)

    def _apply_input_signature(self, arguments: list) -> list:
        """Checks the arguments against input_signature; a TensorSpec's shape (not the value's) is traced."""
        specs = self._input_signature
        if len(arguments) != len(specs):
            raise TypeError(f"{self._name} has an input_signature of {len(specs)} arguments, got {len(arguments)}")
        checked = []
        for (name, value), spec in zip(arguments, specs):
            if not isinstance(value, TensorSpec):
                value = convert_to_tensor(value, dtype=spec.dtype)
                if not spec.is_compatible_with(value):
                    raise TypeError(f"Python inputs incompatible with input_signature: argument {name} "
                                    f"{value!r} does not match {spec}")
                value = _SpecValue(spec, value)
            checked.append((name, value))
        return checked

    def _trace(self, arguments: list, leaves: list) -> ConcreteFunction:
        self._tracing_count += 1
        graph = FuncGraph(self._name, None)   # its seed: the global seed now, as TF's (framework/func_graph.py)
        graph.random_state_owner = self.random_state_owner
        with graph.as_default():
            inputs = [graph.add_placeholder(*_placeholder_spec(leaf, name))
                      for leaf, name in zip(leaves, _leaf_names(arguments)) if _is_tensor_argument(leaf)]
            graph.inputs = list(inputs)
            replaced = iter(inputs)
            call_leaves = [next(replaced) if _is_tensor_argument(leaf) else leaf for leaf in leaves]
            values = pack_sequence_as([value for _, value in arguments], call_leaves)
            args, kwargs = self._split(arguments, values)
            result = self._python_function(*args, **kwargs)
            structure = self._record_outputs(graph, result)
        return ConcreteFunction(graph, structure, self._name)

    def _split(self, arguments: list, values: list) -> tuple[list, dict]:
        args, kwargs = [], {}
        for (name, _), value in zip(arguments, values):
            kind = self._signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
            elif kind is inspect.Parameter.VAR_KEYWORD:
                kwargs.update(value)
            elif kind is inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = value
            else:
                args.append(value)
        return args, kwargs

    @staticmethod
    def _record_outputs(graph: FuncGraph, result: Any) -> Any:
        """Sets graph.outputs to the tensor leaves of `result`; returns `result` with those leaves marked."""
        marked = []
        for leaf in flatten(result):
            if leaf is None or (not isinstance(leaf, TensorBase) and not hasattr(leaf, "_is_variable")):
                marked.append(leaf)
                continue
            graph.outputs.append(graph.capture(convert_to_tensor(leaf)))
            marked.append(_Traced(len(graph.outputs) - 1))
        return pack_sequence_as(result, marked)

    def __repr__(self) -> str:
        return f"<webflow.function {self._name}>"


_SINGLETON_MESSAGE = ("tf.function only supports singleton tf.Variables created on the first call. Make sure the "
                      "tf.Variable is only created once or created outside tf.function. See "
                      "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
_NON_FIRST_CALL_MESSAGE = "Creating variables on a non-first call to a function decorated with tf.function."


class _FirstTrace:
    """The variable rule while a function is traced for its first call: variables may be made (noted)."""

    def __init__(self) -> None:
        self.created = False

    def __call__(self) -> None:
        self.created = True


class _NoVariables:
    """The variable rule of every later trace: making a variable is TensorFlow's ValueError."""

    def __init__(self, message: str):
        self.message = message

    def __call__(self) -> None:
        raise ValueError(self.message)


class _SpecValue:
    """An argument checked against its TensorSpec: traced with the spec's shape, called with the value."""

    def __init__(self, spec: TensorSpec, value: Any):
        self.spec = spec
        self.value = value


def _is_tensor_argument(leaf: Any) -> bool:
    """Tensors and NumPy arrays become graph inputs; every other argument is a Python value baked into the trace."""
    return isinstance(leaf, (TensorBase, TensorSpec, _SpecValue, np.ndarray))


def _argument_tensor(leaf: Any) -> Any:
    return leaf.value if isinstance(leaf, _SpecValue) else convert_to_tensor(leaf)


def _signature_of(leaf: Any) -> Any:
    """The part of an argument that decides whether a new trace is needed."""
    if isinstance(leaf, _SpecValue):
        leaf = leaf.spec
    if isinstance(leaf, TensorSpec):
        return ("tensor", leaf.dtype.name, leaf.shape.as_tuple())
    if _is_tensor_argument(leaf):
        tensor = convert_to_tensor(leaf)
        return ("tensor", tensor.dtype.base_dtype.name, tensor.shape.as_tuple())
    if hasattr(leaf, "_is_variable"):
        return ("variable", id(leaf))  # a variable argument is captured by its handle, like a closure
    try:
        hash(leaf)
    except TypeError:
        return ("object", id(leaf))
    return ("python", type(leaf).__name__, leaf)


def _placeholder_spec(leaf: Any, name: str) -> tuple:
    if isinstance(leaf, _SpecValue):
        leaf = leaf.spec
    if isinstance(leaf, TensorSpec):
        return (leaf.dtype, leaf.shape, leaf.name or name)
    tensor = leaf if isinstance(leaf, EagerTensor) else convert_to_tensor(leaf)
    return (tensor.dtype.base_dtype, tensor.shape, name)


def _leaf_names(arguments: list) -> list:
    return [name for name, value in arguments for _ in flatten([value])]


def function(func: Callable | None = None, input_signature: Any = None, autograph: bool = True,
             jit_compile: Any = None, reduce_retracing: bool = False, experimental_implements: Any = None,
             experimental_autograph_options: Any = None, experimental_relax_shapes: Any = None,
             experimental_compile: Any = None, experimental_follow_type_hints: Any = None,
             name: str | None = None) -> Any:
    """`@wf.function`: trace `func` into a graph per input signature and run the graph on each call.

    autograph is not implemented: Python `if`/`while` on tensors must be written as wf.cond/wf.while_loop.
    """
    def decorate(python_function: Callable) -> Function:
        return Function(python_function, name or getattr(python_function, "__name__", "function"), input_signature)

    return decorate(func) if func is not None else decorate


def executing_inside_function() -> bool:
    return not context.executing_eagerly() and getattr(context.get_default_graph(), "building_function", False)


__all__ = ["function", "Function", "ConcreteFunction", "TensorSpec"]
