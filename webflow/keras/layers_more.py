"""More of `keras.layers` (gathered here, re-exported by layers.py): convolutions, 1-D and global pooling,
reshaping, merging, activation and normalization layers, each defined in its family module."""

# ruff: noqa: F401
from webflow.keras.activation_layers import LeakyReLU, ReLU, Softmax
from webflow.keras.conv_layers_more import (
    Conv1D,
    Conv2DTranspose,
    Convolution1D,
    Convolution2DTranspose,
    DepthwiseConv2D,
    SeparableConv2D,
    SeparableConvolution2D,
)
from webflow.keras.layer_normalization import LayerNormalization
from webflow.keras.merge_layers import (
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    average,
    concatenate,
    dot,
    multiply,
    subtract,
)
from webflow.keras.merge_layers import maximum_layer as maximum
from webflow.keras.merge_layers import minimum_layer as minimum
from webflow.keras.pooling_more import (
    AveragePooling1D,
    AvgPool1D,
    GlobalAveragePooling1D,
    GlobalAvgPool1D,
    GlobalMaxPool1D,
    GlobalMaxPool2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPool1D,
    MaxPooling1D,
)
from webflow.keras.reshaping_layers import Cropping2D, Lambda, Permute, RepeatVector, UpSampling2D, ZeroPadding2D

__all__ = ["LeakyReLU", "ReLU", "Softmax", "Conv1D", "Conv2DTranspose", "Convolution1D", "Convolution2DTranspose",
           "DepthwiseConv2D", "SeparableConv2D", "SeparableConvolution2D", "LayerNormalization", "Average",
           "Concatenate", "Dot", "Maximum", "Minimum", "Multiply", "Subtract", "average", "concatenate", "dot",
           "maximum", "minimum", "multiply", "subtract", "AveragePooling1D", "AvgPool1D", "GlobalAveragePooling1D",
           "GlobalAvgPool1D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D",
           "MaxPool1D", "MaxPooling1D", "Cropping2D", "Lambda", "Permute", "RepeatVector", "UpSampling2D",
           "ZeroPadding2D"]
