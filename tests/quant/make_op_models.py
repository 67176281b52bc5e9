#!/usr/bin/env python3
"""Writes the small QDQ models of the ONNX integer e2e tests (tests/quant/ops/).

    make_op_models.py OUT_DIR --node-modules DIR

One folder per model: model.onnx (one quantized op, or a short chain that
exercises a layout rule) and test_data_set_0 with a random int8 / uint8 input and
onnxruntime's output (ort_reference.py; onnxruntime-node, see there). The files
are committed: the tests need neither onnxruntime nor the network.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261125)


class M:
    def __init__(self, name):
        self.name, self.nodes, self.inits, self.inputs, self.outputs, self.n = name, [], [], [], [], 0
        self.data = {}

    def fresh(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def init(self, a, p="c"):
        n = self.fresh(p)
        self.inits.append(numpy_helper.from_array(np.asarray(a), n))
        return n

    def node(self, op, ins, n_out=1, **attrs):
        outs = [self.fresh(op.lower()) for _ in range(n_out)]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.fresh(op), **attrs))
        return outs[0]

    def input(self, shape, dtype=np.int8):
        name = f"x{len(self.inputs)}"
        elem = {np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8, np.float32: TensorProto.FLOAT}[dtype]
        self.inputs.append(helper.make_tensor_value_info(name, elem, shape))
        if dtype == np.float32:
            self.data[name] = rng.uniform(-4, 4, shape).astype(np.float32)
        else:
            info = np.iinfo(dtype)
            self.data[name] = rng.integers(info.min, info.max + 1, shape).astype(dtype)
        return name

    def dq(self, x, s, zp, dtype=np.int8):
        return self.node("DequantizeLinear", [x, self.init(np.float32(s), "s"), self.init(dtype(zp), "zp")])

    def q(self, f, s, zp, dtype=np.int8):
        return self.node("QuantizeLinear", [f, self.init(np.float32(s), "s"), self.init(dtype(zp), "zp")])

    def weights(self, shape, axis=0, per_channel=True, scales=(0.002, 0.02)):
        w = rng.integers(-127, 128, shape).astype(np.int8)
        n = shape[axis] if per_channel else 1
        s = rng.uniform(scales[0], scales[1], n).astype(np.float32)
        if per_channel:
            return self.node("DequantizeLinear", [self.init(w, "w"), self.init(s, "ws")], axis=axis), s
        return self.node("DequantizeLinear", [self.init(w, "w"), self.init(np.float32(s[0]), "ws")]), s

    def bias(self, n, x_scale, w_scales):
        b = rng.integers(-3000, 3000, n).astype(np.int32)
        s = (np.float32(x_scale) * w_scales).astype(np.float32)
        return self.node("DequantizeLinear", [self.init(b, "b"), self.init(s, "bs")], axis=0)

    def output(self, v, shape, dtype=TensorProto.INT8):
        out = f"y{len(self.outputs)}"
        self.nodes.append(helper.make_node("Identity", [v], [out], name=self.fresh("out")))
        self.outputs.append(helper.make_tensor_value_info(out, dtype, shape))

    def save(self, root, node_modules):
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], producer_name="make_op_models.py")
        model.ir_version = 7
        onnx.checker.check_model(model, full_check=True)
        d = os.path.join(root, self.name)
        data = os.path.join(d, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        onnx.save(model, os.path.join(d, "model.onnx"))
        for i, inp in enumerate(self.inputs):
            t = numpy_helper.from_array(self.data[inp.name], inp.name)
            open(os.path.join(data, f"input_{i}.pb"), "wb").write(t.SerializeToString())
        subprocess.run([sys.executable, os.path.join(HERE, "ort_reference.py"), os.path.join(d, "model.onnx"), data,
                        data, "--node-modules", node_modules], check=True)


def out_scale(k, x_scale, w_scales):
    """An output scale that spreads a conv / matmul result over most of int8."""
    return float(3 * np.sqrt(k) * 74 * 74 * x_scale * float(np.mean(w_scales)) / 127)


def conv(name, c, cout, hw, k, stride=1, group=1, act=None, auto_pad=None):
    m = M(name)
    x = m.input([1, c, hw, hw])
    xs = 0.05
    w, ws = m.weights([cout, c // group, k, k])
    ys = out_scale(k * k * c // group, xs, ws)
    attrs = dict(strides=[stride, stride], group=group, kernel_shape=[k, k])
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    else:
        attrs["pads"] = [k // 2] * 4
    y = m.node("Conv", [m.dq(x, xs, -3), w, m.bias(cout, xs, ws)], **attrs)
    if act == "relu":
        y = m.node("Relu", [y])
    elif act == "relu6":
        y = m.node("Clip", [y, m.init(np.float32(0)), m.init(np.float32(6 * ys * 10))])
    oh = (hw + 2 * (k // 2) - k) // stride + 1 if not auto_pad else (hw + stride - 1) // stride
    m.output(m.q(y, ys, 5), [1, cout, oh, oh])
    return m


def gemm(name, k, n):
    m = M(name)
    x = m.input([1, k])
    w, ws = m.weights([n, k])
    y = m.node("Gemm", [m.dq(x, 0.04, 7), w, m.bias(n, 0.04, ws)], transB=1)
    m.output(m.q(y, out_scale(k, 0.04, ws), -10), [1, n])
    return m


def matmul(name, rows, k, n):
    m = M(name)
    x = m.input([rows, k])
    w, ws = m.weights([k, n], axis=1)
    y = m.node("MatMul", [m.dq(x, 0.04, 0), w])
    m.output(m.q(y, out_scale(k, 0.04, ws), 3), [rows, n])
    return m


def conv_flatten_gemm():
    """Conv -> Relu -> Flatten -> Gemm: the FC weights take the NHWC order."""
    m = M("conv_flatten_gemm")
    x = m.input([1, 4, 5, 5])
    w, ws = m.weights([6, 4, 3, 3])
    ys = out_scale(36, 0.05, ws)
    y = m.node("Relu", [m.node("Conv", [m.dq(x, 0.05, 0), w, m.bias(6, 0.05, ws)], pads=[1, 1, 1, 1])])
    y = m.q(y, ys, -128)
    f = m.node("Flatten", [m.dq(y, ys, -128)], axis=1)
    w2, ws2 = m.weights([10, 150])
    g = m.node("Gemm", [f, w2, m.bias(10, ys, ws2)], transB=1)
    m.output(m.q(g, out_scale(150, ys, ws2) / 2, 0), [1, 10])
    return m


def qlinear_conv():
    m = M("qlinear_conv")
    x = m.input([1, 3, 6, 6])
    w = rng.integers(-127, 128, [4, 3, 3, 3]).astype(np.int8)
    ws = rng.uniform(0.002, 0.02, 4).astype(np.float32)
    b = rng.integers(-2000, 2000, 4).astype(np.int32)
    ins = [x, m.init(np.float32(0.05)), m.init(np.int8(2)), m.init(w), m.init(ws), m.init(np.zeros(4, np.int8)),
           m.init(np.float32(out_scale(27, 0.05, ws))), m.init(np.int8(-1)), m.init(b)]
    m.output(m.node("QLinearConv", ins, pads=[1, 1, 1, 1]), [1, 4, 6, 6])
    return m


def qlinear_matmul():
    m = M("qlinear_matmul")
    x = m.input([3, 20])
    w = rng.integers(-127, 128, [20, 5]).astype(np.int8)
    ins = [x, m.init(np.float32(0.03)), m.init(np.int8(4)), m.init(w), m.init(np.float32(0.01)), m.init(np.int8(0)),
           m.init(np.float32(out_scale(20, 0.03, [0.01]))), m.init(np.int8(0))]
    m.output(m.node("QLinearMatMul", ins), [3, 5])
    return m


def uint8_conv():
    """uint8 activations (the ONNX quantizer's default): float in, uint8 out."""
    m = M("uint8_conv")
    x = m.input([1, 2, 6, 6], np.float32)
    xq = m.q(x, 0.03, 128, np.uint8)
    w, ws = m.weights([3, 2, 3, 3])
    ys = out_scale(18, 0.03, ws)
    y = m.node("Conv", [m.dq(xq, 0.03, 128, np.uint8), w, m.bias(3, 0.03, ws)], pads=[1, 1, 1, 1])
    m.output(m.q(y, ys, 120, np.uint8), [1, 3, 6, 6], TensorProto.UINT8)
    return m


def binary(op):
    m = M(op.lower())
    a, b = m.input([1, 4, 3, 3]), m.input([1, 4, 3, 3])
    y = m.node(op, [m.dq(a, 0.05, 3), m.dq(b, 0.08, -6)])
    m.output(m.q(y, 0.1 if op == "Add" else 0.3, -2), [1, 4, 3, 3])
    return m


def pool(name, op, **attrs):
    m = M(name)
    x = m.input([1, 3, 8, 8])
    y = m.node(op, [m.dq(x, 0.05, 1)], **attrs)
    shape = [1, 3, 1, 1] if op.startswith("Global") else [1, 3, 4, 4]
    m.output(m.q(y, 0.05, 1), shape)
    return m


def unary(op, **attrs):
    m = M(op.lower())
    x = m.input([1, 64])
    y = m.node(op, [m.dq(x, 0.06, -4)], **attrs)
    m.output(m.q(y, 1.0 / 256 if op == "Sigmoid" else 0.04, -128 if op == "Sigmoid" else 0), [1, 64])
    return m


def softmax():
    m = M("softmax")
    x = m.input([1, 10])
    y = m.node("Softmax", [m.dq(x, 0.1, 0)], axis=-1)
    m.output(m.q(y, 1.0 / 256, -128), [1, 10])
    return m


def erf():
    """An op with no integer form: it stays float between its DQ and Q."""
    m = M("erf_stays_float")
    x = m.input([1, 16])
    m.output(m.q(m.node("Erf", [m.dq(x, 0.02, 0)]), 1.0 / 128, 0), [1, 16])
    return m


def small_cnn():
    """A float-in CNN the way ONNX quantizers write it: Q at the input, conv + relu,
    max pool, a residual add, global average pool, flatten, gemm, softmax."""
    m = M("small_cnn")
    x = m.input([1, 3, 12, 12], np.float32)
    xs = 0.04
    a = m.q(x, xs, 0)
    w1, s1 = m.weights([8, 3, 3, 3])
    y1s = out_scale(27, xs, s1)
    y1 = m.q(m.node("Relu", [m.node("Conv", [m.dq(a, xs, 0), w1, m.bias(8, xs, s1)], pads=[1, 1, 1, 1])]),
             y1s, -128)
    p = m.q(m.node("MaxPool", [m.dq(y1, y1s, -128)], kernel_shape=[2, 2], strides=[2, 2]), y1s, -128)
    w2, s2 = m.weights([8, 8, 3, 3])
    y2s = out_scale(72, y1s, s2)
    y2 = m.q(m.node("Conv", [m.dq(p, y1s, -128), w2, m.bias(8, y1s, s2)], pads=[1, 1, 1, 1]), y2s, 3)
    rs = max(y1s, y2s) * 1.5
    r = m.q(m.node("Relu", [m.node("Add", [m.dq(p, y1s, -128), m.dq(y2, y2s, 3)])]), rs, -128)
    g = m.q(m.node("GlobalAveragePool", [m.dq(r, rs, -128)]), rs, -128)
    f = m.node("Flatten", [m.dq(g, rs, -128)], axis=1)
    w3, s3 = m.weights([5, 8], scales=(0.0001, 0.0004))  # logits of a few units: a soft softmax
    ls = out_scale(8, rs, s3)
    logits = m.q(m.node("Gemm", [f, w3, m.bias(5, rs, s3)], transB=1), ls, 0)
    m.output(m.q(m.node("Softmax", [m.dq(logits, ls, 0)], axis=-1), 1.0 / 256, -128), [1, 5])
    return m


def conv_add_channel_constant():
    """Conv -> Add of a per-channel int8 constant [C,1,1]: the Add runs in NHWC with
    the constant permuted to [1,1,1,C] at compile time."""
    m = M("conv_add_channel_constant")
    x = m.input([1, 4, 5, 5])
    w, ws = m.weights([6, 4, 3, 3])
    ys = out_scale(36, 0.05, ws)
    y = m.q(m.node("Conv", [m.dq(x, 0.05, 0), w, m.bias(6, 0.05, ws)], pads=[1, 1, 1, 1]), ys, 0)
    c = m.init(rng.integers(-127, 128, [6, 1, 1]).astype(np.int8), "k")
    a = m.node("Add", [m.dq(y, ys, 0), m.dq(c, ys * 0.5, 0)])
    w2, ws2 = m.weights([6, 6, 1, 1])
    z = m.q(a, ys * 1.5, 0)
    out = m.node("Conv", [m.dq(z, ys * 1.5, 0), w2], pads=[0, 0, 0, 0])
    m.output(m.q(out, out_scale(6, ys * 1.5, ws2), 0), [1, 6, 5, 5])
    return m


def qoperator_uint8():
    """ONNX's operator form on uint8 activations: Q(uint8) -> QLinearConv (int8
    weights) -> QLinearConv (uint8 weights, zero point 128) -> uint8 graph output."""
    m = M("qoperator_uint8")
    x = m.input([1, 3, 6, 6], np.float32)
    xq = m.q(x, 0.03, 128, np.uint8)
    w1 = rng.integers(-127, 128, [4, 3, 3, 3]).astype(np.int8)
    s1 = rng.uniform(0.002, 0.02, 4).astype(np.float32)
    y1s = out_scale(27, 0.03, s1)
    y1 = m.node("QLinearConv", [xq, m.init(np.float32(0.03)), m.init(np.uint8(128)), m.init(w1), m.init(s1),
                                m.init(np.zeros(4, np.int8)), m.init(np.float32(y1s)), m.init(np.uint8(120)),
                                m.init(rng.integers(-2000, 2000, 4).astype(np.int32))], pads=[1, 1, 1, 1])
    w2 = rng.integers(1, 256, [5, 4, 1, 1]).astype(np.uint8)
    y2s = out_scale(4, y1s, [0.01])
    y2 = m.node("QLinearConv", [y1, m.init(np.float32(y1s)), m.init(np.uint8(120)), m.init(w2),
                                m.init(np.float32(0.01)), m.init(np.uint8(128)), m.init(np.float32(y2s)),
                                m.init(np.uint8(100))])
    m.output(y2, [1, 5, 6, 6], TensorProto.UINT8)
    return m


MODELS = [
    lambda: conv("conv3x3_relu", 3, 8, 8, 3, act="relu"),
    lambda: conv("conv_stride2_same_relu6", 4, 6, 9, 3, stride=2, act="relu6", auto_pad="SAME_UPPER"),
    lambda: conv("conv1x1", 8, 16, 5, 1),
    lambda: conv("depthwise3x3", 6, 6, 7, 3, group=6, act="relu"),
    lambda: conv("depthwise_multiplier2", 3, 6, 6, 3, group=3),
    lambda: gemm("gemm", 40, 12),
    lambda: matmul("matmul", 3, 24, 7),
    conv_flatten_gemm,
    qlinear_conv,
    qlinear_matmul,
    uint8_conv,
    lambda: binary("Add"),
    lambda: binary("Mul"),
    lambda: pool("avgpool", "AveragePool", kernel_shape=[2, 2], strides=[2, 2]),
    lambda: pool("maxpool", "MaxPool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 0, 0]),
    lambda: pool("global_avgpool", "GlobalAveragePool"),
    lambda: unary("Sigmoid"),
    lambda: unary("Tanh"),
    lambda: unary("HardSwish"),
    lambda: unary("LeakyRelu", alpha=0.1),
    softmax,
    erf,
    small_cnn,
    conv_add_channel_constant,
    qoperator_uint8,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out_dir")
    ap.add_argument("--node-modules", required=True,
                    help="node_modules of a scratch `npm install onnxruntime-node`")
    a = ap.parse_args()
    for make in MODELS:
        make().save(a.out_dir, a.node_modules)


if __name__ == "__main__":
    main()
