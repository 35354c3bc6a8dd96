"""`tf.data` (TF2): Dataset, the file datasets, AUTOTUNE, experimental. TF1's namespace is data/v1.py."""

from webflow.data import experimental
from webflow.data.building import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Options
from webflow.data.dataset import Dataset, DatasetV2
from webflow.data.iterators import OwnedIterator as Iterator
from webflow.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from webflow.data.structure import DatasetSpec

__all__ = ["Dataset", "DatasetV2", "DatasetSpec", "Iterator", "TFRecordDataset", "TextLineDataset",
           "FixedLengthRecordDataset", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "experimental",
           "Options"]
