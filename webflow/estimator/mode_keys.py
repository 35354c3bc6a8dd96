"""`tf.estimator.ModeKeys`: the three modes a model_fn is called in."""


class ModeKeys:
    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"
