"""The op inventory: every registered op type is covered by an op-table row, is differentiable or declared
NotDifferentiable, and names only kernels that exist.

Coverage is read off what the rows build and run, not off their ids or strings: for every row of every
table (each module-level list of `OpCase`s in tests/ops/test_*_table.py), an op type counts as covered by
the row when it is in
- a graph the harness builds for the row (op_harness.build_graph, with known and, when the row checks them,
  unknown placeholder shapes: the placeholders it feeds included),
- the gradient graph the harness builds for a row that checks gradients (op_harness.build_gradient_graph),
  which is where internal ops such as ReluGrad or Conv2DBackpropInput appear, or
- the ops the row runs eagerly, seen through the hook a GradientTape records with.
"""

from __future__ import annotations

import glob
import importlib
import os
import pkgutil
import re
import sys
import warnings

import pytest
from op_harness import OpCase, build_gradient_graph, build_graph, gradient_setup, graph_modes

import webflow as wf
import webflow.compat.v1  # noqa: F401 - registers the TF1-only op families
from webflow.framework import context, random_seed
from webflow.ops import registry

TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops")

# Op type -> why it has neither a gradient nor a NotDifferentiable declaration. Each raises LookupError when
# differentiated, as TensorFlow does for an op type with no registered gradient.
NO_GRADIENT = {
    "TruncateMod": "TF registers none (math_grad.py has FloorMod's and TruncateDiv's): tf.gradients raises "
                   "LookupError in TF too",
    "SoftsignGrad": "TF registers none (nn_grad.py has Softsign's only): a second derivative of softsign raises "
                    "LookupError in TF too",
    "WhileGrad": "webflow's While gradient op (TF's is another While): second derivatives through a while_loop "
                 "are not implemented, so they raise LookupError rather than give silent zeros",
    # fused recurrent cells (ops/rnn_block_ops.py): TF 1.x contrib registered the cells' gradients, not these
    **{op: "TF registers none (contrib/rnn lstm_ops/gru_ops): LookupError in TF too"
       for op in ("LSTMBlockCellGrad", "GRUBlockCellGrad")},
    # parsing (ops/parsing_ops.py, sequence_parsing_ops.py, decode_ops.py, io/file_ops.py): TF registers nothing
    **{op: "TF registers none (parsing_ops/io_ops): differentiating through it raises LookupError in TF too"
       for op in ("ParseExampleV2", "ParseSequenceExampleV2", "DecodeCSV", "ReadFile", "WriteFile")},
    # images (ops/image_codec_ops.py, image_resize_ops.py): TF's registry has neither a rule nor None for these
    **{op: "TF registers none (image_grad.py covers the resize ops only): LookupError in TF too"
       for op in ("DecodePng", "EncodePng", "DecodeJpeg", "EncodeJpeg", "DecodeImage", "DecodeGif",
                  "ResizeNearestNeighborGrad", "AdjustContrastv2")},
    # audio (ops/audio_ops.py): TF's registry has nothing for the WAV codecs (AudioSummaryV2 is NotDifferentiable)
    **{op: "TF registers none (gen_audio_ops): LookupError in TF too" for op in ("EncodeWav", "DecodeWav")},
    # tf.data's sparse components (ops/dataset_sparse.py): TF 2.21's registry has neither (LookupError there too)
    **{op: "TF registers none: LookupError in TF 2.21 too" for op in ("SerializeSparse", "DeserializeSparse")},
    # tf.data (ops/dataset_ops.py, iterator_ops.py): TF registers nothing for dataset or iterator ops
    **{op: "TF registers none (tf.gradients through DatasetToSingleElement raises LookupError in TF 2.21 too)"
       for op in ("TensorSliceDataset", "TensorDataset", "RangeDataset", "GeneratorDataset", "TFRecordDataset",
                  "TextLineDataset", "FixedLengthRecordDatasetV2", "CSVDatasetV2", "ZipDataset", "ConcatenateDataset",
                  "RepeatDataset", "TakeDataset", "SkipDataset", "ShardDataset", "ShuffleDataset", "BatchDatasetV2",
                  "PaddedBatchDatasetV2", "UnbatchDataset", "WindowDataset", "PrefetchDataset", "CacheDataset",
                  "MapDataset", "ParallelMapDatasetV2", "FilterDataset", "FlatMapDataset", "InterleaveDataset",
                  "DatasetCardinality", "DatasetToSingleElement", "ReduceDataset", "AnonymousIteratorV3",
                  "IteratorV2", "OneShotIterator", "MakeIterator", "IteratorGetNext", "IteratorToStringHandle",
                  "IteratorFromStringHandleV2")},
    # TF1 queues and readers (ops/data_flow_ops.py, io_ops.py, counter_ops.py): data_flow_grad.py and io_ops.py
    # declare only the V1 names ("QueueDequeue", "ReaderRead" ...) NotDifferentiable; the V2 types have nothing
    **{op: "TF registers none for the V2 op type (only its V1 name): LookupError in TF too"
       for op in ("FIFOQueueV2", "RandomShuffleQueueV2", "PaddingFIFOQueueV2", "QueueEnqueueV2", "QueueEnqueueManyV2",
                  "QueueDequeueV2", "QueueDequeueManyV2", "QueueDequeueUpToV2", "QueueCloseV2", "QueueSizeV2",
                  "QueueIsClosedV2", "TFRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2",
                  "FixedLengthRecordReaderV2", "IdentityReaderV2", "ReaderReadV2", "ReaderReadUpToV2",
                  "ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2", "MatchingFiles",
                  "CountUpTo")},
    # optionals (ops/optional_ops.py): optional_grad.py covers FromValue and GetValue only
    **{op: "TF registers none (optional_grad.py): LookupError in TF too"
       for op in ("OptionalNone", "OptionalHasValue")},
    # assertions and printing (ops/logging_ops.py): no outputs, so never on a gradient's path; TF registers nothing
    **{op: "TF registers none (logging_ops.py has Print's only): an op with no outputs has nothing to differentiate"
       for op in ("Assert", "PrintV2")},
}


def _import_every_module() -> None:
    """Imports all of webflow, so that every op family is registered (ops/linalg_ops.py is not imported by
    `import webflow`, for one)."""
    for module in pkgutil.walk_packages(wf.__path__, "webflow."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)


def table_rows() -> list:
    """(table module name, name of the list holding the row, OpCase) for every row of every op table."""
    if TABLES not in sys.path:
        sys.path.insert(0, TABLES)  # where pytest imports them from, so the modules are shared
    rows = []
    for path in sorted(glob.glob(os.path.join(TABLES, "test_*_table.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        module = importlib.import_module(name)
        for list_name, value in list(vars(module).items()):
            if isinstance(value, list):
                for row in value:
                    row = row.values[0] if hasattr(row, "values") and hasattr(row, "marks") else row  # pytest.param
                    if isinstance(row, OpCase):
                        rows.append((name, list_name, row))
    return rows


def _graph_types(graph: wf.Graph) -> set:
    return {op.type for op in graph.get_operations()}


def _eager_types(case: OpCase) -> set:
    """The op types the row's build runs eagerly."""
    seen: set = set()

    def record(opdef: registry.OpDef, *unused: object) -> None:
        seen.add(opdef.type)

    context.push_tape_recorder(record)
    try:
        case.build(*[wf.constant(x) for x in case.inputs])
    finally:
        context.pop_tape_recorder(record)
    return seen


def op_types_of_row(case: OpCase) -> set:
    types = _eager_types(case)
    for known in graph_modes(case):
        types |= _graph_types(build_graph(case, known)[0])
    setup = gradient_setup(case)
    if setup is not None:
        types |= _graph_types(build_gradient_graph(case, *setup)[0])
    return types


@pytest.fixture(scope="module")
def ops() -> dict:
    _import_every_module()
    assert len(registry.OPS) > 100, f"only {len(registry.OPS)} ops registered: the registry did not load"
    return registry.OPS


@pytest.fixture(scope="module")
def coverage(ops: dict) -> dict:
    """Op type -> ids of the rows that exercise it."""
    covered: dict[str, list] = {}
    rows = table_rows()
    assert len(rows) > 300, f"only {len(rows)} op table rows found in {TABLES}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # rows on deprecated TF1 functions
            for table, _, case in rows:
                for op_type in op_types_of_row(case):
                    covered.setdefault(op_type, []).append(f"{table}:{case.id}")
    finally:
        random_seed.set_global_seed(None)  # eager random rows drew numbers: the next test starts afresh
    return covered


def test_coverage_is_collected_from_the_rows(coverage: dict) -> None:
    for op_type in ("MatMul", "Conv2D", "Conv2DBackpropFilter", "ReluGrad", "Placeholder"):
        assert op_type in coverage, f"{op_type} not found in the graphs the table rows build"
    assert "test_core_table:matmul" in coverage["MatMul"]
    unknown = sorted(set(coverage) - set(registry.OPS))
    assert not unknown, f"rows built op types the registry does not know: {unknown}"


def test_every_table_runs_without_numpy_too() -> None:
    """tests/no_numpy_tables.py names the tables it runs; a table missing there would go untested without NumPy."""
    import no_numpy_tables

    files = {os.path.basename(path)[len("test_"):-len("_table.py")]
             for path in glob.glob(os.path.join(TABLES, "test_*_table.py"))}
    unread = sorted(files - set(no_numpy_tables.TABLES))
    assert not unread, f"tables tests/no_numpy_tables.py does not run: {unread}"
    lists = sorted({list_name for _, list_name, _ in table_rows()} - set(no_numpy_tables.CASE_LISTS))
    assert not lists, f"row lists tests/no_numpy_tables.py does not read: {lists}"


def test_every_op_type_has_a_table_row(ops: dict, coverage: dict) -> None:
    missing = sorted(set(ops) - set(coverage))
    assert not missing, f"{len(missing)} registered op types are exercised by no row of tests/ops/test_*_table.py " \
                        f"(add rows with an independent oracle): {', '.join(missing)}"


def test_every_op_type_has_a_gradient_or_is_not_differentiable(ops: dict) -> None:
    neither = sorted(t for t, opdef in ops.items()
                     if opdef.grad is None and t not in registry._NOT_DIFFERENTIABLE and t not in NO_GRADIENT)
    assert not neither, f"{len(neither)} op types have no gradient and are not declared NotDifferentiable " \
                        f"(decide as TensorFlow does): {', '.join(neither)}"
    both = sorted(t for t, opdef in ops.items() if opdef.grad is not None and t in registry._NOT_DIFFERENTIABLE)
    assert not both, f"op types with a gradient that NotDifferentiable hides: {', '.join(both)}"
    stale = sorted(t for t in NO_GRADIENT
                   if t not in ops or ops[t].grad is not None or t in registry._NOT_DIFFERENTIABLE)
    assert not stale, f"NO_GRADIENT entries no longer needed (unregistered, or now decided): {', '.join(stale)}"


def _kernel_problems(opdef: registry.OpDef) -> tuple[list, int]:
    """(what is wrong with the kernels `opdef` names, how many callables it names)."""
    problems, found = [], 0
    kernels = getattr(opdef, "kernels", None) or {}
    for backend, kernel in kernels.items():
        if callable(kernel):
            found += 1
        else:
            problems.append(f"kernels[{backend!r}] = {kernel!r}")
    adapter = getattr(opdef, "c_adapter", None)
    if adapter is not None:
        if callable(getattr(adapter, "adapter", None)):
            found += 1
        else:
            problems.append(f"c_adapter.adapter = {getattr(adapter, 'adapter', None)!r}")
    for name in ("kernel", "portable"):
        kernel = getattr(opdef, name, None)
        if kernel is not None:
            if callable(kernel):
                found += 1
            else:
                problems.append(f"{name} = {kernel!r}")
    if not found:
        problems.append("no kernel at all")
    return problems, found


def test_every_kernel_an_op_names_exists(ops: dict) -> None:
    broken, total = {}, 0
    for op_type, opdef in sorted(ops.items()):
        problems, found = _kernel_problems(opdef)
        total += found
        if problems:
            broken[op_type] = problems
    assert not broken, f"{len(broken)} op types name kernels that do not exist: " + \
        "; ".join(f"{t}: {', '.join(p)}" for t, p in broken.items())
    assert total > len(ops), f"only {total} kernels found for {len(ops)} op types"


_SUFFIX_PATTERNS = {"<t>": "(f32|f64|i32|i64|u8)", "<i>": "(i32|i64)", "<bits>": "(8|16|32|64)"}


def test_every_c_kernel_calls_a_declared_c_function(ops: dict) -> None:
    """The C symbol pattern a C kernel's docstring starts with (the one place it is written; the lab's kernel
    panel reads it) names C functions the library declares: `wf_gemm_<t>` -> wf_gemm_f32, wf_gemm_f64."""
    from webflow.backends.c import library

    declared = set(library.declared())
    c_kernels = {op_type: opdef.c_adapter for op_type, opdef in ops.items() if opdef.c_adapter is not None}
    assert len(c_kernels) > 80, f"only {len(c_kernels)} ops name a C kernel"
    wrong = {}
    for op_type, c_kernel in c_kernels.items():
        symbol = c_kernel.symbol
        if symbol is None:
            wrong[op_type] = "its adapter's docstring does not start with a wf_ symbol"
            continue
        pattern = re.escape(symbol)
        for placeholder, alternatives in _SUFFIX_PATTERNS.items():
            pattern = pattern.replace(re.escape(placeholder), alternatives)
        if not any(re.fullmatch(pattern, name) for name in declared):
            wrong[op_type] = f"{symbol} matches no declared C function"
    assert not wrong, f"{len(wrong)} C kernels name no declared C function: {wrong}"
