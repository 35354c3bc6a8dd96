"""`tf.estimator.RunConfig`: where and how often an Estimator checkpoints, summarizes and logs."""

from __future__ import annotations

from typing import Any

_DEFAULT_SECS = 600  # TF saves a checkpoint every 10 minutes unless save_checkpoints_steps is given


class RunConfig:
    def __init__(self, model_dir: str | None = None, tf_random_seed: int | None = None,
                 save_summary_steps: int = 100, save_checkpoints_steps: int | None = None,
                 save_checkpoints_secs: Any = "default", session_config: Any = None, keep_checkpoint_max: int = 5,
                 keep_checkpoint_every_n_hours: float = 10000, log_step_count_steps: int = 100,
                 train_distribute: Any = None, device_fn: Any = None, protocol: Any = None,
                 eval_distribute: Any = None, experimental_distribute: Any = None,
                 experimental_max_worker_delay_secs: Any = None, session_creation_timeout_secs: int = 7200,
                 checkpoint_save_graph_def: bool = True):
        if save_checkpoints_steps is not None and save_checkpoints_secs not in ("default", None):
            raise ValueError("Can not specify both save_checkpoints_steps and save_checkpoints_secs.")
        if save_checkpoints_secs == "default":
            save_checkpoints_secs = None if save_checkpoints_steps is not None else _DEFAULT_SECS
        self.model_dir, self.tf_random_seed = model_dir, tf_random_seed
        self.save_summary_steps, self.save_checkpoints_steps = save_summary_steps, save_checkpoints_steps
        self.save_checkpoints_secs, self.session_config = save_checkpoints_secs, session_config
        self.keep_checkpoint_max, self.log_step_count_steps = keep_checkpoint_max, log_step_count_steps
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.is_chief, self.num_ps_replicas, self.num_worker_replicas = True, 0, 1
        self.task_type, self.task_id, self.master, self.cluster_spec = "worker", 0, "", None

    def replace(self, **changes: Any) -> RunConfig:
        fresh = RunConfig.__new__(RunConfig)
        fresh.__dict__.update(self.__dict__)
        fresh.__dict__.update(changes)
        return fresh
