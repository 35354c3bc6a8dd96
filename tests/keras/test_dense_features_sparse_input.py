"""A Keras model whose first layer is DenseFeatures takes SparseTensor features through `Layer.__call__` (the
layer reads the ids; converting them to a dense tensor first would fail). Oracle: the indicator sums by hand."""

import numpy as np

import webflow as wf


def test_sequential_with_dense_features_reads_a_sparse_feature():
    column = wf.feature_column.indicator_column(wf.feature_column.categorical_column_with_identity("a", 4))
    weights = np.array([[1.0], [10.0], [100.0], [1000.0]], np.float32)   # output = sum of the rows' id weights
    model = wf.keras.Sequential([wf.keras.layers.DenseFeatures([column]),
                                 wf.keras.layers.Dense(1, use_bias=False,
                                                       kernel_initializer=wf.keras.initializers.Constant(weights))])
    ids = wf.sparse.SparseTensor(indices=[[0, 0], [1, 0], [1, 1], [2, 1]], values=[1, 2, 3, 0], dense_shape=[3, 2])
    output = model({"a": ids}).numpy()
    np.testing.assert_array_equal(output, [[10.0], [1100.0], [1.0]])
