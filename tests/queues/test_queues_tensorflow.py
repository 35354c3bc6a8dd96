"""TF1 queues against real TensorFlow 2.21: element order, static shapes, padding, node names, closing semantics
and the exact error messages (type, text and node), each program run by both engines in a fresh process.

Order: FIFOQueue and PaddingFIFOQueue orders are TensorFlow's by definition; RandomShuffleQueue's order is
TF-exact too when seeded (one Philox uint32 per dequeued element, element `draw % size` swapped with the last).
"""

from __future__ import annotations

import pytest
from queue_oracle import SKIP_REASON, TF_PYTHON, assert_as_tensorflow, run_on_both

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

PRELUDE = '''
def msg(error):
    """The kernel's message and its node line, without TensorFlow's "Graph execution error ... Node:" preamble."""
    lines = error.message.split("\\n")
    node = [i for i, line in enumerate(lines) if line.startswith("\\t [[")]
    return type(error).__name__ + ": " + ("\\n".join(lines[node[0] - 1:node[0] + 1]) if node else lines[-1])

def attempt(sess, fetch, **kwargs):
    try:
        return sess.run(fetch, **kwargs)
    except tf.errors.OpError as error:
        return msg(error)
'''

PROGRAMS = {
    "fifo_order": '''
q = tf.FIFOQueue(10, tf.int32, shapes=[[]])
enqueues = [q.enqueue(i) for i in (3, 1, 4, 1, 5)]
dequeue = q.dequeue()
with tf.Session() as sess:
    for op in enqueues:
        sess.run(op)
    result = [int(sess.run(dequeue)) for _ in range(5)] + [int(sess.run(q.size()))]
''',
    "many_shapes_and_names": '''
q = tf.FIFOQueue(10, [tf.float32, tf.int64, tf.string], shapes=[[2], [], [1]])
many = q.enqueue_many(([[1., 2.], [3., 4.], [5., 6.]], [7, 8, 9], [["a"], ["b"], ["c"]]))
batch = q.dequeue_many(2)
one = q.dequeue()
up_to = q.dequeue_up_to(tf.constant(2))
with tf.Session() as sess:
    sess.run(many)
    values = sess.run(batch) + sess.run(one)
result = {"shapes": [str(t.shape) for t in batch + one + up_to], "values": values,
          "names": [many.name, batch[0].op.name, one[0].op.name, up_to[0].op.name, q.size().op.name,
                    q.close().name, q.close(True).name, q.is_closed().op.name, q.queue_ref.op.name, q.name],
          "types": [many.type, batch[0].op.type, one[0].op.type, up_to[0].op.type]}
''',
    "named_components": '''
q = tf.FIFOQueue(4, [tf.int32, tf.float32], shapes=[[], []], names=["label", "x"])
put = q.enqueue({"x": 2.5, "label": 7})
out = q.dequeue()
with tf.Session() as sess:
    sess.run(put)
    got = sess.run(out)
result = {"keys": sorted(out), "label": int(got["label"]), "x": float(got["x"])}
''',
    "random_shuffle_seeded": '''
q = tf.RandomShuffleQueue(30, 2, tf.int32, shapes=[[]], seed=3)
put = q.enqueue_many([list(range(20))])
many = q.dequeue_many(5)
one = q.dequeue()
with tf.Session() as sess:
    sess.run(put)
    first = sess.run(many).tolist() + sess.run(many).tolist() + [int(sess.run(one))]
    sess.run(q.close())
    rest = sess.run(q.dequeue_up_to(20)).tolist()
result = {"first": first, "rest": rest, "attrs": [q.queue_ref.op.get_attr(a) for a in ("seed", "seed2")]}
''',
    "random_shuffle_graph_seed": '''
tf.set_random_seed(42)
a = tf.RandomShuffleQueue(30, 0, tf.int32, shapes=[[]])
b = tf.RandomShuffleQueue(30, 0, tf.int32, shapes=[[]], shared_name="shuffled")
ops = [a.enqueue_many([list(range(8))]), b.enqueue_many([list(range(8))])]
with tf.Session() as sess:
    sess.run(ops)
    got = [sess.run(a.dequeue_many(8)).tolist(), sess.run(b.dequeue_many(8)).tolist()]
result = {"orders": got, "seeds": [[q.queue_ref.op.get_attr(k) for k in ("seed", "seed2")] for q in (a, b)]}
''',
    "padding": '''
q = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], [None, 2]])
puts = [q.enqueue(([1, 2, 3], [["a", "b"]])), q.enqueue(([4], [["c", "d"], ["e", "f"]])), q.enqueue(([], [["g", "h"]]))]
batch = q.dequeue_many(3)
with tf.Session() as sess:
    for op in puts:
        sess.run(op)
    values = sess.run(batch)
result = {"values": values, "shapes": [str(t.shape) for t in batch]}
''',
    "closing": '''
q = tf.FIFOQueue(5, tf.float32, shapes=[[]])
r = tf.RandomShuffleQueue(5, 1, tf.int32, shapes=[[]])
p = tf.PaddingFIFOQueue(5, tf.int32, shapes=[[None]])
with tf.Session() as sess:
    sess.run(q.enqueue_many([[1., 2.]]))
    sess.run(q.close())
    result = [attempt(sess, q.dequeue_many(3)), attempt(sess, q.dequeue_up_to(3)).tolist(),
              attempt(sess, q.dequeue()), attempt(sess, q.dequeue_up_to(2)), attempt(sess, q.enqueue(3.)),
              attempt(sess, q.enqueue_many([[3.]])), attempt(sess, [q.size(), q.is_closed()])]
    sess.run(r.enqueue_many([[1, 2, 3]]))
    sess.run(r.close())
    result += [attempt(sess, r.dequeue_many(4)), sorted(attempt(sess, r.dequeue_many(3)).tolist()),
               attempt(sess, r.dequeue())]
    sess.run(p.close())
    result += [attempt(sess, p.dequeue_many(2)), attempt(sess, p.dequeue())]
''',
    "run_time_errors": '''
q = tf.FIFOQueue(3, tf.float32, shapes=[[2]])
u = tf.FIFOQueue(3, tf.float32)
x = tf.placeholder(tf.float32)
n = tf.placeholder(tf.int32)
with tf.Session() as sess:
    result = [attempt(sess, q.enqueue(x), feed_dict={x: [1., 2., 3.]}),
              attempt(sess, q.enqueue_many(x), feed_dict={x: [[1., 2., 3.]]}),
              attempt(sess, q.dequeue_many(n), feed_dict={n: -1}),
              attempt(sess, u.dequeue_many(1)), attempt(sess, u.dequeue_up_to(1)),
              attempt(sess, q.dequeue_many(0)).tolist()]
    timed = attempt(sess, q.dequeue(), options=tf.RunOptions(timeout_in_ms=100))
    result.append(timed.split(":")[0] + ": " + timed.split("\\n")[0].split(": ")[-1])
''',
    "shared_and_build_errors": '''
a = tf.FIFOQueue(3, tf.int32, shapes=[[]], shared_name="common")
b = tf.FIFOQueue(3, tf.int32, shapes=[[]], shared_name="common")
errors = []
for build in (lambda: tf.FIFOQueue(3, tf.int32, shapes=[[None]]),
              lambda: tf.FIFOQueue(3, [tf.int32, tf.int32], shapes=[[]] * 3),
              lambda: tf.FIFOQueue(3, tf.int32, names=["a", "b"]),
              lambda: tf.PaddingFIFOQueue(3, tf.int32, shapes=None),
              lambda: a.enqueue({"a": 1}),
              lambda: a.enqueue([[1, 2]])):
    try:
        build()
        errors.append("no error")
    except (ValueError, TypeError) as error:
        errors.append(type(error).__name__)
with tf.Session() as sess:
    sess.run(a.enqueue(5))
    shared = int(sess.run(b.dequeue()))
    sess.run(b.close())
    closed = attempt(sess, a.dequeue())
result = {"shared": shared, "closed": closed, "errors": errors}
''',
    "blocking": '''
import threading, time
q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
sess = tf.Session()
sess.run(q.enqueue(1.))
blocked_enqueue = q.enqueue(2.)
outcome = []
thread = threading.Thread(target=lambda: outcome.append(attempt(sess, blocked_enqueue)))
thread.start(); time.sleep(0.3)
outcome.append(thread.is_alive())
sess.run(q.close(cancel_pending_enqueues=True)); thread.join()
outcome.append(attempt(sess, blocked_enqueue))
r = tf.FIFOQueue(2, tf.float32, shapes=[[]])
waiting = r.dequeue()
thread = threading.Thread(target=lambda: outcome.append(attempt(sess, waiting)))
thread.start(); time.sleep(0.3)
sess.run(r.enqueue(7.)); thread.join()
thread = threading.Thread(target=lambda: outcome.append(attempt(sess, waiting)))
thread.start(); time.sleep(0.3)
sess.close(); thread.join()
import re  # ids of unshared queues count up per process; which ops claim one across programs is not checked here
result = [float(v) if not isinstance(v, (str, bool)) else re.sub("'_[0-9]+_", "'_N_", v) if isinstance(v, str) else v
          for v in outcome]
''',
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> tuple:
    directory = str(tmp_path_factory.mktemp("queues"))
    programs = {key: (PRELUDE + source, directory) for key, source in PROGRAMS.items()}
    return run_on_both(programs)


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_queue_program_matches_tensorflow(key: str, results: tuple) -> None:
    assert_as_tensorflow(results, key)
