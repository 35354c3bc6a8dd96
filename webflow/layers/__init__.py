"""`tf.layers` (TF1): layer classes (`Dense`, `Conv2D`, ...) and one-call functions (`dense`, `conv2d`, ...)."""

# ruff: noqa: F401
from webflow.layers.base import InputSpec, Layer
from webflow.layers.convolutional import Conv2D, conv2d
from webflow.layers.convolutional_more import (
    Conv1D,
    Conv2DTranspose,
    SeparableConv2D,
    conv1d,
    conv2d_transpose,
    separable_conv2d,
)
from webflow.layers.core import Dense, Dropout, Flatten, dense, dropout, flatten
from webflow.layers.normalization import BatchNormalization, batch_normalization
from webflow.layers.pooling import AveragePooling2D, MaxPooling2D, average_pooling2d, max_pooling2d
from webflow.layers.pooling_1d import AveragePooling1D, MaxPooling1D, average_pooling1d, max_pooling1d
