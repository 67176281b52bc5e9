#!/usr/bin/python3
"""Builds the two small models of the shared-arena example and their reference data.

  model_a.onnx  a small CNN:  x[1,1,12,12] -> Conv(4,3x3) -> Relu -> MaxPool 2 -> Conv(8,3x3)
                -> Relu -> MaxPool 2 -> Flatten -> Gemm(5) -> Softmax -> y[1,5]
  model_b.onnx  a small MLP with a skip: x[1,20] -> Gemm(32) -> Relu -> Gemm(32) -> Add(skip)
                -> Relu -> Gemm(4) -> y[1,4]

Weights and inputs are drawn from a fixed seed; the expected outputs are computed
here with numpy (float64, rounded to float32 at the end). Writes, next to this
script: the two .onnx files, test_data_set_0/ for each model (ONNX test-data
layout, so `kiln verify` can check each model alone), and reference_data.h (the
same inputs and expected outputs as C arrays, for main.c).

Run with /usr/bin/python3 (onnx + numpy); the outputs are committed.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261123)


def rand(*shape, scale=0.5):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


# ---- numpy reference operators (float64) ----
def conv2d(x, w, b, pad):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i:i + kh, j:j + kw]
            y[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y + b.reshape(1, m, 1, 1)


def maxpool2(x):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))


def relu(x):
    return np.maximum(x, 0)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def init(name, a):
    return numpy_helper.from_array(a, name)


def save(model, name, x, y):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    d = os.path.join(HERE, name + "_data", "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    with open(os.path.join(d, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "y").SerializeToString())


def model_a():
    w1, b1 = rand(4, 1, 3, 3), rand(4, scale=0.1)
    w2, b2 = rand(8, 4, 3, 3, scale=0.3), rand(8, scale=0.1)
    fw, fb = rand(5, 72, scale=0.2), rand(5, scale=0.1)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], "conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], "relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], "pool1", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], "conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], "relu2"),
        helper.make_node("MaxPool", ["r2"], ["p2"], "pool2", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p2"], ["f"], "flatten"),
        helper.make_node("Gemm", ["f", "fw", "fb"], ["g"], "fc", transB=1),
        helper.make_node("Softmax", ["g"], ["y"], "softmax", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "shared_arena_a",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 12, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
        [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2), init("fw", fw), init("fb", fb)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    x = rand(1, 1, 12, 12, scale=1.0)
    h = maxpool2(relu(conv2d(x.astype(np.float64), w1, b1, 1)))
    h = maxpool2(relu(conv2d(h, w2, b2, 1)))
    y = softmax(h.reshape(1, -1) @ fw.astype(np.float64).T + fb).astype(np.float32)
    return model, x, y


def model_b():
    w1, b1 = rand(32, 20, scale=0.3), rand(32, scale=0.1)
    w2, b2 = rand(32, 32, scale=0.2), rand(32, scale=0.1)
    w3, b3 = rand(4, 32, scale=0.3), rand(4, scale=0.1)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"], "fc1", transB=1),
        helper.make_node("Relu", ["g1"], ["r1"], "relu1"),
        helper.make_node("Gemm", ["r1", "w2", "b2"], ["g2"], "fc2", transB=1),
        helper.make_node("Add", ["g2", "r1"], ["s"], "skip"),
        helper.make_node("Relu", ["s"], ["r2"], "relu2"),
        helper.make_node("Gemm", ["r2", "w3", "b3"], ["y"], "fc3", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "shared_arena_b",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 20])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        [init("w1", w1), init("b1", b1), init("w2", w2), init("b2", b2), init("w3", w3), init("b3", b3)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="make_models.py")
    x = rand(1, 20, scale=1.0)
    r1 = relu(x.astype(np.float64) @ w1.T + b1)
    r2 = relu(r1 @ w2.T + b2 + r1)
    y = (r2 @ w3.T + b3).astype(np.float32)
    return model, x, y


def c_array(name, a):
    vals = ", ".join("%.9gf" % v for v in a.ravel())
    return "static const float %s[%d] = {%s};\n" % (name, a.size, vals)


def main():
    header = ["/* Generated by make_models.py: inputs and numpy reference outputs. Do not edit. */\n",
              "#ifndef SHARED_ARENA_REFERENCE_DATA_H\n#define SHARED_ARENA_REFERENCE_DATA_H\n\n"]
    for name, build in (("model_a", model_a), ("model_b", model_b)):
        model, x, y = build()
        save(model, name, x, y)
        header.append(c_array(name + "_input", x))
        header.append(c_array(name + "_expected", y))
    header.append("\n#endif\n")
    with open(os.path.join(HERE, "reference_data.h"), "w") as f:
        f.write("".join(header))


if __name__ == "__main__":
    main()
