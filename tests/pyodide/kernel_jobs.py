"""Kernel jobs: a list of C calls on NumPy buffers, run natively (ctypes) or inside Pyodide (wasm).

    job = Job()
    a, out = job.input(a_array), job.output(np.zeros(4, np.float32))
    job.call("wf_gemm_f32", 0, 0, 2, 2, 3, 1.0, a, 3, b, 2, 0.0, out, 2)
    results, outputs = runner.run(job)          # outputs[out] is the array after the calls

A buffer argument is a handle from input()/output()/view(); `view(v)` passes a strided or reversed NumPy
view by shipping the bytes it spans and pointing at its first element. `Job.sizes([...])` is a wf_size
array, `Job.conv(shape)` a Conv2DShape pointer. NativeRunner calls the native library in this process;
PyodideSession (pyodide_session.py) sends the same job to the wasm module inside Pyodide.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field

import numpy as np

from webflow.backends.c import library as c_library
from webflow.backends.c.conv import _FIELDS, Conv2DShape
from webflow.backends.c.elementwise import size_array


@dataclass(frozen=True)
class Buffer:
    """Argument: the address of buffer `index` plus `offset` bytes."""

    index: int
    offset: int = 0


@dataclass
class Job:
    buffers: list = field(default_factory=list)     # contiguous 1-D uint8 arrays: the bytes shipped
    outputs: list = field(default_factory=list)     # per buffer: None (input) or (dtype, shape) to return
    calls: list = field(default_factory=list)

    def _add(self, data: np.ndarray, returned: tuple | None) -> Buffer:
        self.buffers.append(np.frombuffer(np.asarray(data).tobytes(order="C"), np.uint8).copy())
        self.outputs.append(returned)
        return Buffer(len(self.buffers) - 1)

    def input(self, array: np.ndarray) -> Buffer:
        return self._add(array, None)

    def output(self, array: np.ndarray) -> Buffer:
        """A buffer whose contents after the calls are returned (with `array`'s dtype and shape)."""
        array = np.asarray(array)    # (not ascontiguousarray: it turns 0-d arrays into 1-d ones)
        return self._add(array, (array.dtype, array.shape))

    def view(self, view: np.ndarray) -> Buffer:
        """A (possibly strided, reversed or broadcast) view: the bytes it spans, pointed at its first element."""
        if view.size == 0:
            return self.input(np.zeros(1, view.dtype))
        low, high = _byte_bounds(view)
        span = np.frombuffer(ctypes.string_at(low, high - low), np.uint8)
        handle = self._add(span, None)
        return Buffer(handle.index, view.__array_interface__["data"][0] - low)

    @staticmethod
    def sizes(values: object) -> dict:
        return {"sizes": [int(v) for v in values]}

    @staticmethod
    def strides(view: np.ndarray, shape: tuple | None = None) -> dict:
        """A view's strides in elements (0 along broadcast dimensions when `shape` is given)."""
        if shape is not None:
            view = np.broadcast_to(view, shape)
        return {"sizes": [s // view.itemsize for s in view.strides]}

    @staticmethod
    def conv(shape: Conv2DShape) -> dict:
        return {"conv": [int(getattr(shape, name)) for name in _FIELDS]}

    def call(self, name: str, *arguments: object) -> None:
        self.calls.append([name, *[_plain(a) for a in arguments]])

    def spec(self) -> list:
        """The calls as JSON-ready lists (buffer handles become {"buffer": i, "offset": bytes})."""
        return [[name] + [{"buffer": a.index, "offset": a.offset} if isinstance(a, Buffer) else a for a in args]
                for name, *args in self.calls]

    def decode(self, index: int, data: bytes) -> np.ndarray:
        dtype, shape = self.outputs[index]
        return np.frombuffer(data, dtype=dtype).reshape(shape).copy()


def _byte_bounds(view: np.ndarray) -> tuple:
    """(lowest, one past the highest) address a view touches (numpy.lib.array_utils in NumPy >= 2)."""
    utilities = getattr(np.lib, "array_utils", np)
    return utilities.byte_bounds(view)


def _plain(value: object) -> object:
    """NumPy scalars as Python numbers (float32 values stay exact: ctypes rounds them back to the same float)."""
    if isinstance(value, np.generic | np.ndarray) and np.ndim(value) == 0:
        return value.item()
    return value


class NativeRunner:
    """Runs a job through the native library (CPython ctypes), for comparison with the wasm run."""

    name = "native"

    def run(self, job: Job) -> tuple[list, dict]:
        memory = [np.concatenate([b, np.zeros(max(16 - b.size, 0), np.uint8)]) for b in job.buffers]
        results = []
        for name, *arguments in job.spec():
            keep = []
            values = []
            for argument in arguments:
                if isinstance(argument, dict) and "buffer" in argument:
                    values.append(memory[argument["buffer"]].ctypes.data + argument["offset"])
                elif isinstance(argument, dict):
                    keep.append(size_array(argument["sizes"]) if "sizes" in argument
                                else Conv2DShape(*argument["conv"]))
                    values.append(ctypes.addressof(keep[-1]))
                else:
                    values.append(argument)
            results.append(c_library.function(name)(*values))
        outputs = {Buffer(i): job.decode(i, memory[i][:job.buffers[i].size].tobytes())
                   for i, returned in enumerate(job.outputs) if returned is not None}
        return results, outputs
