"""Op table rows for the checkpoint ops of a TF1 Saver's graph: SaveV2, RestoreV2, MergeV2Checkpoints,
ShardedFilename (io/checkpoint_ops.py). References are plain Python: a tensor saved then restored is itself; a
shard's name is built with `%` formatting. tests/train/test_meta_graph.py runs the same ops inside graphs
TensorFlow wrote. No gradients: TensorFlow registers none for any of them.
"""

import atexit
import contextlib
import os
import shutil
import tempfile

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.io import checkpoint_bundle, checkpoint_ops

DIRECTORY = tempfile.mkdtemp(prefix="webflow_checkpoint_table_")
atexit.register(shutil.rmtree, DIRECTORY, True)   # (rows run from several harnesses: removed when Python exits)


def string(value: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _after(op):
    """Ops built under this run after `op` in a graph; eagerly `op` has run already."""
    return contextlib.nullcontext() if wf.executing_eagerly() else wf.control_dependencies([op])


def save_then_restore(x, name: str):
    prefix = os.path.join(DIRECTORY, name)
    saved = checkpoint_ops.save_v2(prefix, ["x"], [""], [x])
    with _after(saved):
        return checkpoint_ops.restore_v2(prefix, ["x"], [""], [x.dtype])[0]


def save_two_then_restore(x, y):
    prefix = os.path.join(DIRECTORY, "two")
    saved = checkpoint_ops.save_v2(prefix, ["b_second", "a_first"], ["", ""], [y, x])
    with _after(saved):
        return checkpoint_ops.restore_v2(prefix, ["a_first", "b_second"], ["", ""], [x.dtype, y.dtype])


def save_merge_restore(x, y):
    """Two one-shard checkpoints (as a sharded Saver writes them) merged into one, then read back."""
    parts = [os.path.join(DIRECTORY, "merge_temp", f"part-{i:05d}-of-00002") for i in range(2)]
    destination = os.path.join(DIRECTORY, "merged")
    saves = [checkpoint_ops.save_v2(parts[0], ["x"], [""], [x]), checkpoint_ops.save_v2(parts[1], ["y"], [""], [y])]
    with contextlib.nullcontext() if wf.executing_eagerly() else wf.control_dependencies(saves):
        merged = checkpoint_ops.merge_v2_checkpoints(parts, destination)
    with _after(merged):
        return checkpoint_ops.restore_v2(destination, ["x", "y"], ["", ""], [x.dtype, y.dtype])


MATRIX = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
LONGS = np.array([2 ** 40, -3, 0], np.int64)

CASES = [
    OpCase("save_restore_float32", lambda x: save_then_restore(x, "f32"), [MATRIX], lambda x: x, grad=False,
           fully_static=False),
    OpCase("save_restore_int64", lambda x: save_then_restore(x, "i64"), [LONGS], lambda x: x, grad=False,
           fully_static=False),
    OpCase("save_restore_bool_scalar", lambda x: save_then_restore(x, "flag"), [np.bool_(True)], lambda x: x,
           grad=False, fully_static=False),
    OpCase("save_restore_two_any_order", save_two_then_restore, [MATRIX, LONGS], lambda x, y: [x, y], grad=False,
           fully_static=False),
    OpCase("merge_v2_checkpoints", save_merge_restore, [MATRIX, LONGS], lambda x, y: [x, y], grad=False,
           fully_static=False),
    OpCase("sharded_filename", lambda s, n: checkpoint_ops.sharded_filename("dir/model_temp/part", s, n),
           [np.int32(1), np.int32(12)], lambda s, n: string(b"dir/model_temp/part-%05d-of-%05d" % (s, n)),
           grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_checkpoint_op(case: OpCase) -> None:
    check_case(case)


def test_save_v2_bytes_are_the_bundle_writer_s() -> None:
    """SaveV2's files are write_bundle's (byte-identical to TensorFlow's, tests/train/test_saver.py)."""
    prefix = os.path.join(DIRECTORY, "bytes")
    checkpoint_ops.save_v2(prefix, ["a", "b"], ["", ""], [wf.constant(MATRIX), wf.constant(LONGS)])
    checkpoint_bundle.write_bundle(prefix + "_reference", [("a", MATRIX), ("b", LONGS)])
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as got, open(prefix + "_reference" + suffix, "rb") as want:
            assert got.read() == want.read()


def test_restore_errors_name_the_key_and_the_dtypes() -> None:
    prefix = os.path.join(DIRECTORY, "errors")
    checkpoint_ops.save_v2(prefix, ["a"], [""], [wf.constant(MATRIX)])
    with pytest.raises(wf.errors.NotFoundError, match="Key missing not found in checkpoint"):
        checkpoint_ops.restore_v2(prefix, ["missing"], [""], [wf.float32])
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match="tensor_name = a; expected dtype double does not equal original dtype float"):
        checkpoint_ops.restore_v2(prefix, ["a"], [""], [wf.float64])
    with pytest.raises(wf.errors.NotFoundError, match="Failed to find any matching files for"):
        checkpoint_ops.restore_v2(prefix + "_nothing", ["a"], [""], [wf.float32])
    with pytest.raises(wf.errors.UnimplementedError, match="partitioned"):
        checkpoint_ops.restore_v2(prefix, ["a"], ["2 3 0,1:-"], [wf.float32])


def test_merge_deletes_the_temporary_directory() -> None:
    part = os.path.join(DIRECTORY, "merge_dir_temp", "part-00000-of-00001")
    checkpoint_ops.save_v2(part, ["x"], [""], [wf.constant(MATRIX)])
    checkpoint_ops.merge_v2_checkpoints([part], os.path.join(DIRECTORY, "merge_dir"))
    assert not os.path.exists(os.path.dirname(part))
    assert np.array_equal(checkpoint_bundle.BundleReader(os.path.join(DIRECTORY, "merge_dir")).tensor("x"), MATRIX)
