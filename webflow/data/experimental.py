"""`tf.data.experimental`: AUTOTUNE, the cardinality constants, cardinality(), get_single_element(), Options."""

from __future__ import annotations

from typing import Any

from webflow.data import transformations
from webflow.data.building import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options
from webflow.data.csv_dataset import make_csv_dataset  # data/csv_dataset.py
from webflow.data.readers import CsvDataset

shuffle_and_repeat = transformations.shuffle_and_repeat
map_and_batch = transformations.map_and_batch
parallel_interleave = transformations.parallel_interleave
batch_and_drop_remainder = transformations.batch_and_drop_remainder
unbatch = transformations.unbatch
enumerate_dataset = transformations.enumerate_dataset
prefetch_to_device = transformations.prefetch_to_device
copy_to_device = transformations.copy_to_device


def cardinality(dataset: Any) -> Any:
    """The number of elements as an int64 scalar tensor (INFINITE_CARDINALITY -1, UNKNOWN_CARDINALITY -2)."""
    return dataset.cardinality()


def get_single_element(dataset: Any) -> Any:
    """The dataset's only element (InvalidArgumentError if it has none or several)."""
    return dataset.get_single_element()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality", "get_single_element",
           "Options", "CsvDataset", "make_csv_dataset", "shuffle_and_repeat", "map_and_batch", "parallel_interleave",
           "batch_and_drop_remainder", "unbatch", "enumerate_dataset", "prefetch_to_device", "copy_to_device"]
