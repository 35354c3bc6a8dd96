"""The model both engines build in tests/train/test_checkpoint_v2.py: Python source run with `tf` bound to
TensorFlow (in the oracle interpreter) or to webflow, so the two build the same objects with the same values.

A tf.Module holding a nested module, a list and a dict of variables of every dtype webflow's variables take
(float16/32/64, int32/64, bool), scalars to 4-D, beside a variable held by the Checkpoint itself."""

MODEL_SOURCE = '''
import numpy as np


def model_values(seed):
    rng = np.random.RandomState(seed)
    return {
        "kernel": rng.randn(3, 4).astype(np.float32),
        "bias": rng.randn(4).astype(np.float64),
        "half": rng.randn(2, 2, 2).astype(np.float16),
        "ids": rng.randint(-50, 50, size=(2, 3, 2, 2)).astype(np.int32),
        "mask": rng.rand(5) > 0.5,
        "count": np.int64(rng.randint(1, 1000)),
        "scale": np.float32(rng.randn()),
    }


class Dense(tf.Module):
    def __init__(self, v, name=None):
        super().__init__(name=name)
        self.kernel = tf.Variable(v["kernel"], name="kernel")
        self.bias = tf.Variable(v["bias"], name="bias")


class Model(tf.Module):
    def __init__(self, v):
        super().__init__()
        self.dense = Dense(v)
        self.blocks = [tf.Variable(v["half"], name="half"),
                       {"ids": tf.Variable(v["ids"]), "mask": tf.Variable(v["mask"], name="mask")}]
        self.count = tf.Variable(v["count"], trainable=False, name="count")


def make(seed):
    """(the values, the model, a Checkpoint of it)."""
    v = model_values(seed)
    model = Model(v)
    return v, model, tf.train.Checkpoint(model=model, scale=tf.Variable(v["scale"], name="scale"))


def nested(seed):
    """A Checkpoint inside a Checkpoint; a variable reached twice; a list of numbers (a node without values); a
    tuple holding a variable; a dict key needing escapes ("." and "/")."""
    _, model, _ = make(seed)
    model.alias = model.dense.kernel
    model.config = [1, 2]
    model.pair = (model.count, "text")
    table = {"b.x/y": tf.Variable(np.float64(2.5), name="t")}
    return tf.train.Checkpoint(inner=tf.train.Checkpoint(model=model), table=table)


def train_state(seed):
    """A small net trained one step by a TF1 Adam and a TF1 Momentum optimizer (`tf1` = tf.compat.v1): (the
    net, adam, momentum, a Checkpoint of all three). Variable names are the test's own: TensorFlow numbers eager
    slot names program-wide ("ckpt_w/Adam", "ckpt_w/Adam_1"), and checkpoints record them."""
    rng = np.random.RandomState(seed)
    net = tf.Module()
    net.w = tf.Variable(rng.randn(3, 2).astype(np.float32), name="ckpt_w")
    net.b = tf.Variable(rng.randn(2).astype(np.float32), name="ckpt_b")
    adam = tf1.train.AdamOptimizer(0.1)
    momentum = tf1.train.MomentumOptimizer(0.05, 0.9)
    x = rng.randn(4, 3).astype(np.float32)
    for optimizer in (adam, momentum):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(x, net.w) + net.b))
        optimizer.apply_gradients(zip(tape.gradient(loss, [net.w, net.b]), [net.w, net.b]))
    return net, adam, momentum, tf.train.Checkpoint(net=net, adam=adam, momentum=momentum)


def optimizer_variables(net, adam, momentum):
    """The net's variables, every slot, Adam's beta powers: in an order both engines agree on."""
    slots = [optimizer.get_slot(v, name) for optimizer in (adam, momentum) for name in optimizer.get_slot_names()
             for v in (net.w, net.b)]
    return [net.w, net.b] + slots + list(adam._get_beta_accumulators())


def fill(variables, seed):
    """Gives each variable values drawn from `seed` (the same in both engines, whatever training computed)."""
    rng = np.random.RandomState(seed)
    values = [np.asarray(rng.randn(*v.shape.as_list()), v.dtype.as_numpy_dtype) for v in variables]
    for variable, value in zip(variables, values):
        variable.assign(value)
    return [value.tolist() for value in values]


def model_state(model, checkpoint):
    """{name: value as a list} of every variable, by a name that does not depend on the engine."""
    return {"kernel": model.dense.kernel.numpy().tolist(), "bias": model.dense.bias.numpy().tolist(),
            "half": model.blocks[0].numpy().tolist(), "ids": model.blocks[1]["ids"].numpy().tolist(),
            "mask": model.blocks[1]["mask"].numpy().tolist(), "count": int(model.count.numpy()),
            "scale": float(checkpoint.scale.numpy())}
'''
