#!/usr/bin/python3
"""Writes If models and their test data (numpy references), <name>.onnx + <name>_data*/:

squeeze_if   The shape of PyTorch's exports of squeeze on a tensor of open shape:
             If(Equal(Gather(Shape(x), -1), 1), then Squeeze(x, -1), else
             Reshape(x, [0, -1])), the If's output a graph output with dynamic
             dimensions, the branches' results of different static shapes. With
             --input-shape x=1,16,1 folding decides the then branch, with x=1,16,3 the
             else branch; the other branch's shapes (a Squeeze of a dimension that
             is not 1) never matter.
mode_if      A mode input (a sample rate) picks one of two sub-networks:
             If(Equal(sr, 16000), relu(x W16), tanh(x W8)). With --input-value
             sr=16000 only the 16 kHz network is compiled; without it the
             condition is run-time data.
Run: /usr/bin/python3 make_if_models.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(15)


def write_data(d, inputs, outputs):
    os.makedirs(d, exist_ok=True)
    for j, a in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "input_%d.pb" % j))
    for j, a in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(a), os.path.join(d, "output_%d.pb" % j))


# ---- squeeze_if -----------------------------------------------------------------
then_b = helper.make_graph([helper.make_node("Squeeze", ["x", "last"], ["sq"])], "then",
                           [], [helper.make_tensor_value_info("sq", TensorProto.FLOAT, ["b", "n"])])
else_b = helper.make_graph([helper.make_node("Reshape", ["x", "keep_first"], ["flat"])], "else",
                           [], [helper.make_tensor_value_info("flat", TensorProto.FLOAT, ["b", "n"])])
graph = helper.make_graph(
    [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "minus1"], ["dim"], axis=0),
        helper.make_node("Equal", ["dim", "one"], ["is_one"]),
        helper.make_node("If", ["is_one"], ["squeezed"], then_branch=then_b, else_branch=else_b, name="squeeze_last"),
        helper.make_node("Mul", ["squeezed", "two"], ["y"]),
    ],
    "squeeze_if",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 16, "k"])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "n"]),
     helper.make_tensor_value_info("squeezed", TensorProto.FLOAT, ["batch", "n"])],
    [numpy_helper.from_array(np.array(-1, np.int64), "minus1"), numpy_helper.from_array(np.array(1, np.int64), "one"),
     numpy_helper.from_array(np.array([-1], np.int64), "last"),
     numpy_helper.from_array(np.array([0, -1], np.int64), "keep_first"), numpy_helper.from_array(np.array(2.0, np.float32), "two")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "squeeze_if.onnx"))
for k in (1, 3):
    x = rng.uniform(-1, 1, (1, 16, k)).astype(np.float32)
    s = x.squeeze(-1) if k == 1 else x.reshape(1, -1)
    write_data(os.path.join(HERE, "squeeze_if_data_k%d" % k), [x], [s * 2, s])

# ---- mode_if ----------------------------------------------------------------------
w16 = rng.uniform(-0.5, 0.5, (16, 8)).astype(np.float32)
w8 = rng.uniform(-0.5, 0.5, (16, 8)).astype(np.float32)
then_b = helper.make_graph([helper.make_node("MatMul", ["x", "w16"], ["h16"]), helper.make_node("Relu", ["h16"], ["y16"])],
                           "net16k", [], [helper.make_tensor_value_info("y16", TensorProto.FLOAT, [1, 8])],
                           [numpy_helper.from_array(w16, "w16")])
else_b = helper.make_graph([helper.make_node("MatMul", ["x", "w8"], ["h8"]), helper.make_node("Tanh", ["h8"], ["y8"])],
                           "net8k", [], [helper.make_tensor_value_info("y8", TensorProto.FLOAT, [1, 8])],
                           [numpy_helper.from_array(w8, "w8")])
graph = helper.make_graph(
    [
        helper.make_node("Equal", ["sr", "sr16k"], ["is16k"]),
        helper.make_node("If", ["is16k"], ["y"], then_branch=then_b, else_branch=else_b, name="by_rate"),
    ],
    "mode_if",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16]),
     helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
    [numpy_helper.from_array(np.array(16000, np.int64), "sr16k")],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(HERE, "mode_if.onnx"))
for sr in (16000, 8000):
    x = rng.uniform(-1, 1, (1, 16)).astype(np.float32)
    y = np.maximum(x @ w16, 0) if sr == 16000 else np.tanh(x @ w8)
    write_data(os.path.join(HERE, "mode_if_data_%d" % sr), [x, np.array(sr, np.int64)], [y.astype(np.float32)])
print("ok")
