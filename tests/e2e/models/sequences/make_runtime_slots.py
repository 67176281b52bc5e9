#!/usr/bin/python3
"""Elements computed by ops and held only by a run-time sequence table are written
straight into their slots (no copy): SequenceConstruct(Relu(a), Sigmoid(b), Tanh(c))
read back with SequenceAt at a run-time position. Writes runtime_slots.onnx and
runtime_slots_data_K/{input,output}_N.pb (numpy reference) next to this script."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

graph = helper.make_graph(
    [
        helper.make_node("Relu", ["a"], ["ra"], name="relu"),
        helper.make_node("Sigmoid", ["b"], ["sb"], name="sigmoid"),
        helper.make_node("Tanh", ["c"], ["tc"], name="tanh"),
        helper.make_node("SequenceConstruct", ["ra", "sb", "tc"], ["s"], name="construct"),
        helper.make_node("SequenceAt", ["s", "p"], ["y"], name="pick"),
    ],
    "runtime_slots",
    [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in "abc"]
    + [helper.make_tensor_value_info("p", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "runtime_slots.onnx"))

rng = np.random.default_rng(5)
for k, p in enumerate([0, -1, 1]):
    a, b, c = (rng.standard_normal(4).astype(np.float32) for _ in range(3))
    elems = [np.maximum(a, 0), (1 / (1 + np.exp(-b))).astype(np.float32), np.tanh(c)]
    d = os.path.join(HERE, "runtime_slots_data_%d" % k)
    os.makedirs(d, exist_ok=True)
    for i, v in enumerate([a, b, c, np.array(p, dtype=np.int64)]):
        with open(os.path.join(d, "input_%d.pb" % i), "wb") as f:
            f.write(numpy_helper.from_array(v).SerializeToString())
    with open(os.path.join(d, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(elems[p]).SerializeToString())
