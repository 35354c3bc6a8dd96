"""tf.train.CheckpointManager (train/checkpoint_management.py) on its own: keep_checkpoint_every_n_hours on a
fake clock (TensorFlow's rule, derived by hand), restore_or_initialize, checkpoint_interval, and saves killed at
random moments. Its retention and state file next to real TensorFlow's are in test_checkpoint_v2.py."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import webflow as wf


def small_checkpoint() -> wf.train.Checkpoint:
    return wf.train.Checkpoint(v=wf.Variable(np.zeros((2, 3), np.float32), name="w"))


class FakeClock:
    def __init__(self, start: float):
        self.now = start

    def __call__(self) -> float:
        return self.now


def test_keep_checkpoint_every_n_hours_keeps_one_per_period(tmp_path: os.PathLike,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """TensorFlow's rule, derived by hand: a checkpoint leaving the kept window survives (unlisted) when it is at
    least n hours newer than the last one preserved; the manager's start counts as preserved, 1 s back."""
    from webflow.train import checkpoint_management

    clock = FakeClock(1000.0)
    monkeypatch.setattr(checkpoint_management.time, "time", clock)
    directory = os.path.join(tmp_path, "hours")
    manager = wf.train.CheckpointManager(small_checkpoint(), directory, max_to_keep=1,
                                         keep_checkpoint_every_n_hours=1.0)
    for minutes in (0, 30, 62, 70, 130):   # saves at these minutes after the start
        clock.now = 1000.0 + 60 * minutes
        manager.save()
    # ckpt-1 (0 min): not 1 h after the start, deleted; ckpt-2 (30 min): deleted; ckpt-3 (62 min): kept;
    # ckpt-4 (70 min): under 1 h after ckpt-3, deleted; ckpt-5 (130 min): the one listed
    kept = sorted(name[:-len(".index")] for name in os.listdir(directory) if name.endswith(".index"))
    assert kept == ["ckpt-3", "ckpt-5"]
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-5"]
    assert wf.train.get_checkpoint_state(directory).last_preserved_timestamp == 1000.0 + 60 * 62


def test_restore_or_initialize_and_checkpoint_interval(tmp_path: os.PathLike) -> None:
    directory = os.path.join(tmp_path, "interval")
    step = wf.Variable(np.int64(0))
    initialized = []
    manager = wf.train.CheckpointManager(wf.train.Checkpoint(step=step), directory, max_to_keep=None,
                                         step_counter=step, checkpoint_interval=10,
                                         init_fn=lambda: initialized.append(True))
    assert manager.restore_or_initialize() is None and initialized == [True]
    saved = []
    for value in (0, 5, 10, 12, 25):
        step.assign(value)
        saved.append(manager.save())
    names = [None if path is None else os.path.basename(path) for path in saved]
    assert names == ["ckpt-1", None, "ckpt-2", None, "ckpt-3"]   # every 10 steps at least; numbered by save
    assert len(manager.checkpoints) == 3   # max_to_keep=None keeps them all
    step.assign(99)
    other = wf.train.CheckpointManager(wf.train.Checkpoint(step=step), directory, max_to_keep=None)
    assert other.restore_or_initialize() == manager.latest_checkpoint and step.numpy() == 25
    with pytest.raises(ValueError, match="Expected a positive integer or `None` for `max_to_keep`, got 0."):
        wf.train.CheckpointManager(wf.train.Checkpoint(step=step), directory, max_to_keep=0)


_MANAGER_LOOP = r"""
import sys
import numpy as np
import webflow as wf
a = wf.Variable(0.0)
c = wf.Variable(np.zeros((64, 64), np.float32))
checkpoint = wf.train.Checkpoint(a=a, c=c)
manager = wf.train.CheckpointManager(checkpoint, sys.argv[1], max_to_keep=3)
manager.restore_or_initialize()   # a restarted program goes on numbering from the restored save counter
print("ready", flush=True)
while True:
    n = int(checkpoint.save_counter.numpy()) + 1   # the number this save gets
    a.assign(float(n))
    c.assign(np.full((64, 64), n, np.float32))
    manager.save()
    print("saved", flush=True)
"""


def test_saves_killed_at_random_moments_leave_a_restorable_latest(tmp_path: os.PathLike) -> None:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=root, OPENBLAS_NUM_THREADS="1")
    rng = random.Random(1)
    seen = set()
    for _ in range(50):
        child = subprocess.Popen([sys.executable, "-c", _MANAGER_LOOP, str(tmp_path)], env=env,
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "ready\n"
        # after one whole save, so that every child moves the count on however slow a loaded machine makes a save
        assert child.stdout.readline() == "saved\n"
        time.sleep(rng.uniform(0.0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        latest = wf.train.latest_checkpoint(str(tmp_path))
        a, c = wf.Variable(-1.0), wf.Variable(np.zeros((64, 64), np.float32))
        checkpoint = wf.train.Checkpoint(a=a, c=c)
        checkpoint.restore(latest).assert_consumed()
        n = int(latest.rsplit("-", 1)[1])
        assert a.numpy() == n and np.all(c.numpy() == n) and checkpoint.save_counter.numpy() == n, latest
        seen.add(n)
    assert len(seen) > 25   # the kills landed at many points of the save loop
    # a kill between recording a save and deleting the oldest leaves one more listed (TensorFlow's order: the
    # state file names the new checkpoint before anything is deleted); the next completed save trims the list
    manager = wf.train.CheckpointManager(wf.train.Checkpoint(a=wf.Variable(0.0)), str(tmp_path), max_to_keep=3)
    manager.save()
    assert len(wf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths) == 3
    assert len([name for name in os.listdir(tmp_path) if name.endswith(".index")]) < 30
