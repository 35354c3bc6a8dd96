"""backends/allocator.py: freed tensor memory is reused, not page-faulted back in (the kernel's fault count
is the oracle), and WEBFLOW_KEEP_FREED_MEMORY=0 leaves glibc's default, which faults every page again."""

import os
import subprocess
import sys

import pytest

from webflow.backends.arrays import allocator

pytestmark = pytest.mark.skipif(not allocator._glibc() or sys.platform != "linux", reason="glibc's mallopt")

# Training "steps" that each allocate two 12.8 MB activations and a 3.2 MB one and free them again; prints
# the page faults of the last three steps (the first ones fault their pages in either way).
STEPS = """
import resource
import webflow
import numpy as np
for step in range(5):
    if step == 2:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    activation, gradient = np.ones(3_200_000, np.float32), np.ones(3_200_000, np.float32)
    bias_gradient = np.ones(800_000, np.float32)
    del activation, gradient, bias_gradient
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
PAGES_PER_STEP = (2 * 3_200_000 + 800_000) * 4 // 4096


def page_faults(keep: str) -> int:
    environment = {**os.environ, "WEBFLOW_KEEP_FREED_MEMORY": keep}
    done = subprocess.run([sys.executable, "-c", STEPS], capture_output=True, text=True, env=environment, check=True)
    return int(done.stdout.split()[-1])


def test_freed_blocks_are_reused_without_page_faults():
    assert page_faults("1") < 3 * PAGES_PER_STEP // 100


def test_switching_it_off_leaves_glibc_returning_blocks_to_the_kernel():
    # the control: with glibc's defaults the same steps fault part of every block back in (measured 26%)
    assert page_faults("0") > 3 * PAGES_PER_STEP // 10
