"""`tf.compat.v1.saved_model`: TF1's SavedModel API (README.md): `Builder` / `builder.SavedModelBuilder`,
`simple_save`, `load` / `loader.load`, SignatureDef and TensorInfo utilities, the tag and signature constants."""

# ruff: noqa: F401, I001

from webflow.saved_model import (
    builder, constants, loader, signature_constants, signature_def_utils, tag_constants, utils,
)
from webflow.saved_model.builder import Builder, simple_save
from webflow.saved_model.constants import (
    ASSETS_DIRECTORY, ASSETS_KEY, DEBUG_DIRECTORY, DEBUG_INFO_FILENAME_PB,
    LEGACY_INIT_OP_KEY, MAIN_OP_KEY, SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT, SAVED_MODEL_SCHEMA_VERSION, VARIABLES_DIRECTORY, VARIABLES_FILENAME,
)
from webflow.saved_model.loader import contains_saved_model, load, maybe_saved_model_directory
from webflow.saved_model.signature_constants import (
    CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME, CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_INPUTS, PREDICT_METHOD_NAME, PREDICT_OUTPUTS, REGRESS_INPUTS,
    REGRESS_METHOD_NAME, REGRESS_OUTPUTS,
)
from webflow.saved_model.signature_def_utils import (
    build_signature_def, classification_signature_def, is_valid_signature, predict_signature_def,
    regression_signature_def,
)
from webflow.saved_model.tag_constants import GPU, SERVING, TPU, TRAINING
from webflow.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info
