"""`tf.compat.v1.app`: `run(main=None, argv=None)` parses the command-line flags (unknown ones tolerated, as
TensorFlow's parser does) and calls `main(argv)` through absl.app.run, then exits with main's return value.

    def main(argv):
        print(FLAGS.learning_rate)
    if __name__ == "__main__":
        tf.app.run()          # main defaults to __main__.main
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NoReturn

from webflow.platform import flags  # noqa: F401 - tf.app.flags


def _parse_flags_tolerate_undef(argv: list) -> list:
    """Flags defined here are parsed; the others stay in argv for main (TensorFlow's behaviour)."""
    return flags.FLAGS(sys.argv if argv is None else argv, known_only=True)


def run(main: Callable | None = None, argv: Any = None) -> NoReturn:
    from absl.app import run as absl_run
    main = main or sys.modules["__main__"].main
    absl_run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
