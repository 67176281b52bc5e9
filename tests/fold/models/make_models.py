#!/usr/bin/python3
"""Builds the end-to-end models of tests/fold (committed outputs):
  flatten_chain/: PyTorch-style x.view(x.size(0), -1) (Shape -> Gather ->
                  Unsqueeze -> Concat -> Reshape) feeding a Gemm
  conv_bn/:       Conv -> BatchNormalization -> Relu -> per-channel Mul -> Add
                  (Conv+BN and Conv+Mul/Add are folded into the weights)
Expected outputs are computed here with numpy, independently of Kiln."""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

rng = np.random.default_rng(7)
HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, model, inputs, outputs):
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(d, "model.onnx"))
    for i, (n, a) in enumerate(inputs):
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(d, "test_data_set_0", f"input_{i}.pb"))
    for i, (n, a) in enumerate(outputs):
        onnx.save_tensor(numpy_helper.from_array(a, n), os.path.join(d, "test_data_set_0", f"output_{i}.pb"))


def f32(*shape):
    return rng.uniform(-1, 1, size=shape).astype(np.float32)


# ---- flatten chain ----
x = f32(2, 3, 4, 4)
W = f32(10, 48)
B = f32(10)
nodes = [
    helper.make_node("Relu", ["x"], ["r"]),
    helper.make_node("Shape", ["r"], ["s"]),
    helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
    helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
    helper.make_node("Concat", ["n1", "minus1"], ["shape"], axis=0),
    helper.make_node("Reshape", ["r", "shape"], ["flat"]),
    helper.make_node("Gemm", ["flat", "W", "B"], ["y"], transB=1),
]
inits = [
    numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"),
    numpy_helper.from_array(np.array([0], dtype=np.int64), "axes0"),
    numpy_helper.from_array(np.array([-1], dtype=np.int64), "minus1"),
    numpy_helper.from_array(W, "W"),
    numpy_helper.from_array(B, "B"),
]
g = helper.make_graph(nodes, "flatten_chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 4])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
y = (np.maximum(x, 0).reshape(2, -1).astype(np.float64) @ W.T.astype(np.float64) + B).astype(np.float32)
save("flatten_chain", m, [("x", x)], [("y", y)])

# ---- conv + batchnorm + per-channel affine ----
x = f32(1, 3, 8, 8)
Wc = f32(4, 3, 3, 3)
Bc = f32(4)
scale = rng.uniform(0.5, 1.5, 4).astype(np.float32)
beta = f32(4)
mean = f32(4)
var = rng.uniform(0.2, 1.0, 4).astype(np.float32)
cm = rng.uniform(0.5, 2.0, (1, 4, 1, 1)).astype(np.float32)
ca = f32(1, 4, 1, 1)
nodes = [
    helper.make_node("Conv", ["x", "Wc", "Bc"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
    helper.make_node("BatchNormalization", ["c", "scale", "beta", "mean", "var"], ["bn"], epsilon=1e-5),
    helper.make_node("Relu", ["bn"], ["r"]),
    helper.make_node("Conv", ["r", "Wc2", "Bc2"], ["c2"], kernel_shape=[1, 1]),
    helper.make_node("Mul", ["c2", "cm"], ["m"]),
    helper.make_node("Add", ["m", "ca"], ["y"]),
]
Wc2 = f32(4, 4, 1, 1)
Bc2 = f32(4)
inits = [numpy_helper.from_array(a, n) for n, a in
         [("Wc", Wc), ("Bc", Bc), ("scale", scale), ("beta", beta), ("mean", mean), ("var", var), ("cm", cm),
          ("ca", ca), ("Wc2", Wc2), ("Bc2", Bc2)]]
g = helper.make_graph(nodes, "conv_bn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])], inits)
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def conv(x, w, b, pad):
    n, c, h, wd = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[2]
    out = np.zeros((n, w.shape[0], h, wd))
    for o in range(w.shape[0]):
        for i in range(h):
            for j in range(wd):
                out[0, o, i, j] = (xp[0, :, i:i + k, j:j + k] * w[o]).sum() + b[o]
    return out


c = conv(x, Wc, Bc, 1)
bn = (c - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * scale[None, :, None, None] + \
    beta[None, :, None, None]
r = np.maximum(bn, 0)
c2 = conv(r, Wc2, Bc2, 0)
y = (c2 * cm + ca).astype(np.float32)
save("conv_bn", m, [("x", x)], [("y", y)])
print("wrote flatten_chain/ and conv_bn/")
