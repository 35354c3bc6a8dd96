"""`tf.keras.experimental`: `SequenceFeatures` (keras/sequence_features.py), the sequence feature columns' layer."""

from webflow.keras.sequence_features import SequenceFeatures

__all__ = ["SequenceFeatures"]
