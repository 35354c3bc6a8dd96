"""hypothesis settings shared by the property-based op tests (tests/property).

`make test` runs few examples per family (derandomized: the same cases on every run, so CI is deterministic);
`make fuzz` sets HYPOTHESIS_PROFILE=fuzz and runs many more (still derandomized, so a failure reproduces).
"""

import os

from hypothesis import HealthCheck, Phase, settings

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"


def examples(normal: int, long: int | None = None, shrink: bool = True) -> settings:
    """Settings for one property test: `normal` examples under `make test`, `long` (default 25x) under `make fuzz`."""
    count = (long or normal * 25) if LONG else normal
    phases = list(Phase) if shrink else [Phase.explicit, Phase.generate]
    return settings(max_examples=count, derandomize=True, deadline=None, database=None, phases=phases,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture])
