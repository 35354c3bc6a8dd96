"""`Session`: runs graph fragments. `run` reads top to bottom as its four steps:
normalise the fetches, validate the feeds, prune + order (cached as a Plan), execute.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import context
from webflow.framework.default_session import pop_session, push_session
from webflow.framework.graph import Graph, Operation
from webflow.framework.tensor import Tensor, TensorBase
from webflow.ops import queue_state
from webflow.runtime import executor
from webflow.runtime.config import ConfigProto, NodeExecStats, RunOptions
from webflow.runtime.fetches import FetchStructure


class BaseSession:
    """One graph, one set of variable values (the resource store), many `run` calls."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None):
        self._graph = graph if graph is not None else context.get_default_graph()
        self._config = config or ConfigProto()
        self._closed = False
        self._resources: dict[str, Any] = {}
        self._plans: dict[tuple, executor.Plan] = {}
        self._fetch_structures: dict[tuple, tuple] = {}  # see _fetch_structure
        self._default_context: Any = None
        self._operation_timeout_ms = getattr(self._config, "operation_timeout_in_ms", 0)  # read once, as TF does

    @property
    def graph(self) -> Graph:
        return self._graph

    @property
    def graph_def(self) -> Any:
        """The session's graph as TensorFlow's GraphDef message (Graph.as_graph_def)."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return ""

    def list_devices(self) -> list:
        return [executor.CPU_DEVICE]

    # --- run ---------------------------------------------------------------------------------------
    def run(self, fetches: Any, feed_dict: dict | None = None, options: RunOptions | None = None,
            run_metadata: Any = None) -> Any:
        """Evaluates `fetches` (any nest of tensors, ops, names) with `feed_dict` substituted."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        structure = self._fetch_structure(fetches)
        feeds = self._validated_feeds(feed_dict or {})
        plan = self._plan_for(structure, feeds)
        trace = [] if options is not None and options.trace_level else None
        run_state = self._run_state(options) if options is not None or self._operation_timeout_ms else None
        try:
            values = executor.execute(plan, feeds, self._resources, self,
                                      self._config.log_device_placement, trace, run_state)
        except KeyboardInterrupt:  # Ctrl-C (in a notebook too): the queue runners' threads stop with the run
            for stop in list(self._resources.get(queue_state.ON_INTERRUPT, ())):
                stop()
            raise
        if trace is not None and run_metadata is not None:
            _fill_run_metadata(run_metadata, trace, values)
        return structure.build([_fetched(values[t._uid]) if t is not None else None for t in structure.tensors])

    def _run_state(self, options: RunOptions | None) -> dict | None:
        """{"deadline": monotonic seconds} when the run may only wait so long (a queue op waiting for elements):
        RunOptions.timeout_in_ms, else ConfigProto.operation_timeout_in_ms; None (no limit) when neither is set."""
        timeout_ms = getattr(options, "timeout_in_ms", 0) or self._operation_timeout_ms
        if not timeout_ms or timeout_ms <= 0:
            return None
        return {"deadline": time.monotonic() + timeout_ms / 1000.0}

    def _fetch_structure(self, fetches: Any) -> FetchStructure:
        """The FetchStructure of `fetches`, made once per tensor/op or flat list/tuple of them: a training
        loop passes the same fetches every step (in Pyodide, for [loss, train]: 11 us resolved, 4 us cached)."""
        items = fetches if type(fetches) in (list, tuple) else (fetches,)
        if not all(isinstance(item, (Tensor, Operation)) for item in items):
            return FetchStructure(self._graph, fetches)  # names, dicts, nests: resolved every time
        key = (type(fetches), tuple(id(item) for item in items))
        cached = self._fetch_structures.get(key)
        if cached is None:
            if len(self._fetch_structures) >= 256:
                self._fetch_structures.clear()
            # the entry keeps the fetched objects alive, so their ids in the key are not reused
            cached = self._fetch_structures[key] = (FetchStructure(self._graph, fetches), tuple(items))
        return cached[0]

    def _plan_for(self, structure: FetchStructure, feeds: dict) -> executor.Plan:
        # Several threads may run one session at once (queue runners): a dict's get and set are atomic, so at
        # worst two threads build the same plan; each run keeps its values in its own dict (executor.execute).
        key = (structure.signature(), frozenset(feeds))
        plan = self._plans.get(key)
        if plan is None:
            tensors = [t for t in structure.tensors if t is not None]
            plan = executor.make_plan(tensors, structure.targets, frozenset(feeds))
            self._plans[key] = plan
        return plan

    def _validated_feeds(self, feed_dict: dict) -> dict:
        """{tensor uid: array}, after checking each key is a feedable tensor of this graph and each value fits it."""
        feeds: dict[int, Any] = {}
        for key, value in feed_dict.items():
            tensor = self._feed_target(key)
            if isinstance(value, TensorBase):
                raise TypeError(
                    "The value of a feed cannot be a tf.Tensor object. Acceptable feed values include Python "
                    "scalars, strings, lists, numpy ndarrays, or TensorHandles. For reference, the tensor "
                    f"object was {value} which was passed to the argument `feed_dict` with key {tensor}.")
            feeds[tensor._uid] = self._feed_value(tensor, value)
        return feeds

    def _feed_target(self, key: Any) -> Tensor:
        try:
            tensor = self._graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except Exception as error:  # TF wraps every lookup failure the same way
            raise TypeError(f"Cannot interpret feed_dict key as Tensor: {error.args[0]}") from None
        if not self._graph.is_feedable(tensor):
            raise ValueError(f"Tensor {tensor.name} may not be fed.")
        return tensor

    @staticmethod
    def _feed_value(tensor: Tensor, value: Any) -> Any:
        dtype = tensor.dtype.base_dtype
        try:
            array = _as_feed_array(value, dtype)
        except (TypeError, ValueError) as error:  # keep TF's exception type, name the tensor
            raise type(error)(f"Cannot feed {_describe(value)} to Tensor {tensor.name} of dtype {dtype.name}: "
                              f"{error}") from None
        if not tensor.shape.is_compatible_with(array.shape):
            raise ValueError(f"Cannot feed value of shape {array.shape} for Tensor {tensor.name}, "
                             f"which has shape {tensor.shape}")
        return array

    # --- lifetime ----------------------------------------------------------------------------------
    def close(self) -> None:
        self._closed = True
        for resource in list(self._resources.values()):
            cancel = getattr(resource, "cancel_waiting_ops", None)  # queues: waiting ops raise CancelledError
            if cancel is not None:
                cancel()
        self._resources.clear()

    @contextlib.contextmanager
    def as_default(self) -> Iterator[BaseSession]:
        push_session(self)
        try:
            with self._graph.as_default():
                yield self
        finally:
            pop_session(self)

    def __enter__(self) -> BaseSession:
        self._default_context = self.as_default()
        self._default_context.__enter__()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._default_context.__exit__(*exc_info)
        self._default_context = None
        self.close()

    def make_callable(self, fetches: Any, feed_list: list | None = None, accept_options: bool = False) -> Any:
        feed_list = list(feed_list or [])

        def callable_(*args: Any, **kwargs: Any) -> Any:
            return self.run(fetches, dict(zip(feed_list, args)), **kwargs)

        return callable_


def _as_feed_array(value: Any, dtype: Any) -> Any:
    """The fed value as an array of the placeholder's dtype.

    Strings fed to a number raise ValueError, as in TensorFlow. Unlike TensorFlow, which silently
    truncates 1.5 fed to an int32 placeholder, a lossy conversion raises TypeError: a learner should
    never get a silently wrong answer.
    """
    if dtype.name in ("string", "bfloat16") or not HAVE_NUMPY:  # without NumPy: a CArray, with the same checks
        from webflow.ops.convert import to_numpy

        return to_numpy(value, dtype)
    source = np.asarray(value)
    if source.dtype.kind in "USO":
        raise ValueError(f"could not convert string or object values to {dtype.name}")
    array = source.astype(dtype.as_numpy_dtype)
    if source.dtype.kind == "f" and (dtype.is_integer or dtype.is_bool) and np.any(array != source):
        raise TypeError("the values are not whole numbers; cast them explicitly if truncation is intended")
    if source.dtype.kind in "iu" and dtype.is_integer and np.any(array != source):
        raise TypeError(f"the values do not fit in {dtype.name}; try a larger type (e.g. int64)")
    return array


def _describe(value: Any) -> str:
    shape = getattr(np.asarray(value, dtype=object), "shape", ())
    return f"a value of type {type(value).__name__} and shape {shape}"


def _fetched(value: Any) -> Any:
    """A fetched 0-d array comes back as a NumPy scalar (np.float32(2.0)), as in TensorFlow."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _fill_run_metadata(run_metadata: Any, trace: list, values: dict) -> None:
    if not trace:
        return
    origin = trace[0][1]
    stats = run_metadata.step_stats.dev_stats
    for op, started, ended, backend, op_type, fused_nodes in trace:
        shapes = [list(getattr(values.get(t._uid), "shape", ())) for t in op.outputs]
        stats.append(NodeExecStats(op.name, op_type, (started - origin) * 1e6, (ended - started) * 1e6,
                                   shapes, op.device or executor.CPU_DEVICE, backend, fused_nodes))


class Session(BaseSession):
    """`tf.Session`: use as a context manager so it closes and becomes the default session inside."""


class InteractiveSession(BaseSession):
    """A session that makes itself the default on creation (for notebooks and shells)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config: ConfigProto | None = None):
        super().__init__(target, graph, config)
        self._default_context = self.as_default()
        self._default_context.__enter__()

    def close(self) -> None:
        if self._default_context is not None:
            self._default_context.__exit__(None, None, None)
            self._default_context = None
        super().close()


def _is_operation(value: Any) -> bool:
    return isinstance(value, Operation)
