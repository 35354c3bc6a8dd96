"""`keras.layers`: the layer classes (each defined in its family module)."""

from webflow.keras import layers_more
from webflow.keras.base_layer import Layer
from webflow.keras.conv_layers import (
    AveragePooling2D,
    AvgPool2D,
    Conv2D,
    GlobalAveragePooling2D,
    GlobalAvgPool2D,
    MaxPool2D,
    MaxPooling2D,
)
from webflow.keras.core_layers import Activation, Add, Dense, Dropout, Flatten, Reshape
from webflow.keras.dense_features import DenseFeatures
from webflow.keras.input_layer import Input, InputLayer
from webflow.keras.layers_more import *  # noqa: F403  (more layers: layers_more.py)
from webflow.keras.masking import Masking
from webflow.keras.normalization import BatchNormalization, Embedding
from webflow.keras.recurrent import GRU, LSTM, RNN, SimpleRNN
from webflow.keras.recurrent_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells
from webflow.keras.wrappers import Bidirectional, TimeDistributed


def add(inputs: list, **kwargs: object) -> object:
    """The functional form of `Add`."""
    return Add(**kwargs)(inputs)


__all__ = ["Layer", "Input", "InputLayer", "Dense", "Activation", "Dropout", "Flatten", "Reshape", "Add", "add",
           "Conv2D", "MaxPooling2D", "MaxPool2D", "AveragePooling2D", "AvgPool2D", "GlobalAveragePooling2D",
           "GlobalAvgPool2D", "BatchNormalization", "Embedding",
           "Masking", "RNN", "SimpleRNN", "LSTM", "GRU", "SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells",
           "Bidirectional", "TimeDistributed", "DenseFeatures"]
__all__ += layers_more.__all__  # noqa: F405
