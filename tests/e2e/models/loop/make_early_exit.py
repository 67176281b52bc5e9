#!/usr/bin/python3
"""Writes early_exit.onnx and its test data sets: a Loop with a constant trip count
(M = 6) whose condition is computed from the data, so it may stop early; the body
reads values of the enclosing graph (w, limit). Reference computed with numpy by
running the ONNX Loop semantics directly. Run: /usr/bin/python3 make_early_exit.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
M = 6

body = helper.make_graph(
    [
        helper.make_node("Cast", ["i"], ["i_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x_in", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "i_f"], ["x_out"]),
        helper.make_node("Add", ["n_in", "one"], ["n_out"]),
        helper.make_node("ReduceMax", ["x_out"], ["x_max"], keepdims=0),
        helper.make_node("Less", ["x_max", "limit"], ["cond_out"]),
    ],
    "body",
    [
        helper.make_tensor_value_info("i", TensorProto.INT64, []),
        helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
        helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("n_in", TensorProto.FLOAT, []),
    ],
    [
        helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
        helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("n_out", TensorProto.FLOAT, []),
    ],
    [numpy_helper.from_array(np.array(1.0, np.float32), "one")],
)

w = np.array([1.5, -0.5, 0.75, 1.25], np.float32)
graph = helper.make_graph(
    [
        helper.make_node("Identity", ["x0"], ["x_start"]),
        helper.make_node("Loop", ["M", "go", "x_start", "n0"], ["x_final", "n_final"], body=body, name="early_exit"),
    ],
    "loop_early_exit",
    [
        helper.make_tensor_value_info("x0", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("go", TensorProto.BOOL, []),
        helper.make_tensor_value_info("limit", TensorProto.FLOAT, []),
    ],
    [
        helper.make_tensor_value_info("x_final", TensorProto.FLOAT, [4]),
        helper.make_tensor_value_info("n_final", TensorProto.FLOAT, []),
    ],
    [
        numpy_helper.from_array(np.array(M, np.int64), "M"),
        numpy_helper.from_array(np.array(0.0, np.float32), "n0"),
        numpy_helper.from_array(w, "w"),
    ],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, os.path.join(HERE, "early_exit.onnx"))


def reference(x0, go, limit):
    x, n, cond = x0.copy(), np.float32(0), bool(go)
    i = 0
    while i < M and cond:
        x = (x * w + np.float32(i)).astype(np.float32)
        n = np.float32(n + 1)
        cond = bool(x.max() < limit)
        i += 1
    return x, np.array(n, np.float32)


cases = [
    (np.array([0.5, 1.0, -2.0, 0.25], np.float32), True, 1000.0),  # runs all M steps
    (np.array([0.5, 1.0, -2.0, 0.25], np.float32), True, 2.5),  # stops after a few steps
    (np.array([3.0, -1.0, 0.5, 2.0], np.float32), False, 1000.0),  # no step at all
]
for k, (x0, go, limit) in enumerate(cases):
    d = os.path.join(HERE, "early_exit_data_%d" % k)
    os.makedirs(d, exist_ok=True)
    ins = [x0, np.array(go, np.bool_), np.array(limit, np.float32)]
    for j, a in enumerate(ins):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "input_%d.pb" % j))
    for j, a in enumerate(reference(x0, go, np.float32(limit))):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "output_%d.pb" % j))
    print(d, reference(x0, go, np.float32(limit)))
