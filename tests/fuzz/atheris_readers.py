"""Coverage-guided fuzzing of webflow's readers with atheris (libFuzzer for Python): `make fuzz` runs each target
for a bounded number of inputs after the hypothesis tests. Not collected by pytest (no test_ prefix).

    .venv/bin/python tests/fuzz/atheris_readers.py TARGET -runs=20000 [libFuzzer flags]

A target is a reader and its documented errors; any other exception is a crash: libFuzzer saves the input as
crash-<hash> in the working directory; copy it into tests/fuzz/corpus/<reader>/ once the reader is fixed.
"""

from __future__ import annotations

import os
import sys
import tempfile

import atheris

with atheris.instrument_imports(include=["webflow"]):
    import webflow as wf
    from webflow.backends.portable import example_wire
    from webflow.datasets import mnist
    from webflow.framework import errors
    from webflow.io import tfrecord
    from webflow.summary import event_wire

_SCRATCH = os.path.join(tempfile.mkdtemp(), "fuzz.tfrecord")


def _tfrecord(data: bytes) -> None:
    with open(_SCRATCH, "wb") as handle:
        handle.write(data)
    list(tfrecord.tf_record_iterator(_SCRATCH))


# target -> (reader, the errors it may raise)
TARGETS = {
    "idx": (mnist.parse_idx, (mnist.IDXFormatError,)),
    "event_wire": (event_wire.decode_event, (ValueError,)),
    "example_wire": (example_wire.decode_example, (example_wire.WireError,)),
    "tfrecord": (_tfrecord, (errors.OpError,)),
    "png": (lambda data: wf.io.decode_png(data), (errors.OpError,)),
    "gif": (lambda data: wf.io.decode_gif(data), (errors.OpError,)),
    "wav": (lambda data: wf.audio.decode_wav(data), (errors.OpError,)),
    "parse_tensor": (lambda data: wf.io.parse_tensor(data, wf.float32), (errors.OpError,)),
    "example": (lambda data: wf.io.parse_single_example(data, {"x": wf.io.VarLenFeature(wf.float32)}),
                (errors.OpError,)),
}
LEAKS = (UnicodeDecodeError, MemoryError)  # ValueError subclasses that still mean a bug


def main() -> None:
    if sys.argv[1] == "--list":
        print(" ".join(TARGETS))
        return
    reader, allowed = TARGETS[sys.argv[1]]

    def one_input(data: bytes) -> None:
        try:
            reader(data)
        except LEAKS:
            raise
        except allowed:
            pass

    atheris.Setup([sys.argv[0]] + sys.argv[2:], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
