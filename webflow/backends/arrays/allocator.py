"""Keep freed tensor memory in the process for the next training step, as TensorFlow's BFC allocator does.

A training step frees megabytes of activations and gradients and allocates the same sizes again in the next
step. glibc's malloc gives such blocks back to the kernel (an mmap per block, or trimming the heap top once
more than twice the last freed block is free), so the next step takes a page fault for every 4 KiB it
touches again. Measured on the Deep MNIST CNN at batch 128 (2 cores): 3,600 page faults and 15 ms of system
time per step; with the two thresholds below, none, and the step 76 -> 64 ms (50: 31 -> 30 ms). The price is
the one TensorFlow pays: the process keeps its peak working set until it exits.

Linux with glibc only (Pyodide's and macOS's allocators differ); `WEBFLOW_KEEP_FREED_MEMORY=0` turns it off.
May import: the standard library.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1   # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 1 << 30     # give the heap top back only when 1 GiB of it is free
MMAP_THRESHOLD = 32 << 20    # glibc's largest allowed value on 64-bit: blocks below it come from the heap


def keep_freed_memory() -> bool:
    """Raise glibc's trim and mmap thresholds so freed tensors are reused; True if they were set.

    Both are needed: setting either one turns off glibc's own adjusting of the other, and the trim
    threshold alone leaves every large block to mmap (measured: 3.5 times the page faults)."""
    if os.environ.get("WEBFLOW_KEEP_FREED_MEMORY", "1") == "0":
        return False
    if sys.platform != "linux" or not _glibc():
        return False
    mallopt = ctypes.CDLL(None).mallopt
    return bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc")
    except (ValueError, OSError):   # musl and others do not know the name
        return False
