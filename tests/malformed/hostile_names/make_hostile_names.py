#!/usr/bin/python3
"""A valid model whose every name is hostile to generated C: quotes, backslashes, NUL,
comment ends and starts, a trigraph, newlines, non-ASCII, C keywords, and two
names that collide once made identifiers. Its second output is the constant ->
SplitToSequence -> SequenceAt chain that once failed in the emitter. The e2e test
compiles it, builds the C with -Wall -Wextra -Werror under ASan/UBSan and checks
both outputs against numpy (tests/malformed/CMakeLists.txt).

    /usr/bin/python3 make_hostile_names.py   # writes hostile_names.onnx and hostile_names_data/
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
X = 'in"put\\ */ /* ??/\n\u00e9\u4e2d'
Z = "int"
W = 'w*/"\\'
Y = '{"1": "1_minute_timer"}*/\\'
S = "seq\r\n\t\"at\""
SAME = 'in_put'  # becomes the same identifier as a sanitized X would start with

rng = np.random.default_rng(18)
w = rng.standard_normal([2, 3]).astype(np.float32)
c = np.arange(12, dtype=np.float32).reshape(4, 3)
nodes = [
    helper.make_node("Add", [X, W], ["t\"1*/"], name='/* add */ "node" \\'),
    helper.make_node("Relu", ["t\"1*/"], [Y], name="relu\n*/"),
    helper.make_node("SplitToSequence", ["c*/"], ["s\"eq"], name="split??/", axis=0),
    helper.make_node("SequenceAt", ["s\"eq", "p"], ["e"], name="at"),
    helper.make_node("Mul", ["e", Z], [S], name="mul\0nul\x7f"),
    helper.make_node("Neg", [SAME], ["neg\u00e9"], name="neg"),
]
graph = helper.make_graph(
    nodes, 'graph "*/',
    [helper.make_tensor_value_info(X, TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info(Z, TensorProto.FLOAT, [1, 3]),
     helper.make_tensor_value_info(SAME, TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info(Y, TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info(S, TensorProto.FLOAT, [1, 3]),
     helper.make_tensor_value_info("neg\u00e9", TensorProto.FLOAT, [3])],
    [numpy_helper.from_array(w, W), numpy_helper.from_array(c, "c*/"),
     numpy_helper.from_array(np.array(1, dtype=np.int64), "p")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "hostile_names.onnx"))

x = rng.standard_normal([2, 3]).astype(np.float32)
z = rng.standard_normal([1, 3]).astype(np.float32)
q = rng.standard_normal([3]).astype(np.float32)
outs = [np.maximum(x + w, 0), c[1:2] * z, -q]
d = os.path.join(HERE, "hostile_names_data")
os.makedirs(d, exist_ok=True)
for i, (name, a) in enumerate([(X, x), (Z, z), (SAME, q)]):
    with open(os.path.join(d, f"input_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
for i, (name, a) in enumerate(zip([Y, S, "neg\u00e9"], outs)):
    with open(os.path.join(d, f"output_{i}.pb"), "wb") as f:
        f.write(numpy_helper.from_array(a, name).SerializeToString())
