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
branch_if    A detector gates a verifier (the condition is run-time data,
             ReduceMax(x) > 0.5), each branch holding a 16 KB intermediate: then
             Reshape(Relu(MatMul(x, wv) as a column * sv)) (its result a view of
             the intermediate, which must live until the If's join), else
             Tanh(Reshape(MatMul(x, wf) as a column * sf)) (its result computed
             straight into the If's output); z = y * 0.5 after the If. The two
             branches never run together, so the workspace is about one branch.
Run: /usr/bin/python3 make_if_models.py"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from test_model_files import save_graph, write_data  # noqa: E402
rng = np.random.default_rng(15)


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
save_graph(graph, os.path.join(HERE, "squeeze_if.onnx"))
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
save_graph(graph, os.path.join(HERE, "mode_if.onnx"))
for sr in (16000, 8000):
    x = rng.uniform(-1, 1, (1, 16)).astype(np.float32)
    y = np.maximum(x @ w16, 0) if sr == 16000 else np.tanh(x @ w8)
    write_data(os.path.join(HERE, "mode_if_data_%d" % sr), [x, np.array(sr, np.int64)], [y.astype(np.float32)])
# ---- branch_if ----------------------------------------------------------------------
wv = rng.uniform(-0.5, 0.5, (64, 256)).astype(np.float32)
sv = rng.uniform(-1, 1, (1, 1, 16)).astype(np.float32)
wf = rng.uniform(-0.5, 0.5, (64, 256)).astype(np.float32)
sf = rng.uniform(-1, 1, (1, 1, 16)).astype(np.float32)
then_b = helper.make_graph(
    [helper.make_node("MatMul", ["x", "wv"], ["v1"]), helper.make_node("Reshape", ["v1", "col"], ["v2"]),
     helper.make_node("Mul", ["v2", "sv"], ["v3"]), helper.make_node("Relu", ["v3"], ["v4"]),
     helper.make_node("Reshape", ["v4", "flat"], ["yv"])],
    "verifier", [], [helper.make_tensor_value_info("yv", TensorProto.FLOAT, [1, 4096])],
    [numpy_helper.from_array(wv, "wv"), numpy_helper.from_array(sv, "sv")])
else_b = helper.make_graph(
    [helper.make_node("MatMul", ["x", "wf"], ["f1"]), helper.make_node("Reshape", ["f1", "col"], ["f2"]),
     helper.make_node("Mul", ["f2", "sf"], ["f3"]), helper.make_node("Reshape", ["f3", "flat"], ["f4"]),
     helper.make_node("Tanh", ["f4"], ["yf"])],
    "fallback", [], [helper.make_tensor_value_info("yf", TensorProto.FLOAT, [1, 4096])],
    [numpy_helper.from_array(wf, "wf"), numpy_helper.from_array(sf, "sf")])
graph = helper.make_graph(
    [
        helper.make_node("ReduceMax", ["x"], ["peak"], keepdims=0),
        helper.make_node("Greater", ["peak", "threshold"], ["fired"]),
        helper.make_node("If", ["fired"], ["y"], then_branch=then_b, else_branch=else_b, name="verify_if_fired"),
        helper.make_node("Mul", ["y", "half"], ["z"]),
    ],
    "branch_if",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4096])],
    [numpy_helper.from_array(np.array(0.5, np.float32), "threshold"), numpy_helper.from_array(np.array(0.5, np.float32), "half"),
     numpy_helper.from_array(np.array([1, 256, 1], np.int64), "col"), numpy_helper.from_array(np.array([1, 4096], np.int64), "flat")],
)
save_graph(graph, os.path.join(HERE, "branch_if.onnx"))
for name, scale in (("fired", 1.0), ("quiet", 0.45)):
    x = rng.uniform(-1, 1, (1, 64)).astype(np.float32) * np.float32(scale)
    x[0, 3] = np.float32(0.9 if name == "fired" else 0.3)
    x64 = x.astype(np.float64)
    if x.max() > 0.5:
        y = np.maximum((x64 @ wv).reshape(1, 256, 1) * sv, 0).reshape(1, 4096)
    else:
        y = np.tanh(((x64 @ wf).reshape(1, 256, 1) * sf).reshape(1, 4096))
    write_data(os.path.join(HERE, "branch_if_data_%s" % name), [x], [(y * 0.5).astype(np.float32)])
print("ok")
