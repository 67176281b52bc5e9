#!/usr/bin/python3
"""Writes the int8 layers of the kernel sweep (bench/kernels/kernel_sweep.sh): one
.tflite file per layer, an int8 input straight into one operator, and one data set
whose output is TFLite Micro's integer result (tests/tflite/tflm_cnn_ref.py for
CONV_2D / DEPTHWISE_CONV_2D / FULLY_CONNECTED / AVERAGE_POOL_2D,
tests/tflite/tflite_int_ref.py for ADD; MAX_POOL_2D is a maximum). The shapes are
those of the layers users bring: pointwise and 3x3 convs, first layers (RGB
stride 2, KWS's 10x4 on one channel), a 1-D conv, depthwise with multipliers 1 to
8 (micro_speech's one-channel 10x8 layer among them), fully connected, pools, a
residual Add; and two layers whose fused ReLU clamps inside the int8 range
(output zero point -10: "_clamp").

  make_sweep_models.py OUT_DIR     writes OUT_DIR/<layer>.tflite and OUT_DIR/<layer>/test_data_set_0/
                                    and OUT_DIR/layers.txt (name, operator, MACs or elements)
"""
import os
import sys

import numpy as np
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "tflite"))
import make_test_models as M  # noqa: E402  (runs flatc for the builder classes)
import tflite_int_ref as R  # noqa: E402
import tflm_cnn_ref  # noqa: E402

QX = (0.05, -3)  # every layer's input quantization


def out_size(n, k, s, same):
    return (n + s - 1) // s if same else (n - k + s) // s


def layer_model(x_shape):
    fm = M.FloatModel()
    x = fm.tensor("x", x_shape, None, M.TT.INT8)
    fm.m["tensors"][x].update(scale=[QX[0]], zero_point=[QX[1]])
    return fm, x


def y_tensor(fm, shape, scale, zp=-10):
    y = fm.tensor("y", shape, None, M.TT.INT8)
    fm.m["tensors"][y].update(scale=[scale], zero_point=[zp])
    return y


def weights(fm, rng, name, shape, qdim, k):
    w = rng.integers(-127, 128, shape).astype(np.int8)
    n = shape[qdim]
    ws = [float(np.float32(v)) for v in rng.uniform(0.004, 0.012, n)]
    wt = fm.tensor(name + "/w", shape, w, M.TT.INT8)
    fm.m["tensors"][wt].update(scale=ws, zero_point=[0] * n, qdim=qdim)
    bias = rng.integers(-2000, 2000, n).astype(np.int32)
    bt = fm.tensor(name + "/b", [n], bias, M.TT.INT32)
    fm.m["tensors"][bt].update(scale=[QX[0] * s for s in ws], zero_point=[0] * n)
    # An output scale that keeps most results off the clamps: sums of k products.
    return wt, bt, QX[0] * 0.008 * 70 * np.sqrt(k) / 40


# A fused ReLU's output usually has zero point -128 (its range starts at 0), so the
# clamp is the int8 range; y_zp above -128 makes a partial clamp.
def conv(rng, h, w, cin, cout, kh, kw, stride, same, y_zp=-128):
    fm, x = layer_model([1, h, w, cin])
    wt, bt, sy = weights(fm, rng, "conv", [cout, kh, kw, cin], 0, kh * kw * cin)
    oh, ow = out_size(h, kh, stride, same), out_size(w, kw, stride, same)
    y = y_tensor(fm, [1, oh, ow, cout], sy, y_zp)
    fm.op(M.OP.CONV_2D, [x, wt, bt], [y], M.BO.Conv2DOptions,
          M.options("Conv2DOptions", Padding=M.PAD.SAME if same else M.PAD.VALID, StrideH=stride, StrideW=stride,
                    FusedActivationFunction=M.ACT.RELU))
    return fm, x, y, oh * ow * cout * kh * kw * cin


def depthwise(rng, h, w, c, mult, kh, kw, stride, same, y_zp=-128):
    fm, x = layer_model([1, h, w, c])
    wt, bt, sy = weights(fm, rng, "dw", [1, kh, kw, c * mult], 3, kh * kw)
    oh, ow = out_size(h, kh, stride, same), out_size(w, kw, stride, same)
    y = y_tensor(fm, [1, oh, ow, c * mult], sy, y_zp)
    fm.op(M.OP.DEPTHWISE_CONV_2D, [x, wt, bt], [y], M.BO.DepthwiseConv2DOptions,
          M.options("DepthwiseConv2DOptions", Padding=M.PAD.SAME if same else M.PAD.VALID, StrideH=stride,
                    StrideW=stride, DepthMultiplier=mult, DilationHFactor=1, DilationWFactor=1,
                    FusedActivationFunction=M.ACT.RELU))
    return fm, x, y, oh * ow * c * mult * kh * kw


def fully_connected(rng, n_in, n_out):
    fm, x = layer_model([1, n_in])
    wt, bt, sy = weights(fm, rng, "fc", [n_out, n_in], 0, n_in)
    y = y_tensor(fm, [1, n_out], sy)
    fm.op(M.OP.FULLY_CONNECTED, [x, wt, bt], [y], M.BO.FullyConnectedOptions,
          M.options("FullyConnectedOptions", FusedActivationFunction=M.ACT.NONE))
    return fm, x, y, n_in * n_out


def pool(rng, code, h, w, c, k, stride):
    fm, x = layer_model([1, h, w, c])
    oh, ow = out_size(h, k, stride, False), out_size(w, k, stride, False)
    y = y_tensor(fm, [1, oh, ow, c], QX[0], QX[1])  # pools keep the input's quantization
    fm.op(code, [x], [y], M.BO.Pool2DOptions,
          M.options("Pool2DOptions", Padding=M.PAD.VALID, StrideH=stride, StrideW=stride, FilterHeight=k,
                    FilterWidth=k))
    return fm, x, y, oh * ow * c


def add(rng, h, w, c):
    fm, x = layer_model([1, h, w, c])
    other = rng.integers(-128, 128, (1, h, w, c)).astype(np.int8)
    b = fm.tensor("b", [1, h, w, c], other, M.TT.INT8)
    fm.m["tensors"][b].update(scale=[0.04], zero_point=[5])
    y = y_tensor(fm, [1, h, w, c], 0.08, -2)
    fm.op(M.OP.ADD, [x, b], [y], M.BO.AddOptions, M.options("AddOptions", FusedActivationFunction=M.ACT.NONE))
    return fm, x, y, h * w * c


# name: (builder, arguments, operator, what the count counts)
LAYERS = [
    ("conv_1x1_16x16_32to32", conv, (16, 16, 32, 32, 1, 1, 1, True), "MACs"),
    ("conv_3x3_16x16_16to16", conv, (16, 16, 16, 16, 3, 3, 1, True), "MACs"),
    ("conv_3x3_s2_48x48_3to8", conv, (48, 48, 3, 8, 3, 3, 2, True), "MACs"),
    ("conv_10x4_s2_49x10_1to64", conv, (49, 10, 1, 64, 10, 4, 2, True), "MACs"),
    ("conv1d_1x5_1x64_16to16", conv, (1, 64, 16, 16, 1, 5, 1, True), "MACs"),
    ("dw_3x3_16x16_c32", depthwise, (16, 16, 32, 1, 3, 3, 1, True), "MACs"),
    ("dw_3x3_s2_16x16_c32", depthwise, (16, 16, 32, 1, 3, 3, 2, True), "MACs"),
    ("dw_5x5_12x12_c16", depthwise, (12, 12, 16, 1, 5, 5, 1, True), "MACs"),
    ("dw_3x3_24x24_c8_m2", depthwise, (24, 24, 8, 2, 3, 3, 1, True), "MACs"),
    ("dw_3x3_24x24_c8_m4", depthwise, (24, 24, 8, 4, 3, 3, 1, True), "MACs"),
    ("dw_10x8_s2_49x40_c1_m8", depthwise, (49, 40, 1, 8, 10, 8, 2, True), "MACs"),
    ("dw_10x8_s2_49x40_c1_m8_clamp", depthwise, (49, 40, 1, 8, 10, 8, 2, True, -10), "MACs"),
    ("conv_3x3_16x16_16to16_clamp", conv, (16, 16, 16, 16, 3, 3, 1, True, -10), "MACs"),
    ("fc_256to64", fully_connected, (256, 64), "MACs"),
    ("fc_640to128", fully_connected, (640, 128), "MACs"),
    ("avgpool_2x2_16x16_c32", pool, (M.OP.AVERAGE_POOL_2D, 16, 16, 32, 2, 2), "elements"),
    ("maxpool_3x3_s2_17x17_c32", pool, (M.OP.MAX_POOL_2D, 17, 17, 32, 3, 2), "elements"),
    ("add_16x16_c32", add, (16, 16, 32), "elements"),
]


def reference(path, fb, fm, builder, args, xv):
    if builder is pool and args[0] == M.OP.MAX_POOL_2D:
        _, h, w, c, k, s = args
        oh, ow = out_size(h, k, s, False), out_size(w, k, s, False)
        y = np.empty((1, oh, ow, c), np.int8)
        for i in range(oh):
            for j in range(ow):
                y[0, i, j] = xv[0, i * s:i * s + k, j * s:j * s + k].max(axis=(0, 1))
        return y
    if builder is add:
        t = fm.m["tensors"]
        other = np.frombuffer(fm.m["buffers"][t[1]["buffer"]], np.int8).reshape(xv.shape)
        return R.add_sub(xv, QX, other, (0.04, 5), (0.08, -2)).astype(np.int8)
    return tflm_cnn_ref.run(path, fb, xv)[0]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    fb = tflm_cnn_ref.load_schema()
    rng = np.random.default_rng(2026)
    lines = []
    for name, builder, args, unit in LAYERS:
        fm, x, y, count = builder(rng, *args)
        fm.m["inputs"], fm.m["outputs"] = [x], [y]
        path = os.path.join(out, name + ".tflite")
        M.write(path, M.build(fm.m))
        xv = rng.integers(-128, 128, fm.m["tensors"][x]["shape"]).astype(np.int8)
        yv = reference(path, fb, fm, builder, args, xv)
        d = os.path.join(out, name, "test_data_set_0")
        os.makedirs(d, exist_ok=True)
        M.write(os.path.join(d, "input_0.pb"), numpy_helper.from_array(xv, "x").SerializeToString())
        M.write(os.path.join(d, "output_0.pb"), numpy_helper.from_array(yv, "y").SerializeToString())
        lines.append(f"{name} {unit} {count}")
    with open(os.path.join(out, "layers.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
