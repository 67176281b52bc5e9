#!/usr/bin/python3
"""Generates residual_concat/: a small residual + concat heavy CNN and its
reference output computed with numpy (independently of Kiln).

The graph exercises every bufferization rule: element-wise ops that can run in
place (Relu, Add, Sigmoid, Mul, Clip), Concats along the channel axis (the
outermost non-unit axis with batch 1) whose inputs' producers write straight into
their slice, nested Concat, a Split and a channel Slice that are contiguous views,
a Reshape view, and a Concat input that is a view (so it needs a copy).

Run: /usr/bin/python3 make_residual_concat.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "residual_concat")
rng = np.random.default_rng(7)
C, H, W = 8, 12, 12


def conv(x, w, b, pad):
    n, c, h, wd = x.shape
    k = w.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - k + 1, wd + 2 * pad - k + 1
    y = np.zeros((n, w.shape[0], oh, ow), np.float64)
    for i in range(k):
        for j in range(k):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    return (y + b.reshape(1, -1, 1, 1)).astype(np.float32)


def relu(x):
    return np.maximum(x, 0)


def sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(np.float32)


inits, nodes = [], []


def weight(name, cout, cin, k):
    w = (rng.standard_normal((cout, cin, k, k)) / np.sqrt(cin * k * k)).astype(np.float32)
    b = (rng.standard_normal(cout) * 0.1).astype(np.float32)
    inits.append(numpy_helper.from_array(w, name + "_w"))
    inits.append(numpy_helper.from_array(b, name + "_b"))
    return w, b


def conv_node(name, x, cout, cin, k):
    w, b = weight(name, cout, cin, k)
    nodes.append(helper.make_node("Conv", [x, name + "_w", name + "_b"], [name], name=name,
                                  kernel_shape=[k, k], pads=[k // 2] * 4))
    return w, b


x = rng.standard_normal((1, C, H, W)).astype(np.float32)
ref = {"x": x}

w, b = conv_node("c1", "x", C, C, 3)
ref["c1"] = conv(x, w, b, 1)
nodes.append(helper.make_node("Relu", ["c1"], ["r1"], name="relu1"))
ref["r1"] = relu(ref["c1"])
w, b = conv_node("c2", "r1", C, C, 3)
ref["c2"] = conv(ref["r1"], w, b, 1)
nodes.append(helper.make_node("Add", ["c2", "x"], ["a2"], name="res2"))  # residual
ref["a2"] = ref["c2"] + x
nodes.append(helper.make_node("Relu", ["a2"], ["r2"], name="relu2"))
ref["r2"] = relu(ref["a2"])
w, b = conv_node("c3", "r2", C, C, 1)
ref["c3"] = conv(ref["r2"], w, b, 0)
nodes.append(helper.make_node("Sigmoid", ["c3"], ["s3"], name="sig3"))
ref["s3"] = sigmoid(ref["c3"])
# Concat of three producers' outputs along channels; r1 and r2 are still read later.
nodes.append(helper.make_node("Concat", ["r2", "s3", "r1"], ["cat"], name="cat", axis=1))
ref["cat"] = np.concatenate([ref["r2"], ref["s3"], ref["r1"]], axis=1)
w, b = conv_node("c4", "cat", C, 3 * C, 1)
ref["c4"] = conv(ref["cat"], w, b, 0)
nodes.append(helper.make_node("Mul", ["c4", "s3"], ["m4"], name="gate4"))
ref["m4"] = ref["c4"] * ref["s3"]
inits.append(numpy_helper.from_array(np.array(0, np.float32), "lo"))
inits.append(numpy_helper.from_array(np.array(0.75, np.float32), "hi"))
nodes.append(helper.make_node("Clip", ["m4", "lo", "hi"], ["k4"], name="clip4"))
ref["k4"] = np.clip(ref["m4"], 0, 0.75)
inits.append(numpy_helper.from_array(np.array([4, 4], np.int64), "split_sizes"))
nodes.append(helper.make_node("Split", ["k4", "split_sizes"], ["s0", "s1"], name="split5", axis=1))
ref["s0"], ref["s1"] = ref["k4"][:, :4], ref["k4"][:, 4:]
nodes.append(helper.make_node("Add", ["s0", "s1"], ["a5"], name="add5"))
ref["a5"] = ref["s0"] + ref["s1"]
for nm, v in [("sl_starts", [8]), ("sl_ends", [16]), ("sl_axes", [1])]:
    inits.append(numpy_helper.from_array(np.array(v, np.int64), nm))
nodes.append(helper.make_node("Slice", ["cat", "sl_starts", "sl_ends", "sl_axes"], ["sl"], name="slice6"))
ref["sl"] = ref["cat"][:, 8:16]
# Inner Concat placed inside the outer one (nested placement).
w, b = conv_node("c7", "a5", C, 4, 3)
ref["c7"] = conv(ref["a5"], w, b, 1)
nodes.append(helper.make_node("Tanh", ["c7"], ["t7"], name="tanh7"))
ref["t7"] = np.tanh(ref["c7"])
nodes.append(helper.make_node("Concat", ["a5", "t7"], ["inner"], name="inner_cat", axis=1))
ref["inner"] = np.concatenate([ref["a5"], ref["t7"]], axis=1)
# The graph output: producers write straight into the caller's buffer; `sl` is a
# view of `cat` and must be copied into its slice.
nodes.append(helper.make_node("Concat", ["inner", "sl"], ["y"], name="out_cat", axis=1))
ref["y"] = np.concatenate([ref["inner"], ref["sl"]], axis=1)
# Second output: a Reshape view of an in-place Relu of the residual.
nodes.append(helper.make_node("Add", ["r2", "m4"], ["a8"], name="res8"))
ref["a8"] = ref["r2"] + ref["m4"]
nodes.append(helper.make_node("Relu", ["a8"], ["r8"], name="relu8"))
ref["r8"] = relu(ref["a8"])
inits.append(numpy_helper.from_array(np.array([1, -1], np.int64), "flat"))
nodes.append(helper.make_node("Reshape", ["r8", "flat"], ["z"], name="flat8"))
ref["z"] = ref["r8"].reshape(1, -1)

graph = helper.make_graph(
    nodes, "residual_concat",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, H, W])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(ref["y"].shape)),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, list(ref["z"].shape))],
    inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
model.ir_version = 8
onnx.checker.check_model(model)
os.makedirs(os.path.join(OUT, "test_data_set_0"), exist_ok=True)
onnx.save(model, os.path.join(OUT, "model.onnx"))
for name, arr in [("input_0", ref["x"]), ("output_0", ref["y"]), ("output_1", ref["z"])]:
    t = numpy_helper.from_array(arr, {"input_0": "x", "output_0": "y", "output_1": "z"}[name])
    with open(os.path.join(OUT, "test_data_set_0", name + ".pb"), "wb") as f:
        f.write(t.SerializeToString())
print("wrote", OUT)
