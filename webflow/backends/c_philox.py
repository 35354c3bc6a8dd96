"""C signatures of the Philox-4x32-10 kernels (webflow/wasm/philox.c), for c_library.function().

    wf_philox_uint32(key, counter, out, count)       the first `count` words of the stream at `counter`
    wf_philox_uniform_f32(key, counter, out, count)  TF's uniform float32 in [0, 1), one word each
    wf_philox_uniform_f64(key, counter, out, count)  TF's uniform float64 in [0, 1), two words each
`key` is 2 uint32 words, `counter` 4 (least significant first): build them with `key_and_counter`.
"""

from __future__ import annotations

import ctypes
from typing import Any

from webflow.backends.c_library import PTR, SIZE, VOID, declare

MASK32 = 0xFFFFFFFF


def key_and_counter(generator: Any, start_block: int = 0) -> tuple:
    """(key, counter) C arrays for a webflow.ops.philox.PhiloxGenerator advanced by `start_block` blocks."""
    counter = (generator.counter + start_block) % (1 << 128)
    key = (ctypes.c_uint32 * 2)(*generator.key)
    words = (ctypes.c_uint32 * 4)(*((counter >> (32 * i)) & MASK32 for i in range(4)))
    return key, words


declare("wf_philox_uint32", [PTR, PTR, PTR, SIZE], VOID)
declare("wf_philox_uniform_f32", [PTR, PTR, PTR, SIZE], VOID)
declare("wf_philox_uniform_f64", [PTR, PTR, PTR, SIZE], VOID)
