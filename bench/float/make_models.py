#!/usr/bin/python3
"""Makes the float32 benchmark networks of bench/float: the standard published layer
shapes of six tinyML networks, written with onnx.helper the way a PyTorch export
looks after BatchNorm folding (Conv with bias, Relu / Clip(0, 6), Add, Concat,
pools, Flatten, Gemm, Softmax), with random weights, plus reference outputs.

  KWS DS-CNN            MLPerf Tiny keyword spotting (49x10 MFCC, 64 channels)
  VWW MobileNetV1-0.25  MLPerf Tiny visual wake words (96x96x3, 2 classes)
  IC ResNet-8           MLPerf Tiny image classification (32x32x3, 10 classes)
  MobileNetV2-0.35      96x96x3, 2 classes (last conv 1280 channels; 1000 classes
                        would not fit the 4 MiB flash of the QEMU boards)
  squeeze-style net     SqueezeNet fire modules (squeeze 1x1, expand 1x1 + 3x3,
                        Concat) on 32x32x3, 10 classes
  FC autoencoder        MLPerf Tiny anomaly detection (640 -> 128x4 -> 8 -> 128x4 -> 640)

The reference outputs are computed here with numpy in float64 (an implementation
independent of Kiln) and rounded to float32. Inputs of a network without a final
Softmax are drawn until every output is at least 1e-2 away from zero (the comparison
is relative, rtol 1e-3 with atol 1e-7, and float32 rounding of a sum that cancels to
~0 says nothing about a kernel).
The models are not committed (MobileNetV2's weights are 7 MB): `make bench` runs
this script into the build folder.

    /usr/bin/python3 bench/float/make_models.py OUT_DIR [NAME ...]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Net:
    """An ONNX graph under construction and its numpy float64 evaluation, side by side."""

    def __init__(self, name, seed, in_shape):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.ops = [], [], []
        self.count = 0
        self.in_shape = in_shape

    def fresh(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def const(self, prefix, arr):
        name = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def node(self, op, inputs, fn, **attrs):
        out = self.fresh(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        self.ops.append(fn)
        return out

    # Each layer returns (onnx value name, shape) and records a numpy function on a
    # dict of float64 arrays keyed by value name.
    def conv(self, x, c_out, k, stride=1, pad=None, groups=1, bias=True):
        (name, (n, c, h, w)) = x
        kh, kw = (k, k) if isinstance(k, int) else k
        if pad is None:
            pad = [kh // 2, kw // 2, kh // 2, kw // 2]
        fan_in = (c // groups) * kh * kw
        wt = (self.rng.standard_normal((c_out, c // groups, kh, kw)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        b = (self.rng.standard_normal(c_out) * 0.1).astype(np.float32)
        ins = [name, self.const("w", wt)] + ([self.const("b", b)] if bias else [])
        ho = (h + pad[0] + pad[2] - kh) // stride + 1
        wo = (w + pad[1] + pad[3] - kw) // stride + 1

        def fn(env, name=name, wt=wt.astype(np.float64), b=b.astype(np.float64)):
            xin = np.pad(env[name], ((0, 0), (0, 0), (pad[0], pad[2]), (pad[1], pad[3])))
            out = np.zeros((n, c_out, ho, wo))
            cg, og = c // groups, c_out // groups
            for g in range(groups):
                xs = xin[:, g * cg:(g + 1) * cg]
                ws = wt[g * og:(g + 1) * og]
                for i in range(kh):
                    for j in range(kw):
                        patch = xs[:, :, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride]
                        out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, ws[:, :, i, j])
            return out + (b[None, :, None, None] if bias else 0.0)

        out = self.node("Conv", ins, None, kernel_shape=[kh, kw], strides=[stride, stride], pads=pad, group=groups)
        self.ops[-1] = (out, fn)
        return out, (n, c_out, ho, wo)

    def unary(self, x, op, f, extra_inputs=(), **attrs):
        (name, shape) = x
        out = self.node(op, [name] + list(extra_inputs), None, **attrs)
        self.ops[-1] = (out, lambda env, name=name: f(env[name]))
        return out, shape

    def relu(self, x):
        return self.unary(x, "Relu", lambda v: np.maximum(v, 0.0))

    def relu6(self, x):
        lo = self.const("lo", np.array(0.0, np.float32))
        hi = self.const("hi", np.array(6.0, np.float32))
        return self.unary(x, "Clip", lambda v: np.clip(v, 0.0, 6.0), extra_inputs=(lo, hi))

    def add(self, a, b):
        out = self.node("Add", [a[0], b[0]], None)
        self.ops[-1] = (out, lambda env, p=a[0], q=b[0]: env[p] + env[q])
        return out, a[1]

    def concat(self, xs):
        out = self.node("Concat", [x[0] for x in xs], None, axis=1)
        self.ops[-1] = (out, lambda env, names=[x[0] for x in xs]: np.concatenate([env[v] for v in names], axis=1))
        (n, _, h, w) = xs[0][1]
        return out, (n, sum(x[1][1] for x in xs), h, w)

    def maxpool(self, x, k, stride):
        (name, (n, c, h, w)) = x
        ho, wo = (h - k) // stride + 1, (w - k) // stride + 1

        def fn(env, name=name):
            v = env[name]
            out = np.full((n, c, ho, wo), -np.inf)
            for i in range(k):
                for j in range(k):
                    out = np.maximum(out, v[:, :, i:i + stride * (ho - 1) + 1:stride, j:j + stride * (wo - 1) + 1:stride])
            return out

        out = self.node("MaxPool", [name], None, kernel_shape=[k, k], strides=[stride, stride])
        self.ops[-1] = (out, fn)
        return out, (n, c, ho, wo)

    def global_avgpool(self, x):
        (name, (n, c, h, w)) = x
        out = self.node("GlobalAveragePool", [name], None)
        self.ops[-1] = (out, lambda env, name=name: env[name].mean(axis=(2, 3), keepdims=True))
        return out, (n, c, 1, 1)

    def avgpool(self, x, k):
        (name, (n, c, h, w)) = x
        out = self.node("AveragePool", [name], None, kernel_shape=list(k), strides=list(k))
        self.ops[-1] = (out, lambda env, name=name: env[name].reshape(n, c, h // k[0], k[0], w // k[1], k[1]).mean(axis=(3, 5)))
        return out, (n, c, h // k[0], w // k[1])

    def flatten(self, x):
        (name, shape) = x
        out = self.node("Flatten", [name], None, axis=1)
        self.ops[-1] = (out, lambda env, name=name: env[name].reshape(shape[0], -1))
        return out, (shape[0], int(np.prod(shape[1:])))

    def gemm(self, x, n_out):
        (name, (n, k)) = x
        wt = (self.rng.standard_normal((n_out, k)) * np.sqrt(2.0 / k)).astype(np.float32)
        b = (self.rng.standard_normal(n_out) * 0.1).astype(np.float32)
        out = self.node("Gemm", [name, self.const("fc_w", wt), self.const("fc_b", b)], None, transB=1)
        self.ops[-1] = (out, lambda env, name=name: env[name] @ wt.astype(np.float64).T + b)
        return out, (n, n_out)

    def softmax(self, x):
        def f(v):
            e = np.exp(v - v.max(axis=1, keepdims=True))
            return e / e.sum(axis=1, keepdims=True)
        return self.unary(x, "Softmax", f, axis=1)

    def input(self):
        return "input", self.in_shape

    def finish(self, y, out_dir, data_sets=3):
        (yname, yshape) = y
        graph = helper.make_graph(
            self.nodes, self.name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(self.in_shape))],
            [helper.make_tensor_value_info(yname, TensorProto.FLOAT, list(yshape))], self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="kiln-bench")
        onnx.checker.check_model(model)
        folder = os.path.join(out_dir, self.name)
        os.makedirs(folder, exist_ok=True)
        onnx.save(model, os.path.join(folder, "model.onnx"))
        data_rng = np.random.default_rng(1000 + len(self.name))
        made = 0
        while made < data_sets:
            x = data_rng.standard_normal(self.in_shape).astype(np.float32)
            env = {"input": x.astype(np.float64)}
            for (name, fn) in self.ops:
                env[name] = fn(env)
            y_ref = env[yname].astype(np.float32)
            if self.nodes[-1].op_type != "Softmax" and np.min(np.abs(y_ref)) < 1e-2:
                continue
            d = os.path.join(folder, "test_data_set_%d" % made)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, "input").SerializeToString())
            with open(os.path.join(d, "output_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(y_ref, yname).SerializeToString())
            made += 1


def kws_dscnn(out_dir):
    net = Net("kws_dscnn", 1, (1, 1, 49, 10))
    x = net.relu(net.conv(net.input(), 64, (10, 4), stride=2, pad=[4, 1, 5, 1]))
    for _ in range(4):
        x = net.relu(net.conv(x, 64, 3, groups=64))
        x = net.relu(net.conv(x, 64, 1))
    x = net.flatten(net.avgpool(x, (25, 5)))
    net.finish(net.softmax(net.gemm(x, 12)), out_dir)


def vww_mobilenet_v1(out_dir):
    net = Net("vww_mobilenet_v1_025", 2, (1, 3, 96, 96))
    x = net.relu(net.conv(net.input(), 8, 3, stride=2))
    c = 8
    for (c_out, s) in [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1),
                       (128, 1), (128, 1), (256, 2), (256, 1)]:
        x = net.relu(net.conv(x, c, 3, stride=s, groups=c))
        x = net.relu(net.conv(x, c_out, 1))
        c = c_out
    x = net.flatten(net.avgpool(x, (3, 3)))
    net.finish(net.softmax(net.gemm(x, 2)), out_dir)


def resnet8(out_dir):
    net = Net("ic_resnet8", 3, (1, 3, 32, 32))
    x = net.relu(net.conv(net.input(), 16, 3))
    c = 16
    for (c_out, s) in [(16, 1), (32, 2), (64, 2)]:
        y = net.relu(net.conv(x, c_out, 3, stride=s))
        y = net.conv(y, c_out, 3)
        if s != 1:
            x = net.conv(x, c_out, 1, stride=s)
        x = net.relu(net.add(x, y))
        c = c_out
    x = net.flatten(net.avgpool(x, (8, 8)))
    net.finish(net.softmax(net.gemm(x, 10)), out_dir)


def mobilenet_v2(out_dir):
    net = Net("mobilenet_v2_035", 4, (1, 3, 96, 96))

    def divisible(v):  # torchvision's _make_divisible(v, 8)
        d = max(8, int(v + 4) // 8 * 8)
        return d + 8 if d < 0.9 * v else d

    x = net.relu6(net.conv(net.input(), divisible(32 * 0.35), 3, stride=2))
    c = divisible(32 * 0.35)
    for (t, ch, reps, s) in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                             (6, 160, 3, 2), (6, 320, 1, 1)]:
        c_out = divisible(ch * 0.35)
        for r in range(reps):
            stride = s if r == 0 else 1
            y = x
            if t != 1:
                y = net.relu6(net.conv(y, c * t, 1))
            y = net.relu6(net.conv(y, c * t, 3, stride=stride, groups=c * t))
            y = net.conv(y, c_out, 1)
            x = net.add(x, y) if stride == 1 and c == c_out else y
            c = c_out
    x = net.relu6(net.conv(x, 1280, 1))
    x = net.flatten(net.global_avgpool(x))
    net.finish(net.softmax(net.gemm(x, 2)), out_dir)


def squeeze_net(out_dir):
    net = Net("squeeze_concat", 5, (1, 3, 32, 32))

    def fire(x, s, e):
        sq = net.relu(net.conv(x, s, 1))
        return net.concat([net.relu(net.conv(sq, e, 1)), net.relu(net.conv(sq, e, 3))])

    x = net.relu(net.conv(net.input(), 24, 3, stride=2))
    x = fire(x, 8, 20)
    x = fire(x, 8, 20)
    x = net.maxpool(x, 2, 2)
    x = fire(x, 16, 40)
    x = fire(x, 16, 40)
    x = net.relu(net.conv(x, 10, 1))
    x = net.flatten(net.global_avgpool(x))
    net.finish(net.softmax(x), out_dir)


def fc_autoencoder(out_dir):
    net = Net("ad_autoencoder", 6, (1, 640))
    x = net.input()
    for n_out in [128, 128, 128, 128, 8, 128, 128, 128, 128]:
        x = net.relu(net.gemm(x, n_out))
    net.finish(net.gemm(x, 640), out_dir)


MODELS = {"kws_dscnn": kws_dscnn, "vww_mobilenet_v1_025": vww_mobilenet_v1, "ic_resnet8": resnet8,
          "mobilenet_v2_035": mobilenet_v2, "squeeze_concat": squeeze_net, "ad_autoencoder": fc_autoencoder}


def main():
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    for name in names:
        MODELS[name](out_dir)
        print("make_models: %s/%s" % (out_dir, name))


if __name__ == "__main__":
    main()
