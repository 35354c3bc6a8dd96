"""TF1 variable sharing: `tf.variable_scope` and `tf.get_variable`, with TensorFlow's reuse rules.

Two stores hang on each Graph (`graph._variable_scope_store`):
- the *variable store*: full name ("foo/v") -> the variable `get_variable` made, so a second
  `get_variable("v")` under `variable_scope("foo", reuse=True)` returns the same object;
- the *scope store* (one per thread): the current `VariableScope` and how often each scope name was
  opened, used to make `default_name` scopes unique ("d", "d_1", ...).

A variable scope names *variables*; the name scope it opens names *ops*. So the second
`with variable_scope("foo")` still makes variables "foo/v" while its ops land in "foo_1/".

Reuse: `None` (inherit from the enclosing scope, at the root: create only), `True` (only return existing
variables), `AUTO_REUSE` (create if missing, else return). `reuse=False` on `variable_scope` means "inherit".
Eager mode (TF2) has no store: every `get_variable` creates a new ResourceVariable, as TensorFlow does.

Longer than ~400 lines because the scope store, `VariableScope` and the `variable_scope` context manager read
and write one per-thread state (the current scope and how often each name was opened), which the reuse and
unique-name rules above depend on; TensorFlow keeps them in one variable_scope.py. The variable store itself
(reuse checks, creating the variable) is already variable_store.py.
"""

from __future__ import annotations

import enum
import functools
import threading
from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import _graph_of
from webflow.ops.convert import convert_to_tensor
from webflow.ops.variable_store import VariableStore, get_or_create_variable


class _ReuseMode(enum.Enum):
    """`tf.AUTO_REUSE`: create the variable if it does not exist, else return it."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


# --- the stores ------------------------------------------------------------------------------------------
class _ThreadScopes(threading.local):
    def __init__(self) -> None:
        root = VariableScope(False)
        # The store outlives a switch from eager to graph mode (same global graph): keep the root
        # creating-only, as a graph needs; eager get_variable ignores reuse anyway.
        root._reuse, root._use_resource = False, None
        self.current_scope = root
        self.variable_scopes_count: dict[str, int] = {}


class _VariableScopeStore:
    """Per graph: the variables made by `get_variable` (shared) and the scope stack (per thread)."""

    def __init__(self) -> None:
        self.variable_store = VariableStore()
        self._threads = _ThreadScopes()

    @property
    def current_scope(self) -> VariableScope:
        return self._threads.current_scope

    @current_scope.setter
    def current_scope(self, scope: VariableScope) -> None:
        self._threads.current_scope = scope

    @property
    def variable_scopes_count(self) -> dict[str, int]:
        return self._threads.variable_scopes_count

    @variable_scopes_count.setter
    def variable_scopes_count(self, counts: dict[str, int]) -> None:
        self._threads.variable_scopes_count = counts

    def open_variable_scope(self, scope_name: str) -> None:
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name: str) -> None:
        """Leaving scope "a" forgets how often "a/..." scopes were opened: the next "a_1/d" starts at "d"."""
        prefix = scope_name + "/"
        for key in self.variable_scopes_count:
            if key.startswith(prefix):
                self.variable_scopes_count[key] = 0

    def variable_scope_count(self, scope_name: str) -> int:
        return self.variable_scopes_count.get(scope_name, 0)


def _store() -> _VariableScopeStore:
    graph = context.get_default_graph()
    if graph._variable_scope_store is None:
        graph._variable_scope_store = _VariableScopeStore()
    return graph._variable_scope_store


def get_variable_scope() -> VariableScope:
    """The current `VariableScope` (the root scope, named "", outside any `variable_scope`)."""
    return _store().current_scope


# --- VariableScope -------------------------------------------------------------------------------------
class VariableScope:
    """The defaults `get_variable` uses inside a `variable_scope`: name prefix, reuse, initializer, ..."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None, regularizer: Any = None,
                 caching_device: Any = None, partitioner: Any = None, custom_getter: Any = None,
                 name_scope: str = "", dtype: Any = dtypes.float32, use_resource: Any = None,
                 constraint: Any = None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtype
        self._use_resource = use_resource
        self._constraint = constraint
        if context.executing_eagerly():
            self._reuse = AUTO_REUSE  # eager variables are never shared through a scope
            self._use_resource = True

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self) -> None:
        """From now on, `get_variable` in this scope only returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtype

    def set_use_resource(self, use_resource: Any) -> None:
        if context.executing_eagerly() and not use_resource:
            raise ValueError("When eager execution is enabled, use_resource cannot be set to false.")
        self._use_resource = use_resource

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def set_partitioner(self, partitioner: Any) -> None:
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter: Any) -> None:
        self._custom_getter = custom_getter

    def get_collection(self, name: str) -> list:
        """This scope's members of collection `name` (matched by the "scope/" name prefix)."""
        scope = self._name + "/" if self._name else ""
        return context.get_default_graph().get_collection(name, scope)

    def trainable_variables(self) -> list:
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self) -> list:
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self) -> list:
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store: Any, name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                     regularizer: Any = None, reuse: Any = None, trainable: Any = None, collections: Any = None,
                     caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                     use_resource: Any = None, custom_getter: Any = None, constraint: Any = None,
                     synchronization: Any = None, aggregation: Any = None) -> Any:
        """Fills in this scope's defaults, then gets or creates variable "<scope name>/<name>"."""
        regularizer = self._regularizer if regularizer is None else regularizer
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        if context.executing_eagerly():
            reuse = False
        elif reuse is None:
            reuse = self._reuse
        full_name = self._name + "/" + name if self._name else name
        # Variable names depend only on the variable scope, so ops are built from the root name scope.
        with _root_name_scope():
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtype:
                    raise ValueError(f"Initializer type '{init_dtype}' and explicit dtype '{dtypes.as_dtype(dtype)}' "
                                     "don't match.")
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            arguments = dict(name=full_name, shape=shape, dtype=dtype, initializer=initializer,
                             regularizer=regularizer, reuse=reuse, trainable=trainable, collections=collections,
                             caching_device=caching_device, partitioner=partitioner, validate_shape=validate_shape,
                             use_resource=use_resource, constraint=constraint)
            getter = functools.partial(get_or_create_variable, var_store)
            if custom_getter is not None:
                if not callable(custom_getter):
                    raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
                return custom_getter(getter, **arguments)
            return getter(**arguments)


class _root_name_scope:  # noqa: N801 - used like a function, as TensorFlow's name_scope(None)
    """Graph mode: build inside the root name scope with no control dependencies (TF's init_scope)."""

    def __enter__(self) -> None:
        if context.executing_eagerly():
            self._scopes: list = []
            return
        graph = context.get_default_graph()
        self._scopes = [graph.name_scope(None), graph.control_dependencies(None)]
        for scope in self._scopes:
            scope.__enter__()

    def __exit__(self, *exc: Any) -> None:
        for scope in reversed(self._scopes):
            scope.__exit__(*exc)


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None, regularizer: Any = None,
                 trainable: Any = None, collections: Any = None, caching_device: Any = None, partitioner: Any = None,
                 validate_shape: bool = True, use_resource: Any = None, custom_getter: Any = None,
                 constraint: Any = None, synchronization: Any = None, aggregation: Any = None) -> Any:
    """Gets the variable "<current variable scope>/<name>" or creates it, following the scope's reuse rule."""
    return get_variable_scope().get_variable(
        _store().variable_store, name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device, partitioner=partitioner,
        validate_shape=validate_shape, use_resource=use_resource, custom_getter=custom_getter,
        constraint=constraint, synchronization=synchronization, aggregation=aggregation)


def get_local_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                       regularizer: Any = None, trainable: bool = False, collections: Any = None,
                       caching_device: Any = None, partitioner: Any = None, validate_shape: bool = True,
                       use_resource: Any = None, custom_getter: Any = None, constraint: Any = None,
                       synchronization: Any = None, aggregation: Any = None) -> Any:
    """`get_variable` for a non-trainable variable in LOCAL_VARIABLES (not saved, not trained)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, caching_device=caching_device,
                        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint)


def no_regularizer(_: Any) -> None:
    """Use this as `regularizer=` to switch off a scope's default regularizer for one variable."""
    return None



# --- variable_scope: the context manager ------------------------------------------------------------------
_OVERRIDES = ("initializer", "regularizer", "caching_device", "partitioner", "custom_getter", "dtype", "use_resource")


class _PureVariableScope:
    """Makes a VariableScope current (no name scope): a new child scope for a string, a copy for a scope object."""

    def __init__(self, name_or_scope: Any, reuse: Any, settings: dict, constraint: Any, old_name_scope: Any):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._settings = settings
        self._constraint = constraint
        self._old_name_scope = old_name_scope
        self._store = _store()
        if isinstance(name_or_scope, VariableScope):
            # Jumping to an existing scope: its settings, unless this `with` overrides them. Reuse is not inherited.
            self._new_name = name_or_scope.name
            self._cached = self._new_scope(name_or_scope, name_or_scope.reuse if not reuse else reuse,
                                           name_or_scope.name, name_or_scope.original_name_scope)

    def _new_scope(self, base: VariableScope, reuse: Any, name: str, name_scope: str) -> VariableScope:
        scope = VariableScope(reuse, name=name, initializer=base.initializer, regularizer=base.regularizer,
                              caching_device=base.caching_device, partitioner=base.partitioner,
                              custom_getter=base.custom_getter, name_scope=name_scope, dtype=base.dtype,
                              use_resource=base.use_resource, constraint=self._constraint)
        for key in _OVERRIDES:
            value = self._settings.get(key)
            if value is None:
                continue
            if key == "custom_getter" and base.custom_getter is not None:
                value = _chain_custom_getters(value, base.custom_getter)
            getattr(scope, "set_" + key)(value)
        return scope

    def __enter__(self) -> VariableScope:
        store = self._store
        self._old = store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            store.open_variable_scope(self._new_name)
            self._old_counts = dict(store.variable_scopes_count)
            scope = self._cached
        else:
            self._new_name = self._old.name + "/" + self._name_or_scope if self._old.name else self._name_or_scope
            reuse = self._reuse or self._old.reuse  # reuse is inherited by sub-scopes
            name_scope = self._name_or_scope if self._old_name_scope is None else self._old_name_scope
            scope = self._new_scope(self._old, reuse, self._new_name, name_scope)
            store.open_variable_scope(self._new_name)
        store.current_scope = scope
        self._entered = scope
        return scope

    def __exit__(self, *exc: Any) -> None:
        store = self._store
        if store.current_scope is not self._entered:
            raise RuntimeError("Improper nesting of variable_scope.")
        if isinstance(self._name_or_scope, VariableScope):
            store.variable_scopes_count = self._old_counts
        else:
            store.close_variable_subscopes(self._new_name)
        store.current_scope = self._old


def _chain_custom_getters(custom_getter: Any, old_getter: Any) -> Any:
    """An inner scope's custom getter wraps the outer one, which wraps the true getter."""
    def chained(getter: Any, *args: Any, **kwargs: Any) -> Any:
        return custom_getter(lambda *a, **k: old_getter(getter, *a, **k), *args, **kwargs)

    return chained


def _unique_variable_scope(prefix: str) -> str:
    """`prefix`, or `prefix_1`, `prefix_2` ... : the first not yet opened in the current variable scope."""
    store = _store()
    current = store.current_scope.name
    name = current + "/" + prefix if current else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    index = 1
    while store.variable_scope_count(f"{name}_{index}") > 0:
        index += 1
    return f"{prefix}_{index}"


class variable_scope:  # noqa: N801 - TensorFlow's name
    """`with tf.variable_scope("foo") as scope:` prefixes `get_variable` names with "foo/" and opens a name scope.

    `name_or_scope` is a string or a VariableScope to re-enter; with `None`, `default_name` is used and made
    unique. `reuse` is True, AUTO_REUSE or None (inherit); initializer/regularizer/dtype/... become the defaults
    for `get_variable` inside.
    """

    def __init__(self, name_or_scope: Any, default_name: str | None = None, values: Any = None,
                 initializer: Any = None, regularizer: Any = None, caching_device: Any = None,
                 partitioner: Any = None, custom_getter: Any = None, reuse: Any = None, dtype: Any = None,
                 use_resource: Any = None, constraint: Any = None, auxiliary_name_scope: bool = True):
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if reuse is False:
            reuse = None  # there are no non-inheriting scopes: False means "inherit"
        if not (reuse is True or reuse is None or reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get {auxiliary_name_scope}")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._reuse = reuse
        self._settings = dict(initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                              partitioner=partitioner, custom_getter=custom_getter, dtype=dtype,
                              use_resource=use_resource)
        self._constraint = constraint
        self._auxiliary_name_scope = auxiliary_name_scope
        self._in_graph_mode = not context.executing_eagerly()
        self._graph = (_graph_of(values) or context.get_default_graph()) if self._in_graph_mode else None
        self._pure: _PureVariableScope | None = None
        self._name_scope_argument: Any = None
        self._open: list = []  # the context managers entered by __enter__, closed in reverse by __exit__

    def __enter__(self) -> VariableScope:
        if self._in_graph_mode:
            self._enter(self._graph.as_default())
        try:
            if self._pure is not None:  # this same `with` object entered again
                self._open_name_scope(self._name_scope_argument)
                return self._enter(self._pure)
            return self._enter_first_time()
        except BaseException as error:
            self._close_all(type(error), error, error.__traceback__)
            raise

    def _enter_first_time(self) -> VariableScope:
        scope = self._name_or_scope
        if scope is not None and not isinstance(scope, (VariableScope, str)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if scope is None and self._reuse:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        if not self._auxiliary_name_scope:
            current = "" if not self._in_graph_mode else self._graph.get_name_scope()
            argument = current + "/" if current else ""  # re-enter the current name scope itself
        elif isinstance(scope, VariableScope):
            argument = scope.name.split("/")[-1] or None  # the root scope opens no name scope
        else:
            argument = scope if scope is not None else self._default_name
        entered_name_scope = self._open_name_scope(argument)
        self._name_scope_argument = argument
        if isinstance(scope, VariableScope):
            old_name_scope = scope.original_name_scope if argument is not None else None
        else:
            old_name_scope = entered_name_scope
        if scope is None:
            scope = _unique_variable_scope(self._default_name)
        self._pure = _PureVariableScope(scope, self._reuse, self._settings, self._constraint, old_name_scope)
        return self._enter(self._pure)

    def _open_name_scope(self, argument: Any) -> Any:
        if argument is None:
            return None
        if self._in_graph_mode:
            return self._enter(self._graph.name_scope(argument))
        # Eager mode keeps no name-scope stack: nest under the enclosing variable scope's name scope.
        if argument.endswith("/") or not argument:
            return argument
        return get_variable_scope().original_name_scope + argument + "/"

    def _enter(self, manager: Any) -> Any:
        value = manager.__enter__()
        self._open.append(manager)
        return value

    def _close_all(self, *exc: Any) -> None:
        while self._open:
            self._open.pop().__exit__(*exc)

    def __exit__(self, *exc: Any) -> None:
        self._close_all(*exc)


def variable_op_scope(values: Any, name_or_scope: Any, default_name: str | None = None, **kwargs: Any) -> Any:
    """Deprecated TF1 spelling: `variable_scope(name_or_scope, default_name, values, ...)`."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
