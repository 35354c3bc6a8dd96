"""Which backend runs each op: NumPy (the reference), native C (ctypes) or WASM-SIMD (the same C in Pyodide).

Every op has its NumPy kernel; an op whose stanza names a C kernel (`c=`, backends/c/<source>.py) also gets
it, stored in `OpDef.kernels` under "native" in CPython or "wasm" inside Pyodide (one adapter, two libraries).

Automatic policy (the default): per op and size, the backend measured faster on this machine. Each C
kernel's `min_size` says from how many elements it wins (None: never, NumPy always wins), and its `wins(op)`,
if any, on which static shapes of a graph op (MatMul: only a product with a thin side). The crossovers and
their figures: benchmarks/FIGURES.md (re-measured by benchmarks/backend_crossover.py); in short, a ctypes call
costs ~5-13 us, so C wins where NumPy's loop is slow (np.where, short rows, pooling), not on plain arithmetic.
Override: env WEBFLOW_BACKEND=numpy|native|wasm, or `webflow.config.set_backend(name)`: every op that
has a kernel on that backend uses it. No compiler or library -> NumPy, said once (a RuntimeWarning).

Without NumPy (Pyodide by default) values are `c_array.CArray`s: every op with a C kernel runs it whatever
the size, the other ops run the pure-Python kernel their stanza names (`portable=`, backends/portable/), and any op
without one raises `NumpyUnavailable` naming itself when it runs ("op X has no kernel without NumPy").

When the choice is made: graph ops at plan-build time in the executor (`node_kernel`, from static shapes;
an unknown size counts as large); eager ops on each call, cheaply: an op whose choice does not depend
on the size has `opdef.chooser = None` and its kernel in `opdef.kernel`, so eager dispatch is unchanged.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable
from typing import Any

from webflow.backends import bfloat16
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, NumpyUnavailable
from webflow.backends.c import library as c_library
from webflow.backends.c.adapters import CKernel, Unsupported

NUMPY, NATIVE, WASM = "numpy", "native", "wasm"
BACKENDS = (NUMPY, NATIVE, WASM)
C_BACKEND = WASM if c_library.IN_PYODIDE else NATIVE  # the name the C kernels have on this platform
ENV_BACKEND = "WEBFLOW_BACKEND"


class _State:
    forced: str | None = None   # None = automatic
    resolved = False            # has C availability been checked (building the library if needed)?
    c_ok = False
    generation = 0              # bumped on every change: executor plans re-select their kernels
    warned = False


STATE = _State()
_OPDEFS: list = []  # op defs that have a C kernel (re-applied when the backend changes)


def _check_name(name: str) -> str:
    name = name.strip().lower()
    if name not in BACKENDS + ("auto",):
        raise ValueError(f"Unknown backend {name!r}: expected one of {', '.join(BACKENDS)} or 'auto'")
    return name


def set_backend(name: str | None) -> None:
    """Forces every op that has a kernel on backend `name` (numpy, native, wasm) to use it; None/'auto' resets."""
    name = None if name is None else _check_name(name)
    STATE.forced = None if name == "auto" else name
    STATE.resolved = False
    STATE.generation += 1
    for opdef in _OPDEFS:
        apply(opdef)


def automatic() -> bool:
    """Whether each op picks its backend (rather than every op being forced to one)."""
    return STATE.forced is None


def get_backend() -> str:
    """The forced backend's name, or 'auto' when each op picks the fastest available one."""
    return STATE.forced or "auto"


# Held while resolving: another thread's first op waits for the kernels to be set instead of finding `resolved`
# already True while its op still has the resolving chooser (which then called itself without end).
_RESOLVING = threading.RLock()


def _resolve() -> None:
    """Checks (once per setting) whether the C kernels can run here; says so once when they cannot."""
    with _RESOLVING:
        if not STATE.resolved:
            _resolve_now()


def _resolve_now() -> None:
    STATE.resolved = True
    forced = STATE.forced
    if forced not in (None, C_BACKEND):  # numpy, or the other platform's C (wasm in CPython)
        STATE.c_ok = False
        reason = None if forced == NUMPY else f"the {forced} backend does not run here"
    else:
        STATE.c_ok = c_library.available()
        reason = c_library.unavailable_reason()
    if reason and not STATE.warned:
        STATE.warned = True
        message = reason.removeprefix("webflow: ").split("; using the NumPy kernels")[0]
        warnings.warn(f"webflow: {message}; using the NumPy kernels", RuntimeWarning, stacklevel=4)
    STATE.generation += 1
    for opdef in _OPDEFS:
        apply(opdef)


# --- kernels ---------------------------------------------------------------------------------------
def _with_fallback(adapter: Callable, fallback: Callable) -> Callable:
    """The adapter, running `fallback` (the NumPy version) when it raises Unsupported."""

    def run(*args: Any, **attrs: Any) -> Any:
        try:
            return adapter(*args, **attrs)
        except Unsupported:
            return fallback(*args, **attrs)

    run.__name__ = getattr(adapter, "__name__", "c_kernel")
    run.__doc__ = adapter.__doc__
    return run


def _update_with_fallback(adapter: Callable, formula: Callable) -> Callable:
    """As `_with_fallback`, for an optimizer's update formula. `into` (the state arrays the update may write
    over, ops/training_ops.py) goes to the C adapter only: the NumPy formula always returns new arrays."""

    def run(*args: Any, into: tuple | None = None, **attrs: Any) -> Any:
        try:
            return adapter(*args, into=into, **attrs)
        except Unsupported:
            return formula(*args, **attrs)

    run.__name__ = getattr(adapter, "__name__", "c_kernel")
    run.__doc__ = adapter.__doc__
    run.writes_into = True
    return run


def _without_numpy(opdef: Any) -> Callable:
    """The op's reference kernel where NumPy is missing: its pure-Python kernel, or one saying what is missing."""
    if opdef.portable is not None:
        return opdef.portable
    numpy_kernel = opdef.kernels[NUMPY]

    def run(*args: Any, **attrs: Any) -> Any:
        try:
            return numpy_kernel(*args, **attrs)  # some (Const, NoOp, variables) never touch NumPy
        except NumpyUnavailable as error:
            c_note = "" if opdef.c_adapter is None else " for these inputs"
            raise NumpyUnavailable(f"op {opdef.type} has no kernel without NumPy{c_note}; available on: numpy "
                                   f"({error})") from None

    for name in ("__name__", "__doc__", "with_update", "update"):  # optimizer kernels carry their formula
        if hasattr(numpy_kernel, name):
            try:
                setattr(run, name, getattr(numpy_kernel, name))
            except AttributeError:
                pass
    return run if not hasattr(numpy_kernel, "with_update") else numpy_kernel


def attach(opdef: Any) -> None:
    """Called by register_op: installs the kernels its stanza names (`c=`, `portable=`) beside the NumPy one."""
    if not HAVE_NUMPY:
        opdef.kernels[NUMPY] = opdef.kernel = _without_numpy(opdef)
    found: CKernel | None = opdef.c_adapter
    if found is None:
        return
    numpy_kernel = opdef.kernels[NUMPY]
    if found.update:  # an optimizer's update formula: the op's kernel rebuilt around the C formula
        kernel = numpy_kernel.with_update(_update_with_fallback(found.adapter, numpy_kernel.update))
    else:
        kernel = _with_fallback(found.adapter, numpy_kernel)
    opdef.kernels[C_BACKEND] = kernel
    _OPDEFS.append(opdef)
    apply(opdef)


def apply(opdef: Any) -> None:
    """Sets the op's eager dispatch: a fixed `opdef.kernel` (chooser None) or a per-call chooser."""
    numpy_kernel, c_kernel = opdef.kernels[NUMPY], opdef.kernels.get(C_BACKEND)
    opdef.kernel, opdef.chooser, opdef.backend = numpy_kernel, None, NUMPY
    limit = opdef.c_adapter.min_size if c_kernel is not None else None
    if not HAVE_NUMPY and STATE.forced is None:
        limit = 0  # no NumPy: the C kernel runs at every size
    if c_kernel is None or STATE.forced == NUMPY or (STATE.forced is None and limit is None):
        return  # (automatic, and NumPy wins at every size: no need to build or load the C library)
    if not STATE.resolved:
        opdef.chooser = _resolving_chooser(opdef)
        return
    if not STATE.c_ok:
        return
    if STATE.forced == C_BACKEND or limit == 0:
        opdef.kernel, opdef.backend = c_kernel, C_BACKEND
    elif limit is not None:
        opdef.chooser = _size_chooser(opdef.c_adapter.size_input, limit, c_kernel, numpy_kernel)


def _resolving_chooser(opdef: Any) -> Callable:
    def choose(values: list) -> Callable:
        _resolve()
        return opdef.kernel if opdef.chooser is None else opdef.chooser(values)

    return choose


def _size_chooser(index: int, limit: int, c_kernel: Callable, numpy_kernel: Callable) -> Callable:
    def choose(values: list) -> Callable:
        value = values[index] if index < len(values) else None
        return c_kernel if getattr(value, "size", 0) >= limit else numpy_kernel

    return choose


def node_kernel(op: Any) -> tuple[Callable, str]:
    """(kernel, backend name) for a graph op, chosen when the executor builds its plan."""
    kernel, backend = _node_kernel(op)
    return bfloat16.graph_kernel(op, kernel), backend  # (rounds bfloat16 outputs: backends/bfloat16.py)


def _node_kernel(op: Any) -> tuple[Callable, str]:
    opdef = op._opdef
    numpy_kernel, c_kernel = opdef.kernels[NUMPY], opdef.kernels.get(C_BACKEND)
    found = opdef.c_adapter
    no_numpy = not HAVE_NUMPY and STATE.forced is None  # no NumPy: the C kernel runs at every size
    if c_kernel is None or STATE.forced == NUMPY or (STATE.forced is None and found.min_size is None and not no_numpy):
        return numpy_kernel, NUMPY
    _resolve()
    if not STATE.c_ok or not _dtype_fits(op, found):
        return numpy_kernel, NUMPY
    if STATE.forced == C_BACKEND or found.min_size == 0 or no_numpy:
        return c_kernel, C_BACKEND
    if found.min_size is None:
        return numpy_kernel, NUMPY
    size = _static_size(op, found.size_input)
    if size is not None and size < found.min_size or found.wins is not None and not found.wins(op):
        return numpy_kernel, NUMPY
    return c_kernel, C_BACKEND


def _dtype_fits(op: Any, found: CKernel) -> bool:
    if found.dtypes is None or found.dtype_input >= len(op.inputs):
        return True
    return op.inputs[found.dtype_input].dtype.base_dtype.name in found.dtypes


def _static_size(op: Any, index: int) -> int | None:
    if index >= len(op.inputs):
        return None
    return op.inputs[index].shape.num_elements()


def _from_environment() -> None:
    name = os.environ.get(ENV_BACKEND, "").strip()
    if name:
        STATE.forced = None if _check_name(name) == "auto" else _check_name(name)


_from_environment()

__all__ = ["BACKENDS", "C_BACKEND", "set_backend", "get_backend", "attach", "apply", "node_kernel", "STATE"]
