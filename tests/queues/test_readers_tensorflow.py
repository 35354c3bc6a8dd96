"""TF1 readers against real TensorFlow 2.21, on files written here: the (key, value) pairs of TextLineReader (with
and without header lines, "\\r\\n", empty lines, no final newline), WholeFileReader, FixedLengthRecordReader (header,
footer, hop, a trailing partial record), TFRecordReader, IdentityReader and read_up_to, each read through
string_input_producer and a queue runner to the OutOfRangeError, then num_records_produced and
num_work_units_completed. Bad input: a missing file (NotFoundError naming it) and a corrupt TFRecord (DataLossError;
its wording is io/tfrecord.py's, so only the type and node are compared)."""

from __future__ import annotations

import pytest
from queue_oracle import SKIP_REASON, TF_PYTHON, assert_as_tensorflow, run_on_both

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

FILES = '''
import os
import re
A, B = os.path.join(DIR, "a.txt"), os.path.join(DIR, "b.txt")
FIXED, RECORDS = os.path.join(DIR, "fixed.bin"), os.path.join(DIR, "records.tfrecord")
with open(A, "wb") as f:
    f.write(b"h1\\nh2\\nl1\\r\\nl2\\n\\nl4")
with open(B, "wb") as f:
    f.write(b"x\\ny\\n")
with open(FIXED, "wb") as f:
    f.write(bytes(range(23)))
with tf.python_io.TFRecordWriter(RECORDS) as writer:
    for i in range(3):
        writer.write(b"abc" * i)

def drain(reader, files, up_to=None):
    queue = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    key, value = reader.read_up_to(queue, up_to) if up_to else reader.read(queue)
    counts = [reader.num_records_produced(), reader.num_work_units_completed()]
    out = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while True:
                out.append(sess.run([key, value]))
        except tf.errors.OutOfRangeError as error:  # the queue's unique id depends on which thread ran first
            text = error.message.split("\\n")[-2] if "\\n" in error.message else error.message
            out.append(["end", re.sub("'_[0-9]+_", "'_N_", text)])
        out.append(sess.run(counts))
        coord.request_stop()
        coord.join(threads)
    return out
'''

READERS = {
    "text": "tf.TextLineReader(), [A, B]",
    "text_skip_header": "tf.TextLineReader(skip_header_lines=2), [A, B]",
    "whole_file": "tf.WholeFileReader(), [A, B]",
    "fixed_length": "tf.FixedLengthRecordReader(record_bytes=5, header_bytes=2, footer_bytes=3), [FIXED]",
    "fixed_length_hop": "tf.FixedLengthRecordReader(record_bytes=5, header_bytes=1, footer_bytes=2, hop_bytes=3), "
                        "[FIXED]",
    "tfrecord": "tf.TFRecordReader(), [RECORDS]",
    "read_up_to": "tf.TextLineReader(), [A, B], 3",
    "identity": "tf.IdentityReader(), [A, B]",
}


BAD_INPUT = '''
def first_error(reader, path):
    queue = tf.FIFOQueue(2, tf.string, shapes=[[]])
    key, value = reader.read(queue)
    with tf.Session() as sess:
        sess.run(queue.enqueue(path))
        try:
            sess.run(value)
        except tf.errors.OpError as error:
            return type(error).__name__, error.message.split("\\n")[-2:]

good = open(RECORDS, "rb").read()
with open(os.path.join(DIR, "corrupt.tfrecord"), "wb") as f:
    f.write(good[:12] + bytes([good[12] ^ 1]) + good[13:])  # the first record's data CRC
missing = first_error(tf.TextLineReader(), os.path.join(DIR, "missing.txt"))
corrupt = first_error(tf.TFRecordReader(), os.path.join(DIR, "corrupt.tfrecord"))
result = {"missing": missing, "corrupt": [corrupt[0], corrupt[1][-1]]}
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> tuple:
    directory = str(tmp_path_factory.mktemp("readers"))
    programs = {key: (FILES + f"result = drain({call})\n", directory) for key, call in READERS.items()}
    programs["bad_input"] = (FILES + BAD_INPUT, directory)
    return run_on_both(programs)


@pytest.mark.parametrize("key", sorted(READERS) + ["bad_input"])
def test_reader_matches_tensorflow(key: str, results: tuple) -> None:
    assert_as_tensorflow(results, key)
