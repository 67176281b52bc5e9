#!/usr/bin/python3
"""Generates inverted_residual/: three MobileNetV2 inverted residual blocks (1x1
expand -> Clip -> depthwise 3x3 -> Clip -> 1x1 project), references computed by
numpy in float64 (independently of Kiln). Blocks A and B set the peak, so Kiln
runs them patch-based (KilnInvertedResidual, schedule/patch_fusion.h); block C's
expanded tensor is smaller than what A and B then hold, so it stays as five ops.

The shapes make the patch kernel's bands uneven: block A (stride 1, 8 -> 48 -> 8
channels at 27x31, residual Add) runs in bands of 4 output rows (6 x 4, then 3),
block B (stride 2, 8 -> 48 -> 16, 27x31 -> 14x16) in bands of 3 (4 x 3, then 2);
with --memory-priority ram both in bands of 1. Widths are odd, channel counts not
all multiples of 8; the blocks leave out different biases and B's first Clip has
bounds other than (0, 6).

Run: /usr/bin/python3 make_inverted_residual.py  (writes next to this script)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "inverted_residual")
rng = np.random.default_rng(16)
C_IN, H, W = 8, 27, 31

inits, nodes = [], []


def const(name, arr):
    inits.append(numpy_helper.from_array(np.asarray(arr, np.float32), name))


def conv(x, w, b, stride, pad, groups):
    n, c, h, wd = x.shape
    k = w.shape[2]
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    cout = w.shape[0]
    y = np.zeros((n, cout, oh, ow), np.float64)
    per = cout // groups
    for o in range(cout):
        g = o // per
        cin = c // groups
        for ci in range(cin):
            for i in range(k):
                for j in range(k):
                    y[:, o] += w[o, ci, i, j] * xp[:, g * cin + ci, i:i + stride * oh:stride, j:j + stride * ow:stride]
        if b is not None:
            y[:, o] += b[o]
    return y


def conv_node(name, x, cout, cin, k, stride=1, pad=0, groups=1, bias=True):
    w = rng.standard_normal((cout, cin // groups, k, k)) / np.sqrt(cin // groups * k * k)
    const(name + "_w", w)
    ins = [x, name + "_w"]
    b = None
    if bias:
        b = rng.standard_normal(cout) * 0.1
        const(name + "_b", b)
        ins.append(name + "_b")
    nodes.append(helper.make_node("Conv", ins, [name], name=name, kernel_shape=[k, k], strides=[stride, stride],
                                  pads=[pad] * 4, group=groups))
    # The reference uses the float32 weights the model holds.
    return w.astype(np.float32).astype(np.float64), None if b is None else b.astype(np.float32).astype(np.float64)


def clip_node(name, x, lo, hi):
    const(name + "_lo", lo)
    const(name + "_hi", hi)
    nodes.append(helper.make_node("Clip", [x, name + "_lo", name + "_hi"], [name], name=name))
    return lambda v: np.clip(v, np.float32(lo), np.float32(hi))


def block(prefix, x, cin, ce, cout, stride, biases, clip1):
    """Appends one inverted residual block; returns its output name and a numpy function."""
    we, be = conv_node(prefix + "_expand", x, ce, cin, 1, bias=biases[0])
    f1 = clip_node(prefix + "_clip1", prefix + "_expand", *clip1)
    wd, bd = conv_node(prefix + "_dw", prefix + "_clip1", ce, ce, 3, stride=stride, pad=1, groups=ce, bias=biases[1])
    f2 = clip_node(prefix + "_clip2", prefix + "_dw", 0.0, 6.0)
    wp, bp = conv_node(prefix + "_project", prefix + "_clip2", cout, ce, 1, bias=biases[2])

    def run(v):
        e = f1(conv(v, we, be, 1, 0, 1).astype(np.float32))
        d = f2(conv(e, wd, bd, stride, 1, ce).astype(np.float32))
        return conv(d, wp, bp, 1, 0, 1).astype(np.float32)

    return prefix + "_project", run


pa, run_a = block("a", "x", C_IN, 48, 8, 1, (True, False, False), (0.0, 6.0))
nodes.append(helper.make_node("Add", [pa, "x"], ["ya"], name="a_residual"))
yb, run_b = block("b", "ya", 8, 48, 16, 2, (False, True, True), (-0.5, 4.0))
pc, run_c = block("c", yb, 16, 32, 16, 1, (True, True, True), (0.0, 6.0))
nodes.append(helper.make_node("Add", [pc, yb], ["y"], name="c_residual"))
OUT_SHAPE = (1, 16, 14, 16)


def reference(x):
    ya = (run_a(x).astype(np.float64) + x).astype(np.float32)
    b = run_b(ya)
    return (run_c(b).astype(np.float64) + b).astype(np.float32)


graph = helper.make_graph(nodes, "inverted_residual",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C_IN, H, W])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(OUT_SHAPE))], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-tests")
model.ir_version = 8
onnx.checker.check_model(model)
os.makedirs(OUT, exist_ok=True)
onnx.save(model, os.path.join(OUT, "model.onnx"))
for k in range(2):
    d = os.path.join(OUT, "test_data_set_%d" % k)
    os.makedirs(d, exist_ok=True)
    x = rng.standard_normal((1, C_IN, H, W)).astype(np.float32)
    y = reference(x)
    assert y.shape == OUT_SHAPE
    for name, arr, vname in [("input_0", x, "x"), ("output_0", y, "y")]:
        with open(os.path.join(d, name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(arr, vname).SerializeToString())
print("wrote", OUT)
