"""Op table rows for the TF1 queue and reader ops (ops/data_flow_ops.py, ops/io_ops.py, ops/counter_ops.py).

Each row builds a queue or reader, runs a few ops on it and returns what came out, eagerly (TF2 queues work
eagerly) and in a graph (one Session.run: control dependencies order the ops). Oracles: the inputs themselves
(FIFO order), padding written out by hand, Python's glob/fnmatch, reader keys in TensorFlow's formats (checked
against TensorFlow itself in tests/queues/), and for the seeded RandomShuffleQueue the order TensorFlow 2.21 gives
(also rechecked by tests/queues/test_queues_tensorflow.py). No gradients: TensorFlow declares none of them.
"""

import fnmatch
import os
import tempfile

import numpy as np
import pytest
from op_harness import OpCase, after_initializers, check_case

import webflow as wf
from webflow.ops.counter_ops import count_up_to
from webflow.ops.queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from webflow.ops.registry import apply_op
from webflow.runtime.session import Session

# One fixed directory: the rows' outputs name these files, and tests/no_numpy_tables.py compares two processes' outputs.
FILES = os.path.join(tempfile.gettempdir(), f"webflow_queue_table_{os.getuid() if hasattr(os, 'getuid') else 0}")
TEXT = os.path.join(FILES, "lines.txt")
FIXED = os.path.join(FILES, "fixed.bin")
RECORDS = os.path.join(FILES, "records.tfrecord")


def _write(path, data):
    """Whole or not at all (a temporary file renamed into place): several test processes may write at once."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, path)


os.makedirs(FILES, exist_ok=True)
_write(TEXT, b"header\nfirst\r\nsecond\n")
_write(FIXED, bytes(range(12)))
# one TFRecord, TensorFlow 2.21's bytes: length, its masked CRC32C, the data, its masked CRC32C
_write(RECORDS, bytes.fromhex("0500000000000000" "eab2043e") + b"hello" + bytes.fromhex("bb1f1c19"))


def strings(*items, shape=None):
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() if isinstance(i, str) else i for i in items]
    return out.reshape(shape if shape is not None else (len(items),))


def ordered(*ops):
    """In a graph: each op runs after the ones before it (eagerly they already ran, in order)."""
    if wf.executing_eagerly():
        return wf.control_dependencies(None)
    return wf.control_dependencies(list(ops))


# --- queues -----------------------------------------------------------------------------------------------------
def fifo_enqueue_dequeue(x):
    queue = FIFOQueue(3, wf.float32, shapes=[[2, 3]])
    with ordered(queue.enqueue(x)):
        return queue.dequeue()


def fifo_many(x):
    queue = FIFOQueue(10, wf.int64, shapes=[[2]])
    with ordered(queue.enqueue_many(x)):
        batch = queue.dequeue_many(3)
    with ordered(batch):
        return [batch, queue.size()]


def closed_up_to(x):
    queue = FIFOQueue(10, wf.int32, shapes=[[]])
    put = queue.enqueue_many(x)
    with ordered(put):
        close = queue.close()
    with ordered(close):
        return [queue.dequeue_up_to(5), queue.is_closed()]


def shuffled(x):
    queue = RandomShuffleQueue(20, 2, wf.int32, shapes=[[]], seed=3)
    with ordered(queue.enqueue_many(x)):
        return queue.dequeue_many(5)


def padded(x):
    queue = PaddingFIFOQueue(4, wf.int32, shapes=[[None]])
    first = queue.enqueue(x[:1])
    with ordered(first):
        second = queue.enqueue(x)
    with ordered(second):
        return queue.dequeue_many(2)


def counted(x):
    """CountUpTo needs a TF1 variable: eagerly the row runs the same graph in a Session of its own."""
    if wf.executing_eagerly():
        with wf.Graph().as_default() as graph:
            outputs = counted(wf.constant(x.numpy(), dtype=x.dtype))
            with Session(graph=graph) as session:
                values = session.run(outputs)
        return [wf.constant(v) for v in values]
    variable = wf.Variable(x)
    with after_initializers(variable):
        before = count_up_to(variable, 10)
    with ordered(before):
        return [before, wf.identity(variable)]


# --- readers ----------------------------------------------------------------------------------------------------
def _work_queue(path):
    queue = FIFOQueue(2, wf.string, shapes=[[]])
    put = queue.enqueue(path)
    with ordered(put):
        close = queue.close()
    return queue, close


def reader_read(reader_type, **attrs):
    def build(path):
        queue, close = _work_queue(path)
        reader = apply_op(reader_type, [], {"container": "", "shared_name": "", **attrs})
        with ordered(close):
            key, value = apply_op("ReaderReadV2", [reader, queue.queue_ref], {})
        with ordered(value):
            produced = apply_op("ReaderNumRecordsProducedV2", [reader], {})
        return [key, value, produced]
    return build


def text_read_up_to(path):
    queue, close = _work_queue(path)
    reader = apply_op("TextLineReaderV2", [], {"container": "", "shared_name": "", "skip_header_lines": 0})
    with ordered(close):
        keys, values = apply_op("ReaderReadUpToV2", [reader, queue.queue_ref, np.int64(5)], {})
    with ordered(values):
        done = apply_op("ReaderNumWorkUnitsCompletedV2", [reader], {})
    with ordered(done):
        reset = apply_op("ReaderResetV2", [reader], {})
    with ordered(reset):
        after_reset = apply_op("ReaderNumRecordsProducedV2", [reader], {})
    return [keys, values, done, after_reset]


def matching(pattern):
    return apply_op("MatchingFiles", [pattern], {})


def _key(path, suffix=""):
    return (path + suffix).encode()


def _matches(pattern):
    found = sorted(os.path.join(FILES, n) for n in os.listdir(FILES) if fnmatch.fnmatch(os.path.join(FILES, n),
                                                                                       str(pattern.item(), "utf8")))
    return strings(*found)


rng = np.random.default_rng(25)
X23 = rng.normal(size=(2, 3)).astype(np.float32)
PAIRS = np.arange(10, dtype=np.int64).reshape(5, 2)

CASES = [
    OpCase("fifo_enqueue_dequeue", fifo_enqueue_dequeue, [X23], lambda x: x, grad=False),
    OpCase("fifo_enqueue_many_dequeue_many_size", fifo_many, [PAIRS], lambda x: [x[:3], np.int32(2)], grad=False),
    OpCase("closed_dequeue_up_to_is_closed", closed_up_to, [np.array([4, 5], np.int32)],
           lambda x: [x, np.bool_(True)], grad=False, fully_static=False),
    OpCase("random_shuffle_seeded", shuffled, [np.arange(12, dtype=np.int32)],
           lambda x: x[[11, 3, 0, 8, 7]], grad=False),  # TensorFlow 2.21's order for seed (87654321, 3)
    OpCase("padding_dequeue_many", padded, [np.array([7, 8, 9], np.int32)],
           lambda x: np.array([[7, 0, 0], [7, 8, 9]], np.int32), grad=False, fully_static=False),
    OpCase("count_up_to", counted, [np.int64(3)], lambda x: [x, x + 1], grad=False, unknown_shapes=False),
    OpCase("text_line_reader", reader_read("TextLineReaderV2", skip_header_lines=1), [strings(TEXT, shape=())],
           lambda p: [strings(_key(TEXT, ":2"), shape=()), strings(b"first", shape=()), np.int64(1)], grad=False),
    OpCase("whole_file_reader", reader_read("WholeFileReaderV2"), [strings(TEXT, shape=())],
           lambda p: [strings(_key(TEXT), shape=()), strings(b"header\nfirst\r\nsecond\n", shape=()),
                      np.int64(1)], grad=False),
    OpCase("fixed_length_record_reader", reader_read("FixedLengthRecordReaderV2", record_bytes=4, header_bytes=1,
                                                     footer_bytes=2, hop_bytes=0, encoding=""),
           [strings(FIXED, shape=())],
           lambda p: [strings(_key(FIXED, ":0"), shape=()), strings(bytes([1, 2, 3, 4]), shape=()), np.int64(1)],
           grad=False),
    OpCase("tfrecord_reader", reader_read("TFRecordReaderV2", compression_type=""), [strings(RECORDS, shape=())],
           lambda p: [strings(_key(RECORDS, ":0"), shape=()), strings(b"hello", shape=()), np.int64(1)], grad=False),
    OpCase("identity_reader", reader_read("IdentityReaderV2"), [strings("work item", shape=())],
           lambda p: [strings("work item", shape=()), strings("work item", shape=()), np.int64(1)], grad=False),
    OpCase("text_read_up_to_work_units_reset", text_read_up_to, [strings(TEXT, shape=())],
           lambda p: [strings(*[_key(TEXT, f":{i}") for i in (1, 2, 3)]), strings("header", "first", "second"),
                      np.int64(1), np.int64(0)], grad=False, fully_static=False),
    OpCase("matching_files", matching, [strings(os.path.join(FILES, "*.t*"), shape=())], _matches, grad=False,
           fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_queue_op(case: OpCase) -> None:
    check_case(case)
