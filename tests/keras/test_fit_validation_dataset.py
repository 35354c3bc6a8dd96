"""`fit(validation_data=<tf.data.Dataset>)`: each epoch's val_loss / val_accuracy are what `evaluate` gives on the
same batches after that epoch (tf_keras's rule), not an error (the dataset used to be unpacked as a tuple)."""

import numpy as np

import webflow as wf


def test_validation_dataset_is_evaluated_each_epoch():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((64, 5)).astype(np.float32), rng.integers(0, 3, 64)
    x_val, y_val = rng.standard_normal((20, 5)).astype(np.float32), rng.integers(0, 3, 20)
    wf.keras.utils.set_random_seed(1)
    model = wf.keras.Sequential([wf.keras.layers.Dense(8, activation="relu"), wf.keras.layers.Dense(3)])
    model.compile("sgd", wf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    validation = wf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(8)
    history = model.fit(x, y, batch_size=16, epochs=2, validation_data=validation, verbose=0, shuffle=False)
    assert len(history.history["val_loss"]) == 2
    after = model.evaluate(x_val, y_val, batch_size=8, verbose=0, return_dict=True)
    np.testing.assert_allclose(history.history["val_loss"][-1], after["loss"], rtol=1e-6)
    np.testing.assert_allclose(history.history["val_accuracy"][-1], after["accuracy"], rtol=1e-6)
    logits = model(x_val).numpy()  # the oracle: NumPy's mean cross-entropy of the trained model's logits
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probabilities = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(after["loss"], -log_probabilities[np.arange(20), y_val].mean(), rtol=1e-5)
