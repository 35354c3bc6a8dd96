"""TF2's `tf.train.CheckpointManager`: numbered saves of one Checkpoint in a directory, the oldest deleted.

Each `save()` writes `directory/ckpt-N` (N the checkpoint's save counter, or `checkpoint_number`), then records
it in `directory/checkpoint` (CheckpointState text: paths relative to the directory, one save time per path,
`last_preserved_timestamp`), deletes the files of checkpoints beyond `max_to_keep` - except one every
`keep_checkpoint_every_n_hours`, which is kept but no longer listed - and writes the state file again without
them. A crash between the steps leaves a state file naming complete checkpoints only (TensorFlow's order).

A new manager on a directory takes over the checkpoints its state file lists that are newer than the last
preserved one, so retention goes on across program runs.
"""

from __future__ import annotations

import glob
import os
import time
from collections.abc import Callable
from typing import Any

from webflow.io import checkpoint_bundle
from webflow.train.saver import get_checkpoint_state, update_checkpoint_state


def _delete_checkpoint(prefix: str) -> None:
    for path in [checkpoint_bundle.index_filename(prefix)] + glob.glob(glob.escape(prefix) + ".data-?????-of-?????"):
        try:
            os.remove(path)
        except OSError:
            pass


class CheckpointManager:
    """`tf.train.CheckpointManager(checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
    checkpoint_name='ckpt', step_counter=None, checkpoint_interval=None, init_fn=None)`."""

    def __init__(self, checkpoint: Any, directory: Any, max_to_keep: int | None,
                 keep_checkpoint_every_n_hours: float | None = None, checkpoint_name: str = "ckpt",
                 step_counter: Any = None, checkpoint_interval: int | None = None,
                 init_fn: Callable[[], Any] | None = None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._maybe_delete: dict = {}   # prefix -> save time, oldest first (dicts keep insertion order)
        self._recover(time.time())

    def _recover(self, now: float) -> None:
        state = get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0   # (TF: a little back, for a manager re-made at once)
            return
        self._latest_checkpoint = state.model_checkpoint_path
        self._last_preserved_timestamp = min(state.last_preserved_timestamp, now)   # the clock may go back
        timestamps = list(state.all_model_checkpoint_timestamps) or \
            [self._last_preserved_timestamp] * len(state.all_model_checkpoint_paths)
        for path, stamp in zip(state.all_model_checkpoint_paths, timestamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list:
        """The managed checkpoints' prefixes, oldest first (those a `keep_checkpoint_every_n_hours` kept are
        not listed)."""
        return list(self._maybe_delete)

    def _record_state(self) -> None:
        update_checkpoint_state(self._directory, self._latest_checkpoint, list(self._maybe_delete),
                                save_relative_paths=True,
                                all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
                                last_preserved_timestamp=self._last_preserved_timestamp)

    def _sweep(self) -> None:
        """Deletes the oldest checkpoints beyond max_to_keep, keeping one every n hours (unlisted)."""
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            prefix = next(iter(self._maybe_delete))
            stamp = self._maybe_delete.pop(prefix)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            _delete_checkpoint(prefix)

    def _record_and_sweep(self, save_path: str) -> None:
        self._maybe_delete.pop(save_path, None)   # a path saved again goes to the end of the queue
        self._maybe_delete[save_path] = time.time()
        self._latest_checkpoint = save_path
        self._record_state()   # the new checkpoint listed before anything is deleted
        self._sweep()
        self._record_state()

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Writes `<directory>/<checkpoint_name>-<N>`; returns its prefix (None when the interval says skip)."""
        if self._checkpoint_interval is not None:
            step = int(self._step_counter.numpy())
            last = self._last_checkpoint_step
            if last is not None and (step == last or (check_interval and step < last + self._checkpoint_interval)):
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = counter.numpy()
        elif hasattr(checkpoint_number, "numpy"):
            checkpoint_number = checkpoint_number.numpy()
        prefix = f"{self._prefix}-{int(checkpoint_number)}"
        return self._checkpoint._write(prefix, write_done_callback=self._record_and_sweep)

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its prefix; else runs `init_fn` (if any), returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(self._step_counter.numpy())
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
