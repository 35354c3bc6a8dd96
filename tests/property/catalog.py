"""The ops the property tests generate cases for, as TensorFlow-API expressions, and a NumPy-free case runner.

One expression serves every engine: webflow (`import webflow as tf`) with NumPy, webflow without NumPy (a child
process with `import numpy` blocked, as in Pyodide), webflow inside real Pyodide (wasm kernels) and real
TensorFlow 2.21 (`import tensorflow as tf`). In an expression `a`, `b`, `c` are the input tensors and `k` the
case's attributes. This file imports neither NumPy nor webflow: it is also exec'd inside Pyodide and run by
the oracle venv's interpreter (`python catalog.py < cases.json` prints the results as JSON).

A case is plain JSON: {"op": name, "inputs": [{"values": flat list, "shape": [...], "dtype": name}], "attrs": {}}.
A result is {"outputs": [{"shape", "dtype", "values"}]} or {"error": "<ExceptionType>: message"}.
"""

from __future__ import annotations

import json
import sys

UNARY = {
    "neg": "tf.math.negative(a)", "abs": "tf.math.abs(a)", "square": "tf.math.square(a)",
    "sqrt": "tf.math.sqrt(a)", "rsqrt": "tf.math.rsqrt(a)", "reciprocal": "tf.math.reciprocal(a)",
    "exp": "tf.math.exp(a)", "log": "tf.math.log(a)", "log1p": "tf.math.log1p(a)", "tanh": "tf.math.tanh(a)",
    "sigmoid": "tf.math.sigmoid(a)", "relu": "tf.nn.relu(a)", "relu6": "tf.nn.relu6(a)", "elu": "tf.nn.elu(a)",
    "selu": "tf.nn.selu(a)", "softplus": "tf.nn.softplus(a)", "softsign": "tf.nn.softsign(a)",
    "floor": "tf.math.floor(a)", "ceil": "tf.math.ceil(a)", "sign": "tf.math.sign(a)",
    "round": "tf.math.round(a)", "sin": "tf.math.sin(a)", "cos": "tf.math.cos(a)",
    "is_nan": "tf.math.is_nan(a)", "is_inf": "tf.math.is_inf(a)", "is_finite": "tf.math.is_finite(a)",
}
BINARY = {
    "add": "tf.math.add(a, b)", "sub": "tf.math.subtract(a, b)", "mul": "tf.math.multiply(a, b)",
    "div": "tf.math.truediv(a, b)", "maximum": "tf.math.maximum(a, b)", "minimum": "tf.math.minimum(a, b)",
    "squared_difference": "tf.math.squared_difference(a, b)", "pow": "tf.math.pow(a, b)",
    "floordiv": "tf.math.floordiv(a, b)", "floormod": "tf.math.floormod(a, b)",
    "equal": "tf.math.equal(a, b)", "not_equal": "tf.math.not_equal(a, b)", "less": "tf.math.less(a, b)",
    "less_equal": "tf.math.less_equal(a, b)", "greater": "tf.math.greater(a, b)",
    "greater_equal": "tf.math.greater_equal(a, b)",
}
REDUCTION = {
    "reduce_sum": "tf.math.reduce_sum(a, axis=k['axis'], keepdims=k['keepdims'])",
    "reduce_mean": "tf.math.reduce_mean(a, axis=k['axis'], keepdims=k['keepdims'])",
    "reduce_max": "tf.math.reduce_max(a, axis=k['axis'], keepdims=k['keepdims'])",
    "reduce_min": "tf.math.reduce_min(a, axis=k['axis'], keepdims=k['keepdims'])",
    "reduce_prod": "tf.math.reduce_prod(a, axis=k['axis'], keepdims=k['keepdims'])",
    "reduce_logsumexp": "tf.math.reduce_logsumexp(a, axis=k['axis'], keepdims=k['keepdims'])",
    "argmax": "tf.math.argmax(a, axis=k['axis'])", "argmin": "tf.math.argmin(a, axis=k['axis'])",
}
MATMUL = {
    "matmul": "tf.matmul(a, b, transpose_a=k['ta'], transpose_b=k['tb'])",
}
CONV = {
    "conv2d": "tf.nn.conv2d(a, b, strides=k['strides'], padding=k['padding'], dilations=k['dilations'])",
}
POOL = {
    "max_pool": "tf.nn.max_pool2d(a, k['ksize'], k['strides'], k['padding'])",
    "avg_pool": "tf.nn.avg_pool2d(a, k['ksize'], k['strides'], k['padding'])",
}
GATHER = {
    "gather": "tf.gather(a, b, axis=k['axis'])",
    "gather_nd": "tf.gather_nd(a, b)",
    "scatter_nd": "tf.scatter_nd(b, a, k['shape'])",
}
CAST = {"cast": "tf.cast(a, k['to'])"}
SOFTMAX = {
    "softmax": "tf.nn.softmax(a, axis=k['axis'])", "log_softmax": "tf.nn.log_softmax(a, axis=k['axis'])",
    "softmax_xent": "tf.nn.softmax_cross_entropy_with_logits(labels=b, logits=a)",
    "sparse_xent": "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=b, logits=a)",
}
FAMILIES = {"unary": UNARY, "binary": BINARY, "reduction": REDUCTION, "matmul": MATMUL, "conv": CONV, "pool": POOL,
            "gather": GATHER, "cast": CAST, "softmax": SOFTMAX}
EXPRESSIONS = {name: source for family in FAMILIES.values() for name, source in family.items()}


def family_of(op: str) -> str:
    return next(family for family, ops in FAMILIES.items() if op in ops)


def build(tf: object, op: str, tensors: list, attrs: dict) -> object:
    """The op applied to `tensors` with the TensorFlow-style module `tf` (webflow or tensorflow)."""
    names = dict(zip("abc", tensors))
    return eval(EXPRESSIONS[op], {"tf": tf, "k": attrs, **names})  # noqa: S307 - our own fixed expressions


def constant(tf: object, spec: dict) -> object:
    """The input as a tensor from its flat values (no NumPy needed)."""
    dtype = tf.as_dtype(spec["dtype"])
    return tf.reshape(tf.constant(spec["values"], dtype=dtype, shape=[len(spec["values"])]), spec["shape"])


def _flat(value: object) -> list:
    if hasattr(value, "reshape"):
        return value.reshape(-1).tolist()
    return [value]


def plain_output(tensor: object) -> dict:
    value = tensor.numpy()
    flat = _flat(value)
    return {"shape": list(tensor.shape.as_list()), "dtype": tensor.dtype.name,
            "values": [v if not isinstance(v, float) or v == v else "nan" for v in flat]}


def run_case(tf: object, case: dict) -> dict:
    try:
        tensors = [constant(tf, spec) for spec in case["inputs"]]
        result = build(tf, case["op"], tensors, case["attrs"])
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        return {"outputs": [plain_output(t) for t in outputs]}
    except Exception as error:  # noqa: BLE001 - reported to the test, which decides
        return {"error": f"{type(error).__name__}: {error}"[:300]}


def run_cases(tf: object, cases: list) -> list:
    return [run_case(tf, case) for case in cases]


def decode(cases_json: str) -> list:
    """Cases from JSON, with the special values written as strings ("nan", "inf", "-inf") turned into floats."""
    special = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
    cases = json.loads(cases_json)
    for case in cases:
        for spec in case["inputs"]:
            spec["values"] = [special.get(v, v) if isinstance(v, str) else v for v in spec["values"]]
    return cases


def encode(results: list) -> str:
    """JSON with no NaN/Infinity tokens (strings instead), which every JSON reader accepts."""
    def fix(v: object) -> object:
        if isinstance(v, float) and v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return v

    for result in results:
        for output in result.get("outputs", []):
            output["values"] = [fix(v) for v in output["values"]]
    return json.dumps(results)


def main() -> None:
    """`python catalog.py tensorflow|webflow < cases.json`: the results on that engine, one JSON line."""
    engine = sys.argv[1]
    if engine == "tensorflow":
        import os

        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"   # TensorFlow's own (Eigen) kernels, not oneDNN's rewrites
        import tensorflow as tf
    else:
        if "--no-numpy" in sys.argv:
            sys.modules["numpy"] = None  # type: ignore[assignment]  # as in Pyodide
        import webflow as tf
    cases = decode(sys.stdin.read())
    print("RESULT:" + encode(run_cases(tf, cases)))


if __name__ == "__main__":
    main()
