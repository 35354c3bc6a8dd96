"""`tf.compat.v1.logging` and `tf.get_logger()`: TensorFlow's logger is Python's `logging.getLogger("tensorflow")`.

    tf.logging.set_verbosity(tf.logging.INFO)
    tf.logging.info("step %d", 10)          # stderr: INFO:tensorflow:step 10

As TensorFlow does, the logger gets its own stderr handler (format `LEVEL:tensorflow:message`) unless the root
logger already has one (then records go there, not twice), and its level starts at WARN.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

DEBUG = logging.DEBUG
INFO = logging.INFO
WARN = logging.WARN
ERROR = logging.ERROR
FATAL = logging.FATAL

_logger: logging.Logger | None = None
_counts: dict = {}


def get_logger() -> logging.Logger:
    """The "tensorflow" logger, configured on first use."""
    global _logger
    if _logger is None:
        logger = logging.getLogger("tensorflow")
        if not logging.getLogger().handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter(logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        if logger.level == logging.NOTSET:
            logger.setLevel(WARN)
        _logger = logger
    return _logger


def log(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().debug(msg, *args, **kwargs)


def info(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().info(msg, *args, **kwargs)


def warning(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().error(msg, *args, **kwargs)


def fatal(msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level: int, msg: Any, *args: Any, **kwargs: Any) -> None:
    get_logger().log(level, msg, *args, **kwargs)


def log_if(level: int, msg: Any, condition: Any, *args: Any) -> None:
    if condition:
        log(level, msg, *args)


def log_every_n(level: int, msg: Any, n: int, *args: Any) -> None:
    """Logs on the 1st, (n+1)th, (2n+1)th ... call from the same place."""
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    log_if(level, msg, count % n == 0, *args)


def log_first_n(level: int, msg: Any, n: int, *args: Any) -> None:
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    log_if(level, msg, count < n, *args)


def get_verbosity() -> int:
    return get_logger().getEffectiveLevel()


def set_verbosity(v: int) -> None:
    get_logger().setLevel(v)


def flush() -> None:
    for handler in get_logger().handlers:
        handler.flush()


def TaskLevelStatusMessage(msg: str) -> None:  # noqa: N802 - TensorFlow's name
    error(msg)
