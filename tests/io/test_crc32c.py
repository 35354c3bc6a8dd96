"""webflow/io/crc32c.py: CRC-32C against published check values, the C and pure-Python implementations against
each other, and TensorFlow's mask."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from webflow.io import crc32c

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The CRC-32C check value, and the test vectors of RFC 3720 (iSCSI), appendix B.4.
ISCSI_READ_PDU = bytes.fromhex("01c00000000000000000000000000000" "14000000000004000000001400000018"
                               "28000000000000000200000000000000")
KNOWN = [
    (b"", 0x00000000),
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
    (ISCSI_READ_PDU, 0xD9963A56),
]


@pytest.mark.parametrize("data, expected", KNOWN)
def test_known_values(data: bytes, expected: int) -> None:
    assert crc32c.crc32c(data) == expected
    assert crc32c.python_extend(0, data) == expected


def test_the_c_and_python_implementations_agree() -> None:
    generator = random.Random(1)
    lengths = list(range(0, 80)) + [255, 256, 1000, 4096 + 3, 100_003]
    for length in lengths:
        data = generator.randbytes(length)
        assert crc32c.python_extend(0, data) == crc32c.crc32c(data), length
    data = generator.randbytes(10_000)
    for cut in (0, 1, 7, 8, 9, 4999, 10_000):  # extend() continues a CRC chunk by chunk, in both
        assert crc32c.extend(crc32c.extend(0, data[:cut]), data[cut:]) == crc32c.crc32c(data)
        assert crc32c.python_extend(crc32c.python_extend(0, data[:cut]), data[cut:]) == crc32c.crc32c(data)
    assert crc32c.crc32c(bytearray(b"123456789")) == crc32c.crc32c(memoryview(b"x123456789")[1:]) == 0xE3069283


def test_the_c_implementation_is_used_when_installed() -> None:
    google_crc32c = pytest.importorskip("google_crc32c")
    assert crc32c.implementation() == ("c" if google_crc32c.implementation == "c" else "python")


def test_without_google_crc32c_the_pure_python_code_runs() -> None:
    """As in the browser: google_crc32c cannot be imported."""
    program = ("import sys; sys.modules['google_crc32c'] = None\n"
               "from webflow.io import crc32c\n"
               "print(crc32c.implementation(), hex(crc32c.crc32c(b'123456789')), hex(crc32c.masked_crc32c(b'hello')))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["python", "0xe3069283", "0x191c1fbb"]


def test_mask_is_tensorflows() -> None:
    # What TensorFlow wrote beside the length 5 and beside b"hello" (tests/io/test_tfrecord.py has the file).
    assert crc32c.masked_crc32c((5).to_bytes(8, "little")) == 0x3E04B2EA
    assert crc32c.masked_crc32c(b"hello") == 0x191C1FBB
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF, 0x8A9136AA):
        masked = crc32c.mask(crc)
        assert masked == ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) % 2**32
        assert crc32c.unmask(masked) == crc
        assert crc32c.unmask(crc32c.unmask(crc32c.mask(crc32c.mask(crc)))) == crc
    assert crc32c.mask(0xE3069283) != 0xE3069283
