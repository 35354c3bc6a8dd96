"""`tf.saved_model.tag_constants`: the tags that name a SavedModel's MetaGraphDefs (TensorFlow's values)."""

SERVING = "serve"
TRAINING = "train"
GPU = "gpu"
TPU = "tpu"
