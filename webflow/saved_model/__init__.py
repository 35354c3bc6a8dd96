"""`tf.saved_model` of TF2 (`webflow.saved_model`): the constants, `contains_saved_model`, `save` of a trackable
object's variables and wf.functions (save_v2.py), and `load` of TF2 SavedModels (load_v2.py) and of TF1 SavedModels
(load_v1_in_v2.py: signatures as functions). TF1's `tf.compat.v1.saved_model` (builder, loader, simple_save,
signature utilities) is v1.py; see README.md."""

# ruff: noqa: F401, I001

from webflow.saved_model.constants import (
    ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB,
    SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME,
)
from webflow.saved_model.load_v2 import load_saved_model as load
from webflow.saved_model.loader import contains_saved_model
from webflow.saved_model.signature_constants import (
    CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS, REGRESS_INPUTS,
    REGRESS_METHOD_NAME, REGRESS_OUTPUTS,
)
from webflow.saved_model.save_v2 import save
from webflow.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
