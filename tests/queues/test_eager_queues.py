"""TF2's queues run eagerly (`tf.queue.FIFOQueue` ... in `import webflow as wf`): each op runs at once on the queue
its handle tensor owns. Expected values: the inputs themselves (FIFO), and for the seeded RandomShuffleQueue and the
error's wording what TensorFlow 2.21 gives eagerly (recorded here from a run; tests/queues/test_queues_tensorflow.py
rechecks the same rules in graph mode against TensorFlow itself)."""

from __future__ import annotations

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf1


def test_fifo_queue_eagerly():
    queue = wf.queue.FIFOQueue(3, wf.float32, shapes=[[]])
    queue.enqueue_many([[1.0, 2.0]])
    queue.enqueue(3.0)
    assert queue.name == "Empty" and int(queue.size()) == 3
    assert float(queue.dequeue()) == 1.0
    np.testing.assert_array_equal(queue.dequeue_many(2).numpy(), [2.0, 3.0])
    queue.close()
    assert bool(queue.is_closed())
    with pytest.raises(wf.errors.OutOfRangeError, match=r"FIFOQueue '\d+' is closed and has insufficient elements "
                                                         r"\(requested 1, current size 0\) \[Op:QueueDequeueV2\]"):
        queue.dequeue()


def test_seeded_random_shuffle_queue_eagerly_gives_tensorflows_order():
    queue = wf.queue.RandomShuffleQueue(10, 0, wf.int32, shapes=[[]], seed=3)
    queue.enqueue_many([list(range(8))])
    assert queue.dequeue_many(8).numpy().tolist() == [7, 3, 4, 0, 6, 2, 5, 1]  # TensorFlow 2.21, eagerly


def test_padding_queue_and_names_eagerly():
    queue = wf.queue.PaddingFIFOQueue(4, [wf.int32, wf.string], shapes=[[None], []], names=["ids", "word"])
    queue.enqueue({"ids": [1, 2, 3], "word": "abc"})
    queue.enqueue({"ids": [4], "word": "d"})
    batch = queue.dequeue_many(2)
    assert batch["ids"].numpy().tolist() == [[1, 2, 3], [4, 0, 0]]
    assert batch["word"].numpy().tolist() == [b"abc", b"d"]


def test_queue_pipelines_refuse_eager_mode():
    with pytest.raises(RuntimeError, match="tf.data"):
        tf1.train.string_input_producer(["a"])
    with pytest.raises(RuntimeError, match="Readers are not supported when eager execution is enabled"):
        tf1.TFRecordReader()
